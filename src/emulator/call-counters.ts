/** Requests a channel received, per operation: what benchmarks and tests count instead of time. */
import { API_OPERATIONS } from '../api/wire-types.js';
import type { ApiOperation } from '../api/wire-types.js';
import type { ApiGroup } from '../limits.js';
import { WindowPeak } from './sliding-window.js';

export interface OperationCounter {
  /** Authenticated requests received, including those answered 429 or faulted. */
  received: number;
  /** Requests answered 429, by the rate limit or by an injected `rateLimited` fault. */
  rateLimited: number;
  /** Requests that met an injected fault (500, 429, dropped, reset, committed then dropped). */
  faulted: number;
}

export interface CallCounters {
  byOperation: Record<ApiOperation, OperationCounter>;
  total: OperationCounter;
  /**
   * The most requests that reached the rate check in any one window of the group's rate
   * (answered 429 or not), where the channel has that limit; 0 otherwise. Over the limit, the
   * server saw one call too many.
   */
  mostInAnyWindow: Record<ApiGroup, number>;
}

export class CallCounterSet {
  private counters = emptyCounters();
  private readonly peaks: Record<ApiGroup, WindowPeak | undefined>;

  /** `periodsMs`: the window of each group's rate, for `mostInAnyWindow`. */
  constructor(periodsMs: Partial<Record<ApiGroup, number>> = {}) {
    this.peaks = {
      contacts: periodsMs.contacts === undefined ? undefined : new WindowPeak(periodsMs.contacts),
      messages: periodsMs.messages === undefined ? undefined : new WindowPeak(periodsMs.messages),
    };
  }

  /** A request reached the rate check of its group at `arrivalMs` (emulator clock). */
  arrived(group: ApiGroup, arrivalMs: number): void {
    const peak = this.peaks[group];
    if (peak === undefined) return;
    this.counters.mostInAnyWindow[group] = Math.max(this.counters.mostInAnyWindow[group], peak.add(arrivalMs));
  }

  received(operation: ApiOperation): void {
    this.counters.byOperation[operation].received += 1;
    this.counters.total.received += 1;
  }

  rateLimited(operation: ApiOperation): void {
    this.counters.byOperation[operation].rateLimited += 1;
    this.counters.total.rateLimited += 1;
  }

  faulted(operation: ApiOperation): void {
    this.counters.byOperation[operation].faulted += 1;
    this.counters.total.faulted += 1;
  }

  snapshot(): CallCounters {
    return structuredClone(this.counters);
  }

  reset(): void {
    this.counters = emptyCounters();
    this.peaks.contacts?.clear();
    this.peaks.messages?.clear();
  }
}

function emptyCounters(): CallCounters {
  const byOperation = Object.fromEntries(
    API_OPERATIONS.map((operation) => [operation, { received: 0, rateLimited: 0, faulted: 0 }]),
  ) as Record<ApiOperation, OperationCounter>;
  return { byOperation, total: { received: 0, rateLimited: 0, faulted: 0 }, mostInAnyWindow: { contacts: 0, messages: 0 } };
}
