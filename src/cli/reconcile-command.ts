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
import { describeRun } from './run-flags.js';
import { runSession, type SessionFlags } from './run-session.js';
import { formatReconcile } from './summary-table.js';
import { UsageError } from './usage-error.js';

export interface ReconcileFlags extends SessionFlags, RowFlags {
  /** `--log-format`: with json, progress is a JSON log event too. */
  readonly logFormat?: LogFormat;
}

export async function reconcileCommand(flags: ReconcileFlags, io: CliIo, logger: Logger): Promise<number> {
  const argv = describeRun('reconcile', flags.jobsFile, [
    flags.limit !== undefined && `--limit ${flags.limit}`,
    flags.emulator === true && '--emulator',
    flags.maxDuration !== undefined && `--max-duration ${formatDuration(flags.maxDuration)}`,
    flags.input !== undefined && `--input ${flags.input}`,
  ]);
  const refuse = (jobs: readonly Job[]): void => refuseSenders(jobs, flags.jobsFile);
  return runSession({ ...flags, argv, readsInput: true, refuse }, io, logger, async (scope) => {
    const { job } = scope;
    const run = await runRowsJob(
      scope,
      {
        ...flags,
        announce: () => logger.info({ job: job.name, input: job.input.label ?? job.input.path, dryRun: false, reconcile: true }, 'reconcile started'),
      },
      runReconcile,
    );
    const { reconcile } = run;
    io.stdout.write(formatReconcile(reconcile, run.reportFiles));
    logRowsEnd(scope, run);
    logger.info({ job: job.name, keys: reconcile.keys, apiCalls: reconcile.apiCalls.total, exitCode: run.exitCode }, 'reconcile finished');
    return { exitCode: run.exitCode };
  });
}

/** A job of `mode: message` writes no field: there is nothing to reconcile (exit 2, before anything starts). */
function refuseSenders(jobs: readonly Job[], jobsFile: string): void {
  const senders = jobs.filter((job) => job.mode === 'message').map((job) => job.name);
  if (senders.length > 0) {
    throw new UsageError(`${jobsFile}: job(s) ${senders.join(', ')} have mode: message, which writes no field, so there is nothing to reconcile; name the other jobs with --job; nothing was done`);
  }
}
