/**
 * The run engine: one life for every kind of run (docs/architecture.md, "One run engine", lists
 * them). What the kinds share is here, in this order:
 * 1. the units (a row of a file, a contact, a key) through the one loop (`unit-loop.ts`:
 *    the stop policy before each, the kind's intake, the dispatcher's lanes, queue and
 *    backpressure, the kind's report line and tally as each finishes), drained;
 * 2. the error threshold judged on the whole, then the kind's step after the units when the run
 *    took them all (`StopPolicy.tookAll`);
 * 3. whatever happened: the kind's unit reports closed, how the run ended (`StopPolicy.status`),
 *    its line in the journal of runs (`run-journal-lines.ts`), the kind's summary written, and the
 *    one exit code (`exitCodeOf`). A failure to close, journal or write a summary is the run's
 *    abort; an exception (a bug) still leaves the reports complete before it escapes.
 * Where the kinds differ is the `RunKind` each brings; the engine asks none what it is.
 */
import type { Job } from '../../config/job-types.js';
import type { RunRowCounts, RunStatus } from '../../state/run-journal.js';
import type { JobAbortError } from '../job-abort.js';
import type { RowDispatcher } from './row-dispatcher.js';
import { exitCodeOf, type RunExitCode } from './exit-code.js';
import { finishJournal } from './run-journal-lines.js';
import type { RunJournalStore } from '../../state/state-port.js';
import type { StopPolicy } from './stop-policy.js';
import { runUnits, type UnitDone, type UnitWork } from './unit-loop.js';

/** How a run ended, as a kind's summary says it. */
export interface RunEnd {
  readonly status: RunStatus;
  readonly abort: JobAbortError | undefined;
  /** Units of this run it did not take. */
  readonly notReached: number;
}

/** What a kind of run brings: its units and their work, its step after them, its reports and its summary. */
export interface RunKind<Unit, Done extends UnitDone, Summary> {
  readonly units: AsyncIterable<Unit> | Iterable<Unit>;
  readonly work: UnitWork<Unit, Done>;
  /** Once the last unit finished: the abort the units' source met, if it broke on the way (an input unreadable mid-file). */
  unitsEnded?(): JobAbortError | undefined;
  /** The step that needs every unit (what the input lacks is known only once all of it was read); runs only when the run took them all. */
  afterUnits?(): Promise<JobAbortError | undefined>;
  /** Closes the units' report files; a failure is the run's abort. */
  closeUnits(): JobAbortError | undefined;
  /** The counts of the run's line in the journal of runs; `notReached`: the units it did not take. */
  journalRows(notReached: number): RunRowCounts;
  /** Whether what the run finished needs a person's look (exit 1): a unit failed, or left something a person must see. */
  needsLook(): boolean;
  /** The kind's summary of the run, written; `abort` when it could not be (the summary then says so). */
  summarize(end: RunEnd): { readonly summary: Summary; readonly abort?: JobAbortError };
}

export interface RunEngine {
  readonly policy: StopPolicy;
  readonly dispatcher: RowDispatcher;
  readonly signal?: AbortSignal | undefined;
  /** The run's id in the journal of runs (`startJournal`), when it has one. */
  readonly journal?: { readonly state: RunJournalStore; readonly runId: number; readonly job: Job } | undefined;
}

export interface EngineRun<Summary> {
  readonly summary: Summary;
  readonly status: RunStatus;
  readonly exitCode: RunExitCode;
}

export async function runEngine<Unit, Done extends UnitDone, Summary>(kind: RunKind<Unit, Done, Summary>, engine: RunEngine): Promise<EngineRun<Summary>> {
  const { policy, journal } = engine;
  let notReached = 0;
  let ended: { summary: Summary; status: RunStatus } | undefined;
  try {
    ({ notReached } = await runUnits(kind.units, kind.work, engine));
    policy.abortWith(kind.unitsEnded?.());
    policy.judgeErrors(true);
    if (policy.tookAll) policy.abortWith(await kind.afterUnits?.());
  } finally {
    policy.abortWith(kind.closeUnits());
    const status = policy.status();
    if (journal !== undefined) {
      policy.abortWith(finishJournal(journal.state, journal.runId, { rows: kind.journalRows(notReached), exitCode: exitCodeOf(status, engine.signal, kind.needsLook()), status }, journal.job));
    }
    const written = kind.summarize({ status: policy.status(), abort: policy.abort, notReached });
    policy.abortWith(written.abort);
    ended = { summary: written.summary, status: written.abort === undefined ? policy.status() : 'aborted' };
  }
  return { ...ended, exitCode: exitCodeOf(ended.status, engine.signal, kind.needsLook()) };
}
