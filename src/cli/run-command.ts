/**
 * `contact-sync run <jobs.yaml>`: a run session (`run-session.ts`) whose jobs make the platform
 * match their files (`rows-job.ts`), told to the job's sinks (`job-watch.ts`). The command only
 * wires; the work is the pipeline's.
 */
import type { Logger } from 'pino';
import type { AllowedGuard, AllowFlag } from '../pipeline/guards/guard-verdict.js';
import { formatDuration } from '../pipeline/report/duration.js';
import type { Shard } from '../pipeline/kinds/shard.js';
import type { CliIo } from './cli-io.js';
import { JobWatch, type WatchFlags } from './job-watch.js';
import type { LogFormat } from './logger.js';
import { logRowsEnd, runRowsJob, type RowFlags } from './rows-job.js';
import { runSync } from '../pipeline/run-job.js';
import { allowedFor, describeAllow, describeRun, refuseAllowOfOtherJobs } from './run-flags.js';
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
  /** `--allow [JOB:]NAME`: the guards (`guards:`) this run may go past, of every job or of one. @default none */
  readonly allow?: readonly AllowFlag[] | undefined;
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
    ...(flags.allow ?? []).map(describeAllow),
    flags.input !== undefined && `--input ${flags.input}`,
    flags.partial === true && '--partial',
  ]);
  // Only `run` tells the outside when a job ends: a reconcile and an undo are run by hand.
  const watch = new JobWatch(flags.watchFlags ?? {}, io.cwd, flags.shard, logger, flags.dryRun);
  const refuse = (jobs: readonly { name: string }[]) => refuseAllowOfOtherJobs(flags.allow, jobs.map((job) => job.name));
  return runSession({ ...flags, argv, readsInput: true, watch, refuse }, io, logger, async (scope) => {
    const { job } = scope;
    const allow = allowedFor(flags.allow, job.name);
    const run = await runRowsJob(
      scope,
      {
        ...flags,
        allow,
        announce: () => logger.info({ job: job.name, input: job.input.label ?? job.input.path, dryRun: flags.dryRun }, 'job started'),
      },
      runSync,
    );
    io.stdout.write(formatSummary(run.summary, run.reportFiles, { limit: flags.limit }));
    for (const allowed of run.summary.guardsAllowed ?? []) logger.warn({ job: job.name, guard: allowed.guard, refusals: allowed.refusals }, allowedSentence(allowed, flags.allow ?? []));
    logRowsEnd(scope, run);
    logger.info({ job: job.name, rows: run.summary.rows, apiCalls: run.summary.apiCalls.total, exitCode: run.exitCode }, 'job finished');
    return { exitCode: run.exitCode, summary: run.summary, advice: whatNext(run.summary, run.reportFiles) };
  });
}

/** What `--allow` did for a job, said once: the refusals it let past, or that there were none. */
function allowedSentence(allowed: AllowedGuard, flags: readonly AllowFlag[]): string {
  const named = flags.find((flag) => flag.guard === allowed.guard && flag.job !== undefined);
  const scope = named === undefined ? `--allow ${allowed.guard} (every job of this run)` : describeAllow(named);
  if (!allowed.configured) return `${scope}: this job has no guards.${allowed.guard}; there was nothing to go past`;
  if (allowed.refusals === 0) return `${scope}: guards.${allowed.guard} would not have refused this run`;
  return `${scope}: went past guards.${allowed.guard}, which would have refused this run: ${allowed.messages.join(' / ')}`;
}
