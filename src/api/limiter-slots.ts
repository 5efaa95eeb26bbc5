/**
 * The slots of a limiter: a call occupies one of the limit's N `maxConcurrent` slots of its
 * Bottleneck from its start until one window after its response (or failure). The caller gets
 * the response at once; only the slot stays taken. A server can only have received a call before
 * it answered it, so call k, which starts only when the slot of some earlier call was freed one
 * window after that call's answer, can never share a window at the server with N earlier calls,
 * whatever the network delays. Why this holds and what it costs: docs/decisions.md ("A limiter
 * the network cannot push over the window").
 *
 * Calls are also spaced, so that a run does not open with a burst of N: each takes its turn
 * (`turn`) before it asks for a slot, never while it holds one. A slot that comes back is taken
 * at once by a call that waited for it; the spacing only delays calls that find a slot free.
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import Bottleneck from 'bottleneck';
import type { Rate } from '../limits.js';

/**
 * The spacing of calls for a rate once a process's first window is spaced (see `rampUntil`), in
 * milliseconds: 3/4 of window / limit, rounded down to a whole millisecond.
 * A call takes its turn before it asks for a slot, never while it holds one (`LimiterSlots.turn`):
 * the spacing only spreads calls that find slots free (no burst of N after a lull), and a slot
 * that comes back goes at once to a call that waited for it. The limit itself is kept by the
 * slots. The quarter of slack lets turns run ahead of the slots, so that calls are waiting when
 * slots come back (as unevenly as the answers came). See docs/decisions.md ("A limiter the
 * network cannot push over the window").
 */
export function paceFor(rate: Rate): number {
  return Math.floor((rate.periodMs / rate.limit) * PACE_FRACTION);
}

/** The part of window / limit that calls are spaced by (see `paceFor`). */
export const PACE_FRACTION = 0.75;

/** Added to the Redis expiry of a held slot, for Redis's and this process's clocks and timers. */
const EXPIRY_MARGIN_MS = 1_000;

interface Hold {
  release: () => void;
  timer: AbortController;
}

/** A call waiting for its turn. */
interface Turn {
  fail: (error: Error) => void;
  timer: AbortController;
}

/** What Bottleneck says to the jobs it drops when it stops; a call dropped before its turn reads the same. */
const STOPPED_MESSAGE = 'This limiter has been stopped.';

/**
 * Resolves at `deadline` on the clock `now`. Timers may fire a millisecond early (they count from
 * a truncated loop time): the deadline is checked, and waited again while not reached. Bounded:
 * each round waits what is left, and a round ends at most a millisecond early. Rejects when
 * `signal` aborts.
 */
async function sleepUntil(deadline: number, now: () => number, signal: AbortSignal): Promise<void> {
  for (let round = 0; round < 100; round += 1) {
    const left = deadline - now();
    if (left <= 0) return;
    await delay(Math.ceil(left), undefined, { signal });
  }
}

export class LimiterSlots {
  #requestsInFlight = 0;
  readonly #holds = new Set<Hold>();
  readonly #onRequestEnded = new Set<() => void>();

