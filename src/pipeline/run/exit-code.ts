/**
 * The exit code of a run of any kind: the engine's one rule, from how the run ended and whether
 * what it finished needs a person's look (each kind says what does).
 */
import { EXIT } from '../../exit-codes.js';
import type { RunStatus } from '../../state/run-journal.js';

/** The exit codes a run of one job ends with. */
export type RunExitCode = (typeof EXIT)['ok' | 'rowsFailed' | 'aborted' | 'deadline' | 'sigint' | 'sigterm'];

/** The exit code of a run: aborted, interrupted (by which signal), stopped at the deadline, or done (needing a look or not). */
export function exitCodeOf(status: RunStatus, signal: AbortSignal | undefined, needsLook: boolean): RunExitCode {
  if (status === 'aborted') return EXIT.aborted;
  if (status === 'interrupted') return signal?.reason === 'SIGTERM' ? EXIT.sigterm : EXIT.sigint;
  if (status === 'deadline') return EXIT.deadline;
  return needsLook ? EXIT.rowsFailed : EXIT.ok;
}
