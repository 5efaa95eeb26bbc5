/**
 * `contact-sync undo <jobs.yaml> --job NAME --run RUN_ID`: a run session (`run-session.ts`: the
 * same lock, limiters, signals, `--max-duration` and report folder as a run) whose one job puts
 * back what a run changed (`undo-job.ts`, docs/undo.md). It reads the change journal, never the
 * job's input.
 */
import type { Logger } from 'pino';
import type { Job } from '../config/job-types.js';
import { formatDuration } from '../pipeline/report/duration.js';
import type { CliIo } from './cli-io.js';
import { describeRun } from './run-flags.js';
import { runSession } from './run-session.js';
import { refuseWithoutState, undoJob, type UndoArgs } from './undo-job.js';
import { counted } from '../pipeline/report/counted.js';

export interface UndoFlags extends UndoArgs {
  /** `--job`: the one job whose run is undone. */
  readonly job: string;
  readonly reportDir?: string | undefined;
  /** `--max-duration`, in ms: stop taking contacts in time; running undo again goes on (exit 4). */
  readonly maxDuration?: number | undefined;
}

export async function undoCommand(flags: UndoFlags, io: CliIo, logger: Logger): Promise<number> {
  const argv = describeRun('undo', flags.jobsFile, [
    flags.dryRun && '--dry-run',
    flags.maxDuration !== undefined && `--max-duration ${formatDuration(flags.maxDuration)}`,
    `--run ${flags.runId}${flags.force ? ' --force' : ''}${flags.keys === undefined ? '' : ` --key (${counted(flags.keys.length, 'key')})`}${flags.keepCreated === true ? ' --keep-created' : ''}${flags.deleteCreated === true ? ' --delete-created' : ''}`,
  ]);
  // A job without a state store is refused before its locks are taken: nothing is left behind.
  const refuse = (jobs: readonly Job[]): void => refuseWithoutState(jobs, flags.jobsFile);
  const session = { jobsFile: flags.jobsFile, job: [flags.job], reportDir: flags.reportDir, maxDuration: flags.maxDuration, argv, readsInput: false, refuse };
  return runSession(session, io, logger, async (scope) => ({ exitCode: await undoJob(scope, flags) }));
}
