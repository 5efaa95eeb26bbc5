/**
 * `contact-sync validate <jobs.yaml>`: the config, the header and every row through the mapper,
 * with no API call. Exit 0 when every row maps, 1 when some rows would fail, 2 for config or input
 * errors. The same checks as `run`, so a green validate means run fails no row for its data.
 */
import type { Logger } from 'pino';
import { openCheckedSource } from '../pipeline/source/checked-source.js';
import { mapRow } from '../pipeline/map/map.js';
import type { CliIo } from './cli-io.js';
import { EXIT, worstExit } from './exit-codes.js';
import { KeySighting } from './key-sighting.js';
import { loadJobs } from './load-jobs.js';

/** Row problems printed per job; the rest are counted. */
const SHOWN_PROBLEMS = 50;

export async function validateCommand(args: { jobsFile: string; job: string[] }, io: CliIo, logger: Logger): Promise<number> {
  // No call is made: a token that is not set is a warning, so validate runs in CI without secrets.
  const jobs = await loadJobs(args.jobsFile, args.job, io, logger, { tokenOptional: true });
  const codes: number[] = [];
  for (const job of jobs) {
    const source = await openCheckedSource(job);
    let rows = 0;
    let invalid = 0;
    const keys = new KeySighting();
    let repeatedKeys = 0;
    for await (const record of source.records) {
      rows++;
      let problem: string | undefined;
      if (record.kind === 'malformed') problem = `${record.code}: ${record.message}`;
      else {
        const mapped = mapRow(record, job);
        if (!mapped.ok) problem = `${mapped.error.code}: ${mapped.error.message}`;
        else {
          if (keys.seenBefore(mapped.draft.key)) repeatedKeys++;
        }
      }
      if (problem !== undefined) {
        invalid++;
        if (invalid <= SHOWN_PROBLEMS) io.stdout.write(`${job.input.path}:${record.line}: ${problem}\n`);
      }
    }
    if (invalid > SHOWN_PROBLEMS) io.stdout.write(`... and ${invalid - SHOWN_PROBLEMS} more rows with problems\n`);
    const repeated = repeatedKeys > 0 ? `; ${repeatedKeys} rows repeat a key of an earlier row (applied in file order)` : '';
    io.stdout.write(`${job.name}: ${rows} rows, ${rows - invalid} valid, ${invalid} invalid${repeated}\n`);
    const hint = invalid > 0 ? source.encodingHint() : undefined;
    if (hint !== undefined) io.stdout.write(`${hint}\n`);
    codes.push(invalid > 0 ? EXIT.rowsFailed : EXIT.ok);
  }
  return worstExit(codes);
}
