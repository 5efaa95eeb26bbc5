/**
 * The one stop policy of a run, whatever its kind: what stops it taking units (a row of a file,
 * a contact, a key) and how it then ended.
 * Five things stop it, asked in one order before each unit: an abort (the first one is the run's;
 * a later one is a consequence), a signal, `--limit`, `--max-duration` and the error threshold
 * (an abort of its own, judged as units finish). Units in flight always finish.
 *
 * `--max-duration` has one rule for every kind: a unit is taken only while it and those in flight
 * can still finish by the deadline at the limiter's pace (`deadline.ts`, issue 29). Before any unit
 * that called the API has finished, the units in flight are reckoned at the most calls each can
 * make; a unit not read yet at the widest seen so far, and at least the fewest calls such a unit
 * makes on the platform's surface (`unreadUnitCalls`: a read and a write on v1).
 * test/pipeline/run/stop-policy.test.ts is its table.
 */
import type { RunStatus } from '../../state/run-journal.js';
import type { JobAbortError } from '../job-abort.js';
import { pastTakingTime, timeToFinishMs, type FinishEstimate } from './deadline.js';

/** Why a run stopped taking units before the end of its input. */
export type StopReason = 'signal' | 'deadline' | 'limit';

export interface StopPolicyOptions {
  /** Aborting it stops taking units (SIGINT, SIGTERM). @default none */
  readonly signal?: AbortSignal | undefined;
  /** `--limit`: take at most this many units. @default every unit */
  readonly limit?: number | undefined;
  /** `--max-duration`: ms since the epoch, on `now`'s clock, by which the run must be done. @default none */
  readonly deadline?: number | undefined;
  readonly now: () => Date;
  /** The limiter's spacing of contact calls, in ms (period / limit). */
  readonly spacingMs: number;
  /**
   * The fewest calls a unit not read yet makes, before a wider one was seen: the kind's, from the
   * platform's surface (`unreadRowCallsAtLeast`, deadline.ts: a read and a write on v1, one
   * create-or-update where the surface reads and upserts a key directly). @default 1 (a kind
   * whose units' calls are all known before they are read never needs it)
   */
  readonly unreadUnitCalls?: number | undefined;
  /**
   * The error threshold's verdict over the units finished so far; `inputDone`: every unit there
   * will be has finished (error-threshold.ts). @default none
   */
  readonly errorThreshold?: ((inputDone: boolean) => JobAbortError | undefined) | undefined;
  /** Told once when the run stops taking units early for a signal or the deadline: the units in flight and about how long they need. */
  readonly onStopping?: ((info: { reason: 'signal' | 'deadline'; inFlight: number; finishMs: number }) => void) | undefined;
}

/** A unit dispatched to the API, as the deadline's reckoning follows it. */
export interface TakenUnit {
  readonly callsAtMost: number;
  readonly takenAtMs: number;
}

export class StopPolicy {
  #abort: JobAbortError | undefined;
  #stopped: StopReason | undefined;
  #taken = 0;
  // The deadline's reckoning: the calls of the units that went to the API and finished, and the
  // most calls the units in flight can make (before one finished nothing else tells what a unit
  // costs). Units that ended with no call are not in it: none is in flight.
  #finishedCalls = 0;
  #finishedUnits = 0;
  #callsAtMostInFlight = 0;
  #widestUnit = 0;
  #slowestUnitMs = 0;

  constructor(private readonly options: StopPolicyOptions) {}

  /**
   * A policy for a step after the units (verification): the run's signal, deadline, clock and
   * spacing, without its `--limit`, error threshold or its own record of stopping, so that a step
   * the deadline cuts short leaves the rest to the next run without making a run that took all its
   * units a `deadline` run (exit 4). Its abort is for the step to hand back to the run.
   */
  afterUnits(): StopPolicy {
    const { signal, deadline, now, spacingMs } = this.options;
    return new StopPolicy({ signal, deadline, now, spacingMs });
  }

  /** The run's abort: the first one met. */
  get abort(): JobAbortError | undefined {
    return this.#abort;
  }

  /** Why the run stopped taking units early, if it did (an abort is `abort`). */
  get stopped(): StopReason | undefined {
    return this.#stopped;
  }

  /** Whether the run still takes units: no abort, no stop. */
  get taking(): boolean {
    return this.#abort === undefined && this.#stopped === undefined;
  }

  /** A signal (SIGINT, SIGTERM) came: a unit still waiting in the queue, with no call made, is not sent. */
  get interrupted(): boolean {
    return this.options.signal?.aborted === true;
  }

