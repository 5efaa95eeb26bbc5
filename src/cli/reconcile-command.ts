/**
 * `contact-sync reconcile <jobs.yaml>`: a run session (`run-session.ts`) whose jobs compare their
 * files with the platform and write only their reports and the state (`rows-job.ts` with the
 * pipeline's reconcile work; docs/reconcile.md).
 */
import type { Logger } from 'pino';
import type { Job } from '../config/job-types.js';
import { formatDuration } from '../pipeline/report/duration.js';
import type { CliIo } from './cli-io.js';
import type { LogFormat } from './logger.js';
import { logRowsEnd, runRowsJob, type RowFlags } from './rows-job.js';
import { runReconcile } from '../pipeline/run-job.js';
import type { ReconcileFinish } from '../pipeline/kinds/reconcile-kind.js';
import { describeRun } from './run-flags.js';
import { runSession, type SessionFlags } from './run-session.js';
import { formatReconcile } from './summary-table.js';
import { UsageError } from './usage-error.js';

export interface ReconcileFlags extends SessionFlags, RowFlags {
  /** `--log-format`: with json, progress is a JSON log event too. */
  readonly logFormat?: LogFormat;
  /** `--merge-duplicates`, `--tag-extras TAG`, `--dry-run`: reconcile's own writes (docs/reconcile.md, "Finishing the job"). */
  readonly finish?: ReconcileFinish;
}

export async function reconcileCommand(flags: ReconcileFlags, io: CliIo, logger: Logger): Promise<number> {
  const argv = describeRun('reconcile', flags.jobsFile, [
    flags.limit !== undefined && `--limit ${flags.limit}`,
    flags.emulator === true && '--emulator',
    flags.maxDuration !== undefined && `--max-duration ${formatDuration(flags.maxDuration)}`,
    flags.input !== undefined && `--input ${flags.input}`,
    flags.finish?.mergeDuplicates === true && '--merge-duplicates',
    flags.finish?.tagExtras !== undefined && `--tag-extras ${flags.finish.tagExtras}`,
    flags.finish?.dryRun === true && '--dry-run',
  ]);
  const finish = flags.finish !== undefined && (flags.finish.mergeDuplicates || flags.finish.tagExtras !== undefined) ? flags.finish : undefined;
  const refuse = (jobs: readonly Job[]): void => {
    refuseSenders(jobs, flags.jobsFile);
    if (finish?.tagExtras !== undefined) refuseUnmarked(jobs, flags.jobsFile);
  };
  return runSession({ ...flags, argv, readsInput: true, refuse }, io, logger, async (scope) => {
    const { job } = scope;
    // Exit 2 before any call: the surface has no merge (API v1).
    if (finish?.mergeDuplicates === true && !scope.api.surface.merges) {
      throw new UsageError(
        `--merge-duplicates: job "${job.name}" speaks API ${scope.api.surface.name}, which cannot merge contacts; without the flag, reconcile lists each key held by several contacts in diff.csv (status duplicate) for a person to merge in the platform's interface; nothing was done`,
      );
    }
    const run = await runRowsJob(
      scope,
      {
        ...flags,
        announce: () => logger.info({ job: job.name, input: job.input.label ?? job.input.path, dryRun: false, reconcile: true }, 'reconcile started'),
      },
      (options) => runReconcile({ ...options, finish }),
    );
    const { reconcile } = run;
    io.stdout.write(formatReconcile(reconcile, run.reportFiles));
    logRowsEnd(scope, run);
    logger.info({ job: job.name, keys: reconcile.keys, apiCalls: reconcile.apiCalls.total, exitCode: run.exitCode }, 'reconcile finished');
    return { exitCode: run.exitCode };
  });
}

/** `--tag-extras`: the set is the job's `match.prefetch` marker; a job without one has none (exit 2, before anything starts). */
function refuseUnmarked(jobs: readonly Job[], jobsFile: string): void {
  const unmarked = jobs.filter((job) => job.match.prefetch === undefined).map((job) => job.name);
  if (unmarked.length > 0) {
    throw new UsageError(
      `${jobsFile}: --tag-extras: job(s) ${unmarked.join(', ')} have no match.prefetch: nothing defines the set of the job's contacts whose keys the file lacks; ` +
        `add a marker field the job's contacts share (docs/configuration.md, match.prefetch), or name the other jobs with --job; nothing was done`,
    );
  }
}

/** A job of `mode: message` writes no field: there is nothing to reconcile (exit 2, before anything starts). */
function refuseSenders(jobs: readonly Job[], jobsFile: string): void {
  const senders = jobs.filter((job) => job.mode === 'message').map((job) => job.name);
  if (senders.length > 0) {
    throw new UsageError(`${jobsFile}: job(s) ${senders.join(', ')} have mode: message, which writes no field, so there is nothing to reconcile; name the other jobs with --job; nothing was done`);
  }
}
