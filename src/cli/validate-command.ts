/**
 * `contact-sync validate <jobs.yaml>`: the config, the header and every row through the mapper,
 * with no API call. Exit 0 when every row maps, 1 when some rows would fail, 2 for config or input
 * errors. The same checks as `run`, so a green validate means run fails no row for its data: on a
 * v2 connection that creates contacts, a row v2 cannot create (`V2_CANNOT_CREATE`, the v2 client's
 * own rule on the create the run would send) is one of them.
 */
import { resolve } from 'node:path';
import type { Logger } from 'pino';
import { openCheckedSource } from '../pipeline/source/checked-source.js';
import { keyCellOf, mapRow } from '../pipeline/map/map.js';
import type { CliIo } from './cli-io.js';
import { EXIT, worstExit } from '../exit-codes.js';
import { KeySighting } from '../pipeline/kinds/key-sighting.js';
import type { Job, OnDuplicateRows } from '../config/job-types.js';
import { describePolicy } from '../pipeline/map/duplicate-rows.js';
import { overrideInput } from './input-override.js';
import { loadJobs } from './load-jobs.js';
import { ProblemsFile } from './problems-file.js';
import { tagCaseLine } from './summary-table.js';
import { counted } from '../pipeline/report/counted.js';
import { rowWarnings } from '../pipeline/report/report.js';
import { V2_SURFACE } from '../api/v2/surface.js';
import { v2CreateBy } from '../api/v2/v2-contact-shape.js';
import { planCreate } from '../pipeline/row/plan.js';
import type { ContactDraft } from '../pipeline/map/contact-draft.js';

/** Row problems printed per job; the rest are counted. */
const SHOWN_PROBLEMS = 50;

/** The input as validate names it in its lines: the file, or `-` for standard input. */
function inputName(job: Job): string {
  return job.input.label ?? job.input.path;
}

/**
 * `key "C0001" is on lines 2, 5, 9: line 9 is applied, ...` (what `onDuplicateRows` will do): a
 * second read of the file, for the listed keys only, so memory stays flat however many rows repeat.
 * Under `onDuplicateRows: fail` a run fails every row of a repeated key, the first one too: with a
 * problems file, the same read names each of them there (`repeated`: every key seen again), as a
 * run's report would.
 */
async function repeatedKeyLines(job: Job, listed: ReadonlySet<string>, repeatedRows: number, failing?: { repeated: KeySighting; problems: ProblemsFile }): Promise<string> {
  const lines = new Map<string, number[]>([...listed].map((key) => [key, []]));
  const source = await openCheckedSource(job);
  for await (const record of source.records) {
    if (record.kind === 'malformed') continue;
    const mapped = mapRow(record, job);
    if (!mapped.ok) continue;
    lines.get(mapped.draft.key)?.push(record.line);
    if (failing?.repeated.has(mapped.draft.key) === true) {
      failing.problems.add(job.name, inputName(job), record.line, mapped.draft.key, 'DUPLICATE_ROWS', `key ${JSON.stringify(mapped.draft.key)} is on several rows, and onDuplicateRows: fail fails them all`);
    }
  }
  const policy = duplicateRowsPolicy(job);
  const shown = [...lines].map(([key, at]) => {
    const group = { first: at[0] ?? 0, last: at.at(-1) ?? 0, count: at.length, lines: at };
    const what = policy === undefined ? '' : `: ${describePolicy(policy, group)}`;
    return `${inputName(job)}: key ${JSON.stringify(key)} is on lines ${at.join(', ')}${what}\n`;
  });
  const more = listed.size === SHOWN_PROBLEMS && repeatedRows > SHOWN_PROBLEMS ? `... and more repeated keys (${counted(repeatedRows, 'row')} repeat a key in all)\n` : '';
  return shown.join('') + more;
}

export async function validateCommand(args: { jobsFile: string; job: string[]; input?: string; problems?: string }, io: CliIo, logger: Logger): Promise<number> {
  // No call is made: a token that is not set is a warning, so validate runs in CI without secrets.
  const selected = await overrideInput(await loadJobs(args.jobsFile, args.job, io, logger, { tokenOptional: true }), args.input, io);
  let problems: ProblemsFile | undefined;
  try {
    // Opened before any row is read: a path that cannot be written is said at once (exit 2).
    problems = args.problems === undefined ? undefined : ProblemsFile.create(resolve(io.cwd, args.problems));
    const code = await validateJobs(selected.jobs, io, problems);
    if (problems !== undefined) io.stdout.write(`every problem, one row each: ${problems.path} (${counted(problems.rows, 'row')})\n`);
    return code;
  } finally {
    problems?.close();
    selected.release();
  }
}

