/**
 * A strict sliding window: at most `limit` accepted arrivals in any window of `periodMs`.
 * Refused arrivals are not recorded, so a client that keeps knocking is not punished for it.
 * The last `limit` accepted arrival times live in a ring buffer: O(1) amortised per request.
 */
import type { Rate } from '../limits.js';

export type Admission = { accepted: true } | { accepted: false; /** Milliseconds until a slot frees. */ retryAfterMs: number };

export class SlidingWindow {
  private readonly arrivals: number[];
  private head = 0;
  private size = 0;

  constructor(private readonly rate: Rate) {
    this.arrivals = new Array<number>(rate.limit).fill(0);
  }

  get limit(): number {
    return this.rate.limit;
  }

  tryAdmit(arrivalMs: number): Admission {
    const { limit, periodMs } = this.rate;
    this.leave(arrivalMs);
    if (this.size < limit) {
      this.arrivals[(this.head + this.size) % limit] = arrivalMs;
      this.size += 1;
      return { accepted: true };
    }
    return { accepted: false, retryAfterMs: this.oldest() + periodMs - arrivalMs };
  }

  /** Admissions left at `arrivalMs` (what v2's `X-RateLimit-Remaining` says), admitting nothing. */
  remaining(arrivalMs: number): number {
    this.leave(arrivalMs);
    return this.rate.limit - this.size;
  }

  clear(): void {
    this.head = 0;
    this.size = 0;
  }

  /** Drops the arrivals that have left the window ending at `arrivalMs`. */
  private leave(arrivalMs: number): void {
    const { limit, periodMs } = this.rate;
    while (this.size > 0 && arrivalMs - this.oldest() >= periodMs) {
      this.head = (this.head + 1) % limit;
      this.size -= 1;
    }
  }

  private oldest(): number {
    return this.arrivals[this.head] ?? 0;
  }
}

/**
 * Arrivals in the last window, to find the most in any window of `periodMs` (arrivals at t and
 * t + periodMs are not in one window, as for `SlidingWindow`). Holds one window of arrivals.
 */
export class WindowPeak {
  private readonly times: number[] = [];
  private head = 0;

  constructor(private readonly periodMs: number) {}

  /** Records an arrival; returns how many arrivals the window ending at it holds. */
  add(arrivalMs: number): number {
    this.times.push(arrivalMs);
    while (arrivalMs - (this.times[this.head] ?? arrivalMs) >= this.periodMs) this.head += 1;
    if (this.head > 1_024 && this.head * 2 > this.times.length) {
      this.times.splice(0, this.head);
      this.head = 0;
    }
    return this.times.length - this.head;
  }

  clear(): void {
    this.times.length = 0;
    this.head = 0;
  }
}

/** `Retry-After` in whole seconds: rounded up, at least 1. */
export function retryAfterSeconds(retryAfterMs: number): number {
  return Math.max(1, Math.ceil(retryAfterMs / 1000));
}