  constructor(
    /** How long a slot stays taken after the response: the window, in milliseconds. */
    public holdMs: number,
    /** The spacing of turns once the first ones are taken (see `rampUntil`), in milliseconds (0: none). */
    public paceMs: number,
    /** Shared through Redis: a slot of a process that dies is freed by its Redis expiry. */
    readonly clustered: boolean,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /**
   * The Redis expiry of one job, counted from its registration: a window for its start (a call is
   * registered when it has a slot, after its turn, and starts then; a window is left for a spacing
   * an older version may have stored in Redis), the request's own bound, then the hold. A slot of
   * a process that died is freed then, never before the server can have seen that call's window.
   */
  expiryFor(requestTimeoutMs: number): number {
    return Math.ceil(this.holdMs + requestTimeoutMs + this.holdMs + EXPIRY_MARGIN_MS);
  }

  get requestsInFlight(): number {
    return this.#requestsInFlight;
  }

  /** Turns left at `rampMs` before the spacing loosens to `paceMs` (see `rampUntil`). */
  #rampLeft = 0;
  /** The spacing of a process's first turns, in milliseconds (see `rampUntil`). */
  rampMs = 0;
  /** When the last turn given was (or will be), on `now`'s clock. */
  #lastTurn = Number.NEGATIVE_INFINITY;
  readonly #turns = new Set<Turn>();
  /** Set once the turns are closed: every later turn is refused with it. */
  #closed: Error | undefined;

  /**
   * Spaces the next `turns` turns by `spacingMs`, then by `paceMs`: the registry spaces a
   * process's first window at exactly window / limit, then loosens the spacing (see `paceFor`).
   */
  rampUntil(turns: number, spacingMs: number): void {
    this.#rampLeft = turns;
    this.rampMs = spacingMs;
  }

  /**
   * Resolves when this call may ask for a slot: one spacing after the previous call's turn (the
   * turn is reserved at once, so calls get theirs in order). It is waited before the call takes a
   * slot, never while it holds one: a call that then waits for a slot starts the moment one comes
   * back, and the spacing never adds to a slot's time taken. Calls find slots free only when the
   * slots are not the bound (a run's first window, or after a lull), and there starts are spaced
   * as their turns are. Rejects once the turns are closed (`closeTurns`).
   */
  turn(): Promise<void> {
    if (this.#closed !== undefined) return Promise.reject(this.#closed);
    const spacing = this.#rampLeft > 0 ? this.rampMs : this.paceMs;
    if (this.#rampLeft > 0) this.#rampLeft -= 1;
    const now = this.now();
    const at = Math.max(now, this.#lastTurn + spacing);
    this.#lastTurn = at;
    if (at <= now) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const turn: Turn = { fail: reject, timer: new AbortController() };
      this.#turns.add(turn);
      sleepUntil(at, this.now, turn.timer.signal).then(
        () => {
          this.#turns.delete(turn);
          resolve();
        },
        () => this.#turns.delete(turn),
      );
    });
  }

  /** Calls waiting for their turn, not yet at the limiter. */
  get waitingForTurn(): number {
    return this.#turns.size;
  }

  /**
   * Refuses every call waiting for its turn and every later one, with `error` (by default the
   * error Bottleneck gives the jobs it drops when it stops): the limiter stops.
   */
  closeTurns(error: Error = new Bottleneck.BottleneckError(STOPPED_MESSAGE)): void {
    this.#closed ??= error;
    for (const turn of [...this.#turns]) {
      this.#turns.delete(turn);
      turn.timer.abort();
      turn.fail(this.#closed);
    }
  }

  requestStarted(): void {
    this.#requestsInFlight += 1;
  }

  requestEnded(): void {
    this.#requestsInFlight -= 1;
    for (const listener of [...this.#onRequestEnded]) listener();
  }

  /** Calls `listener` after each request ends; returns the function that removes it. */
  onRequestEnded(listener: () => void): () => void {
    this.#onRequestEnded.add(listener);
    return () => {
      this.#onRequestEnded.delete(listener);
    };
  }

  /**
   * Resolves `holdMs` after now on this process's monotonic clock (checked after each timer, see
   * `sleepUntil`). The timers keep the process alive: a call waiting for a slot has nothing else
   * to wake it (Node ends a process whose pending await has no timer left, with code 13).
   * `LimiterRegistry.stop()` frees or abandons them. `holdMs` other than the window: a slot taken
   * for calls the server counted that this process did not make (v2's learnt limits).
   */
  hold(holdMs: number = this.holdMs): Promise<void> {
    const deadline = this.now() + holdMs;
    return new Promise<void>((resolve) => {
      const hold: Hold = { release: () => undefined, timer: new AbortController() };
      hold.release = () => {
        this.#holds.delete(hold);
        hold.timer.abort();
        resolve();
      };
      this.#holds.add(hold);
      sleepUntil(deadline, this.now, hold.timer.signal).then(
        () => hold.release(),
        () => undefined,
      );
    });
  }

  /** Frees every held slot now: this process stops, and the limiter is not shared. */
  releaseAll(): void {
    for (const hold of [...this.#holds]) hold.release();
  }

  /**
   * Stops the timers of the held slots without freeing them: a limiter shared through Redis
   * leaves them taken until their Redis expiry, so the other processes cannot start calls the
   * server would count in this process's last window.
   */
  abandonAll(): void {
    for (const hold of [...this.#holds]) {
      this.#holds.delete(hold);
      hold.timer.abort();
    }
  }

  get held(): number {
    return this.#holds.size;
  }
}

const slotsOfLimiter = new WeakMap<Bottleneck, LimiterSlots>();

/** Attaches the slots of a limiter (the registry does, when it creates one). */
export function attachSlots(limiter: Bottleneck, slots: LimiterSlots): LimiterSlots {
  slotsOfLimiter.set(limiter, slots);
  return slots;
}

/** The slots of a limiter the registry made; undefined for any other Bottleneck. */
export function slotsOf(limiter: Bottleneck): LimiterSlots | undefined {
  return slotsOfLimiter.get(limiter);
}

/**
 * Runs `attempt` in a slot of `limiter`, after its turn (`LimiterSlots.turn`), and settles with
 * its outcome as soon as it has one; the slot stays taken one window more. A limiter the registry
 * did not make (tests) just schedules. Rejects with the limiter's own error when the attempt
 * never started (check `started`).
 */
export function runInSlot<T>(limiter: Bottleneck, attempt: () => Promise<T>, requestTimeoutMs: number): Promise<T> {
  const slots = slotsOf(limiter);
  if (slots === undefined) return limiter.schedule(attempt);
  return new Promise<T>((resolve, reject) => {
    let started = false;
    const options: Bottleneck.JobOptions = slots.clustered ? { expiration: slots.expiryFor(requestTimeoutMs) } : {};
    slots
      .turn()
      .then(() =>
        limiter.schedule(options, async () => {
          started = true;
          slots.requestStarted();
          try {
            resolve(await attempt());
          } catch (error) {
            // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the attempt's own error, passed on as it is
            reject(error);
          } finally {
            slots.requestEnded();
          }
          await slots.hold();
        }),
      )
      .catch((error: unknown) => {
        // After the start the outcome was given; a later failure is the hold's (a stop).
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the limiter's own error (or the closed turns'), for limiterFailure
        if (!started) reject(error);
      });
  });
}