  /**
   * Whether the run took every unit and was not interrupted: a step that needs the whole input
   * (what it lacks) may run.
   */
  get tookAll(): boolean {
    return this.taking && this.options.signal?.aborted !== true;
  }

  /** Keeps the first abort; a later one follows from it. */
  abortWith(abort: JobAbortError | undefined): void {
    this.#abort ??= abort;
  }

  /**
   * Asked before each unit while the run still takes units: whether it takes this one. Once it says
   * no, it says no to every later unit. `inFlight`: units dispatched and not finished;
   * `nextCallsAtMost`: the most calls the next unit makes, when it is known before it is read.
   */
  takesNext(inFlight: number, nextCallsAtMost?: number): boolean {
    if (!this.taking) return false;
    const { signal, limit, deadline, now } = this.options;
    if (signal?.aborted === true) this.#stop('signal', inFlight);
    else if (limit !== undefined && this.#taken >= limit) this.#stop('limit', inFlight);
    else if (deadline !== undefined && pastTakingTime(now().getTime(), deadline, this.#estimate(inFlight, 1, nextCallsAtMost))) this.#stop('deadline', inFlight);
    return this.taking;
  }

  /**
   * Asked again of a unit taken, once its wait for room in the queue is over (the units ahead of
   * it wait for the API: that wait can outlast a signal or the deadline): whether it still goes.
   * A signal or the deadline that came meanwhile leaves it not reached. The limit is not asked
   * again (the unit was counted against it), nor an abort (a unit queued then is not sent, and its
   * kind reports it so).
   */
  stillTakes(inFlight: number, callsAtMost: number): boolean {
    if (this.#abort !== undefined) return true;
    if (this.#stopped !== undefined) return false;
    const { signal, deadline, now } = this.options;
    if (signal?.aborted === true) this.#stop('signal', inFlight);
    else if (deadline !== undefined && pastTakingTime(now().getTime(), deadline, this.#estimate(inFlight, 1, callsAtMost))) this.#stop('deadline', inFlight);
    return this.#stopped === undefined;
  }

  /** A unit of this run was taken (it counts against `--limit`). */
  counted(): void {
    this.#taken++;
  }

  /** A unit goes to the API and may make up to `callsAtMost` calls. */
  dispatched(callsAtMost: number): TakenUnit {
    this.#callsAtMostInFlight += callsAtMost;
    this.#widestUnit = Math.max(this.#widestUnit, callsAtMost);
    return { callsAtMost, takenAtMs: this.options.now().getTime() };
  }

  /** A dispatched unit finished after `calls` calls. */
  finished(unit: TakenUnit, calls: number): void {
    this.#finishedCalls += calls;
    this.#finishedUnits++;
    this.#callsAtMostInFlight -= unit.callsAtMost;
    this.#slowestUnitMs = Math.max(this.#slowestUnitMs, this.options.now().getTime() - unit.takenAtMs);
  }

  /** The error threshold judged on the units finished so far; `inputDone`: every unit there will be is in. */
  judgeErrors(inputDone: boolean): void {
    this.abortWith(this.options.errorThreshold?.(inputDone));
  }

  /** How the run ended (summary.json `status`, the state store's journal). */
  status(): RunStatus {
    return statusOf(this.#abort, this.options.signal, this.#stopped);
  }

  #stop(reason: StopReason, inFlight: number): void {
    this.#stopped = reason;
    if (reason !== 'limit') this.options.onStopping?.({ reason, inFlight, finishMs: timeToFinishMs(this.#estimate(inFlight, 0, undefined)) });
  }

  /** `extra` units about to be taken, reckoned at `nextCallsAtMost` when known, else at the widest seen (at least `unreadUnitCalls`). */
  #estimate(inFlight: number, extra: number, nextCallsAtMost: number | undefined): FinishEstimate {
    return {
      inFlight: inFlight + extra,
      callsPerRow: this.#finishedUnits === 0 ? undefined : this.#finishedCalls / this.#finishedUnits,
      callsAtMost: this.#callsAtMostInFlight + extra * (nextCallsAtMost ?? Math.max(this.options.unreadUnitCalls ?? 1, this.#widestUnit)),
      spacingMs: this.options.spacingMs,
      slowestRowMs: this.#slowestUnitMs,
    };
  }
}

/** How a run ended: an abort before all, then a signal, then the deadline. */
export function statusOf(abort: JobAbortError | undefined, signal: AbortSignal | undefined, stopped: StopReason | undefined): RunStatus {
  if (abort !== undefined) return 'aborted';
  if (signal?.aborted === true) return 'interrupted';
  return stopped === 'deadline' ? 'deadline' : 'completed';
}
