/**
 * The slots of a limiter: a call occupies one of the limit's N `maxConcurrent` slots of its
 * Bottleneck from its start until one window after its response (or failure). The caller gets
 * the response at once; only the slot stays taken. A server can only have received a call before
 * it answered it, so call k, which starts only when the slot of some earlier call was freed one
 * window after that call's answer, can never share a window at the server with N earlier calls,
 * whatever the network delays. Why this holds and what it costs: docs/decisions.md ("A limiter
 * the network cannot push over the window").
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import type Bottleneck from 'bottleneck';

/** Added to the Redis expiry of a held slot, for Redis's and this process's clocks and timers. */
const EXPIRY_MARGIN_MS = 1_000;

interface Hold {
  release: () => void;
  timer: AbortController;
}

export class LimiterSlots {
  #requestsInFlight = 0;
  readonly #holds = new Set<Hold>();
  readonly #onRequestEnded = new Set<() => void>();

  constructor(
    /** How long a slot stays taken after the response: the window, in milliseconds. */
    public holdMs: number,
    /** Bottleneck's spacing of starts, in milliseconds (0: none). */
    public paceMs: number,
    /** Shared through Redis: a slot of a process that dies is freed by its Redis expiry. */
    readonly clustered: boolean,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /**
   * The Redis expiry of one job, counted from its registration: the longest wait for its start
   * (at most N spacings, less than a window), the request's own bound, then the hold. A slot of a
   * process that died is freed then, never before the server can have seen that call's window.
   */
  expiryFor(requestTimeoutMs: number): number {
    return Math.ceil(this.holdMs + requestTimeoutMs + this.holdMs + EXPIRY_MARGIN_MS);
  }

  get requestsInFlight(): number {
    return this.#requestsInFlight;
  }

  /** Starts left before `onRamped` is called (see `rampUntil`). */
  #rampLeft = 0;
  #onRamped: (() => void) | undefined;

  /**
   * Calls `onRamped` once after `starts` more calls started: the registry spaces a process's
   * first window at exactly window / limit, then loosens the spacing (see `paceFor`).
   */
  rampUntil(starts: number, onRamped: () => void): void {
    this.#rampLeft = starts;
    this.#onRamped = onRamped;
  }

  /** True once the first window's starts are made (or no ramp was asked). */
  get ramped(): boolean {
    return this.#onRamped === undefined;
  }

  requestStarted(): void {
    this.#requestsInFlight += 1;
    if (this.#onRamped !== undefined && --this.#rampLeft <= 0) {
      const onRamped = this.#onRamped;
      this.#onRamped = undefined;
      onRamped();
    }
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
   * Resolves `holdMs` after now on this process's monotonic clock. Timers may fire a millisecond
   * early (they count from a truncated loop time): the deadline is checked, and waited again
   * while not reached. The timers keep the process alive: a call waiting for a slot has nothing
   * else to wake it (Node ends a process whose pending await has no timer left, with code 13).
   * `LimiterRegistry.stop()` frees or abandons them.
   */
  hold(): Promise<void> {
    const deadline = this.now() + this.holdMs;
    return new Promise<void>((resolve) => {
      const hold: Hold = { release: () => undefined, timer: new AbortController() };
      hold.release = () => {
        this.#holds.delete(hold);
        hold.timer.abort();
        resolve();
      };
      this.#holds.add(hold);
      const wait = async (): Promise<void> => {
        // Bounded: each round waits what is left, and a round ends at most a millisecond early.
        for (let round = 0; round < 100; round += 1) {
          const left = deadline - this.now();
          if (left <= 0) break;
          await delay(Math.ceil(left), undefined, { signal: hold.timer.signal });
        }
        hold.release();
      };
      wait().catch(() => undefined);
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
 * Runs `attempt` in a slot of `limiter` and settles with its outcome as soon as it has one; the
 * slot stays taken one window more. A limiter the registry did not make (tests) just schedules.
 * Rejects with the limiter's own error when the attempt never started (check `started`).
 */
export function runInSlot<T>(limiter: Bottleneck, attempt: () => Promise<T>, requestTimeoutMs: number): Promise<T> {
  const slots = slotsOf(limiter);
  if (slots === undefined) return limiter.schedule(attempt);
  return new Promise<T>((resolve, reject) => {
    let started = false;
    const options: Bottleneck.JobOptions = slots.clustered ? { expiration: slots.expiryFor(requestTimeoutMs) } : {};
    limiter
      .schedule(options, async () => {
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
      })
      .catch((error: unknown) => {
        // After the start the outcome was given; a later failure is the hold's (a stop).
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the limiter's own error, for limiterFailure
        if (!started) reject(error);
      });
  });
}
