/**
 * A run's two lines in the state store's journal of runs (`state/run-journal.ts`), for every kind
 * of run: its start, which gives the id its writes are journalled under, and its end, with its
 * counts, status and exit code. A store that cannot take either is the run's abort (with complete
 * reports, exit 3), never an exception that escapes past them (docs/decisions.md, "One run engine").
 */
import type { Job } from '../../config/job-types.js';
import type { RunJournalStore } from '../../state/state-port.js';
import type { RunFinish, RunStart } from '../../state/run-journal.js';
import { abortReason } from '../abort-reason.js';
import { JobAbortError } from '../job-abort.js';

/** The part of the state store a run's journal lines use: the journal of runs, and the input's header kept with it. */

const WHERE = 'when the run was journalled';

/**
 * Journals the run's start: its id, or the abort that stops it before it took anything. `header`:
 * the input's header, kept for the next run to name a column renamed upstream (header-check.ts).
 */
export function startJournal(state: RunJournalStore, start: RunStart, job: Job, header?: readonly string[]): { readonly runId?: number; readonly abort?: JobAbortError } {
  let runId: number | undefined;
  try {
    runId = state.startRun(start);
    if (header !== undefined) state.recordHeader(header);
    return { runId };
  } catch (error) {
    return { ...(runId === undefined ? {} : { runId }), abort: journalAbort(error, job) };
  }
}

/** Journals the run's end; a store that cannot take it is the run's abort. */
export function finishJournal(state: RunJournalStore, runId: number, finish: RunFinish, job: Job): JobAbortError | undefined {
  try {
    state.finishRun(runId, finish);
    return undefined;
  } catch (error) {
    return journalAbort(error, job);
  }
}

function journalAbort(error: unknown, job: Job): JobAbortError {
  // The store throws no API error: abortReason names any failure (a bug included) as the job's.
  return abortReason(error, job, WHERE) ?? new JobAbortError('UNEXPECTED', `an unexpected error stopped the job ${WHERE}; please report it`, { cause: error });
}
