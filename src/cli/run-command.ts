/**
 * `contact-sync run <jobs.yaml>`: a run session (`run-session.ts`) whose jobs make the platform
 * match their files (`rows-job.ts`), told to the job's sinks (`job-watch.ts`). The command only
 * wires; the work is the pipeline's.
 */
import type { Logger } from 'pino';
import type { GuardName } from '../pipeline/guards/guard-verdict.js';
import { formatDuration } from '../pipeline/report/duration.js';
import type { Shard } from '../pipeline/shard.js';
import type { CliIo } from './cli-io.js';
import { JobWatch, type WatchFlags } from './job-watch.js';
import type { LogFormat } from './logger.js';
import { logRowsEnd, runRowsJob, type RowFlags } from './rows-job.js';
import { describeRun } from './run-flags.js';
import { runSession, type SessionFlags } from './run-session.js';
import { formatSummary, whatNext } from './summary-table.js';

export interface RunFlags extends SessionFlags, RowFlags {
  readonly dryRun: boolean;
  /** Ignore the state store's hashes: compare every row with the platform and refresh the state. */
  readonly full: boolean;
  /** `--shard I/N`: only the rows whose key hashes to shard I of N. */
  readonly shard: Shard | undefined;
  /** `--log-format`: with json, progress is a JSON log event too. */
  readonly logFormat?: LogFormat;
  /** `--max-missing`, percent: `onMissing.maxShare` for this run. */
  readonly maxMissing?: number | undefined;
  /** `--metrics-file` and `--pushgateway`: replace jobs.yaml's `metrics:` (`job-watch.ts`). */
  readonly watchFlags?: WatchFlags;
  /** `--partial`: the input is a part of the export; the departed step (onMissing) does not run. @default false */
  readonly partial?: boolean;
  /** `--allow NAME`: the guards (`guards:`) this run may go past. @default none */
  readonly allow?: readonly GuardName[] | undefined;
}

export async function runCommand(flags: RunFlags, io: CliIo, logger: Logger): Promise<number> {
  const argv = describeRun('run', flags.jobsFile, [
    flags.dryRun && '--dry-run',
    flags.full && '--full',
    flags.limit !== undefined && `--limit ${flags.limit}`,
    flags.emulator === true && '--emulator',
    flags.shard !== undefined && `--shard ${flags.shard.index}/${flags.shard.count}`,
    flags.maxDuration !== undefined && `--max-duration ${formatDuration(flags.maxDuration)}`,
    flags.maxMissing !== undefined && `--max-missing ${flags.maxMissing}%`,
    ...(flags.allow ?? []).map((name) => `--allow ${name}`),
    flags.input !== undefined && `--input ${flags.input}`,
    flags.partial === true && '--partial',
  ]);
  // Only `run` tells the outside when a job ends: a reconcile and an undo are run by hand.
  const watch = new JobWatch(flags.watchFlags ?? {}, io.cwd, flags.shard, logger, flags.dryRun);
  return runSession({ ...flags, argv, readsInput: true, watch }, io, logger, async (scope) => {
    const { job } = scope;
    const run = await runRowsJob(scope, {
      ...flags,
      work: 'sync',
      announce: () => logger.info({ job: job.name, input: job.input.label ?? job.input.path, dryRun: flags.dryRun }, 'job started'),
    });
    io.stdout.write(formatSummary(run.summary, run.reportFiles, { limit: flags.limit }));
    logRowsEnd(scope, run);
    logger.info({ job: job.name, rows: run.summary.rows, apiCalls: run.summary.apiCalls.total, exitCode: run.exitCode }, 'job finished');
    return { exitCode: run.exitCode, summary: run.summary, advice: whatNext(run.summary, run.reportFiles) };
  });
}
