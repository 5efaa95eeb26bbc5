/**
 * Bench baseline only: the limiter the product had before issue 14, kept to measure the slots
 * against. It spaced request starts by (window + a margin of 2% of the window, at least 100 ms)
 * / limit, through Bottleneck's `minTime` and, in one process, this real-time spacing on top.
 *
 * Keeps the request starts of one limiter at least `minTime` apart in real time. Bottleneck
 * spaces jobs from their planned start times: when the event loop stalls, a late job and the one
 * planned after it leave almost together, and a strict sliding window at the server counts one
 * call too many. Reserving each start against the previous actual start turns a stall into a
 * delay, never into a burst.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type Bottleneck from 'bottleneck';

export class StartSpacing {
  #last = Number.NEGATIVE_INFINITY;

  constructor(
    /** Milliseconds between two starts. */
    public minTime: number,
    private readonly now: () => number = () => performance.now(),
    private readonly sleep: (ms: number) => Promise<unknown> = (ms) => delay(ms),
  ) {}

  /** Resolves at this request's start: no sooner than `minTime` after the previous one. */
  async reserve(): Promise<void> {
    const now = this.now();
    // Reserved synchronously, so two jobs released together get two slots, not one.
    const slot = Math.max(now, this.#last + this.minTime);
    this.#last = slot;
    if (slot > now) await this.sleep(slot - now);
  }
}

const spacings = new WeakMap<Bottleneck, StartSpacing>();

/** Attaches the spacing of a limiter (the registry does, when it creates one). */
export function attachStartSpacing(limiter: Bottleneck, minTime: number): StartSpacing {
  const spacing = new StartSpacing(minTime);
  spacings.set(limiter, spacing);
  return spacing;
}

/** The spacing of a limiter the registry made; undefined for any other Bottleneck. */
export function startSpacingOf(limiter: Bottleneck): StartSpacing | undefined {
  return spacings.get(limiter);
}

/** The old spacing of request starts for a rate, in milliseconds. */
export function oldMinTimeFor(rate: { limit: number; periodMs: number }): number {
  return (rate.periodMs + Math.max(rate.periodMs * 0.02, 100)) / rate.limit;
}
