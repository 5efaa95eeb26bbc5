/**
 * The engine's loop, the same for every kind of run: before each unit (a row of the input, a
 * contact, a key) the stop policy says whether the run takes it; a unit taken
 * is the kind's to classify (not this run's, ended with no call, or for the API); a unit for the
 * API runs in its key's lane through the dispatcher (`row-dispatcher.ts`: the queue, the
 * backpressure, the draining); each finished unit goes to the kind's reports and tally, and its
 * abort to the policy. A unit the run did not take is counted as not reached; a unit queued when
 * the run aborted is not sent (after a 401 every call would be refused too): the kind reports it
 * so, or counts it not reached. A unit still waiting in the queue when a signal came has made no
 * call: it is not reached either, so a signal ends the run after the units whose calls began. A
 * unit's work that throws (a bug: row work returns its failures) stops the loop; the units in
 * flight finish and the exception leaves once they have.
 */
import type { JobAbortError } from '../job-abort.js';
import type { RowDispatcher } from './row-dispatcher.js';
import type { StopPolicy } from './stop-policy.js';

/** What every finished unit tells the engine: its calls, and the reason the run must stop when it met one. */
export interface UnitDone {
  readonly calls: number;
  readonly abort?: JobAbortError | undefined;
}

/** What becomes of a unit the run took. */
export type UnitIntake<Done extends UnitDone> =
  /** Not this run's at all (another shard's). */
  | { readonly kind: 'not-mine' }
  /** Ended here, with no call. */
  | { readonly kind: 'ended'; readonly done: Done }
  /** For the API, in the lane of `key`; `notSent` is its end when the run aborted before it left (undefined: not reached). */
  | { readonly kind: 'dispatch'; readonly key: string; readonly callsAtMost: number; readonly run: () => Promise<Done>; readonly notSent: (abort: JobAbortError) => Done | undefined };

/** A kind's work on its units. */
export interface UnitWork<Unit, Done extends UnitDone> {
  /** `idle`: no unit is in flight (a unit that needs no call may end now and keep the reports in order). */
  intake(unit: Unit, idle: boolean): UnitIntake<Done>;
  /** A unit the run did not take: whether it is this run's (then it is counted not reached). @default every unit */
  isMine?(unit: Unit): boolean;
  /** The most calls a unit makes, when that is known before it is taken. @default reckoned by the stop policy */
  callsAtMost?(unit: Unit): number;
  /** A finished unit: the kind's report line and tally. */
  finish(done: Done): void;
}

/** Runs every unit through the policy, the kind's intake and the dispatcher; resolves once the last has finished. */
export async function runUnits<Unit, Done extends UnitDone>(
  units: AsyncIterable<Unit> | Iterable<Unit>,
  work: UnitWork<Unit, Done>,
  engine: { readonly policy: StopPolicy; readonly dispatcher: RowDispatcher },
): Promise<{ notReached: number }> {
  const { policy, dispatcher } = engine;
  let notReached = 0;
  let escaped: { error: unknown } | undefined;
  for await (const unit of units) {
    if (escaped !== undefined) break;
    if (!policy.takesNext(dispatcher.inFlight, work.callsAtMost?.(unit))) {
      // Read on to count them: the summary says how much is left (docs/reliability.md).
      if (work.isMine?.(unit) !== false) notReached++;
      continue;
    }
    const intake = work.intake(unit, dispatcher.inFlight === 0);
    if (intake.kind === 'not-mine') continue;
    policy.counted();
    if (intake.kind === 'ended') {
      policy.abortWith(intake.done.abort);
      work.finish(intake.done);
      continue;
    }
    // Backpressure: stop reading while enough units wait for the API.
    await dispatcher.room();
    // A signal or the deadline that came during that wait: this unit is not reached either.
    if (!policy.stillTakes(dispatcher.inFlight, intake.callsAtMost)) {
      notReached++;
      continue;
    }
    const taken = policy.dispatched(intake.callsAtMost);
    dispatcher.dispatch(
      intake.key,
      async () => {
        const { abort } = policy;
        if (abort !== undefined) return intake.notSent(abort);
        // A signal came while it waited in the queue: it has made no call, and is not reached.
        if (policy.interrupted) return undefined;
        try {
          const done = await intake.run();
          // Taken as the unit ends, not in `done`: the queue starts the next unit first.
          policy.abortWith(done.abort);
          return done;
        } catch (error) {
          escaped ??= { error };
          return undefined;
        }
      },
      (done) => {
        policy.finished(taken, done?.calls ?? 0);
        if (done === undefined) {
          if (escaped === undefined) notReached++;
          return;
        }
        policy.abortWith(done.abort);
        work.finish(done);
      },
    );
  }
  await dispatcher.drain();
  if (escaped !== undefined) throw escaped.error;
  return { notReached };
}