async function validateJobs(jobs: readonly Job[], io: CliIo, problems: ProblemsFile | undefined): Promise<number> {
  const codes: number[] = [];
  for (const job of jobs) {
    const source = await openCheckedSource(job);
    let rows = 0;
    let invalid = 0;
    const keys = new KeySighting();
    let repeatedKeys = 0;
    // Keys on more than one row: under onDuplicateRows: fail, all their rows fail.
    let keysRepeated = 0;
    // The first keys seen again, to list with their lines (a second pass finds every line).
    const listed = new Set<string>();
    // Every key seen again (fingerprints: flat memory), for the problems file under onDuplicateRows: fail.
    const repeatedSet = new KeySighting();
    let skippedFields = 0;
    // Rows whose phone is written without its extension (no extensionField).
    let extensionsDropped = 0;
    // Rows whose tags differ only in case: one warning, as a run gives it.
    const tagCase = { rows: 0, firstLine: 0, example: [] as string[] };
    const input = inputName(job);
    const keyIndex = source.header.indexOf(job.key.column);
    const v2Creates = createsOnV2(job);
    for await (const record of source.records) {
      rows++;
      let problem: { code: string; message: string } | undefined;
      if (record.kind === 'malformed') problem = record;
      else {
        const mapped = mapRow(record, job);
        if (!mapped.ok) problem = mapped.error;
        else {
          for (const skip of mapped.draft.fieldsSkipped ?? []) {
            // Not a failure (the row is written without the field), but a value to fix.
            skippedFields++;
            const message = `the row is written without field ${skip.field} (onInvalid: skip-field): ${skip.reason}`;
            if (skippedFields <= SHOWN_PROBLEMS) io.stdout.write(`${input}:${record.line}: ${skip.code}: ${message}\n`);
            problems?.add(job.name, input, record.line, mapped.draft.key, skip.code, message);
          }
          if (mapped.draft.phoneExtensions !== undefined) {
            // Not a failure either (the number is written), but what the file said is not all written.
            extensionsDropped++;
            const message = rowWarnings(mapped.draft);
            if (extensionsDropped <= SHOWN_PROBLEMS) io.stdout.write(`${input}:${record.line}: PHONE_EXTENSION: ${message}\n`);
            problems?.add(job.name, input, record.line, mapped.draft.key, 'PHONE_EXTENSION', message);
          }
          const variants = mapped.draft.tagCaseVariants;
          if (variants !== undefined && tagCase.rows++ === 0) Object.assign(tagCase, { firstLine: record.line, example: variants });
          const before = keys.sightingsBefore(mapped.draft.key);
          if (before !== 0) {
            repeatedKeys++;
            if (before === 1) keysRepeated++;
            if (listed.size < SHOWN_PROBLEMS) listed.add(mapped.draft.key);
            repeatedSet.seenBefore(mapped.draft.key);
          }
          if (v2Creates) problem = v2CreateProblem(mapped.draft);
        }
      }
      if (problem !== undefined) {
        invalid++;
        if (invalid <= SHOWN_PROBLEMS) io.stdout.write(`${input}:${record.line}: ${problem.code}: ${problem.message}\n`);
        problems?.add(job.name, input, record.line, keyCellOf(record, job, keyIndex), problem.code, problem.message);
      }
    }
    if (invalid > SHOWN_PROBLEMS) io.stdout.write(`... and ${counted(invalid - SHOWN_PROBLEMS, 'more row')} with problems${problems === undefined ? ' (every one of them: --problems FILE)' : ''}\n`);
    const policy = duplicateRowsPolicy(job);
    // A run fails every row of a repeated key under `fail`: a green validate promises no failed row.
    if (policy === 'fail') invalid += repeatedKeys + keysRepeated;
    const repeated = repeatedKeys > 0 ? `; ${counted(repeatedKeys, 'row')} ${repeatedKeys === 1 ? 'repeats' : 'repeat'} a key of an earlier row (${policy === undefined ? 'mode: message sends each row' : `onDuplicateRows: ${policy}`})` : '';
    const skipped = skippedFields > 0 ? `; ${counted(skippedFields, 'field value')} refused and skipped (onInvalid: skip-field)` : '';
    const extensions = extensionsDropped > 0 ? `; ${counted(extensionsDropped, 'row')} with a phone written without its extension (E.164 has none)` : '';
    io.stdout.write(`${job.name}: ${counted(rows, 'row')}, ${rows - invalid} valid, ${invalid} invalid${repeated}${skipped}${extensions}\n`);
    if (tagCase.rows > 0) io.stdout.write(`${input}: ${tagCaseLine(tagCase)}\n`);
    const hint = invalid > 0 ? source.encodingHint() : undefined;
    if (hint !== undefined) io.stdout.write(`${hint}\n`);
    if (listed.size > 0) io.stdout.write(await repeatedKeyLines(job, listed, repeatedKeys, policy === 'fail' && problems !== undefined ? { repeated: repeatedSet, problems } : undefined));
    codes.push(invalid > 0 ? EXIT.rowsFailed : EXIT.ok);
  }
  return worstExit(codes);
}

/** Whether the job's rows may create contacts on API v2 (`mode` upsert or create on a v2 connection). */
function createsOnV2(job: Job): boolean {
  return job.connection.api === 'v2' && (job.mode === 'upsert' || job.mode === 'create');
}

/**
 * Why v2 cannot create the row's contact, as a run fails it: the v2 client's rule (`v2CreateBy`)
 * asked of the create the run would send (`planCreate`'s first call); undefined when it can.
 */
function v2CreateProblem(draft: ContactDraft): { code: string; message: string } | undefined {
  const [create] = planCreate(draft, V2_SURFACE).operations;
  const creatable = v2CreateBy(create?.kind === 'createContact' ? create.fields : {});
  if (creatable.ok) return undefined;
  return { code: creatable.error.code, message: `${creatable.error.message} (a run fails this row when no contact holds its key yet)` };
}

/** The job's `onDuplicateRows`, or undefined with `mode: message`, where it does not apply. */
function duplicateRowsPolicy(job: Job): OnDuplicateRows | undefined {
  return job.mode === 'message' ? undefined : job.onDuplicateRows;
}
