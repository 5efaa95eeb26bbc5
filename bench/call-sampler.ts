/**
 * Samples a call counter of the emulator over time (the server's view is the truth), to measure
 * the rate achieved over the steady part of a run: from the 10% to the 90% of its calls, which
 * leaves out process start-up, the prefetch ramp and the tail of the last rows in flight.
 */
import { performance } from 'node:perf_hooks';

export interface CallSample {
  /** ms, `performance.now()`. */
  at: number;
  calls: number;
}

export class CallSampler {
  readonly #read: () => number;
  readonly #intervalMs: number;
  readonly #samples: CallSample[] = [];
  #timer: NodeJS.Timeout | undefined;

  /** @param intervalMs between two samples. @default 50 */
  constructor(read: () => number, intervalMs = 50) {
    this.#read = read;
    this.#intervalMs = intervalMs;
  }

  start(): void {
    this.#take();
    this.#timer = setInterval(() => this.#take(), this.#intervalMs);
  }

  stop(): CallSample[] {
    clearInterval(this.#timer);
    this.#take();
    return [...this.#samples];
  }

  #take(): void {
    this.#samples.push({ at: performance.now(), calls: this.#read() });
  }
}

/** Fewer calls than this in the steady part and the rate is not reported: too few to tell. */
export const MIN_STEADY_CALLS = 100;

/**
 * Calls a minute between the moments the counter crossed `from` and `to` of its final value
 * (interpolated between samples); undefined when the run made too few calls to tell.
 */
export function steadyRatePerMinute(samples: readonly CallSample[], from = 0.1, to = 0.9): number | undefined {
  const total = samples.at(-1)?.calls ?? 0;
  const low = total * from;
  const high = total * to;
  if (high - low < MIN_STEADY_CALLS) return undefined;
  const start = crossing(samples, low);
  const end = crossing(samples, high);
  if (start === undefined || end === undefined || end <= start) return undefined;
  return ((high - low) / (end - start)) * 60_000;
}

function crossing(samples: readonly CallSample[], calls: number): number | undefined {
  for (let i = 1; i < samples.length; i++) {
    const before = samples[i - 1]!;
    const after = samples[i]!;
    if (after.calls >= calls && before.calls < calls) {
      return before.at + ((calls - before.calls) / (after.calls - before.calls)) * (after.at - before.at);
    }
  }
  return undefined;
}
