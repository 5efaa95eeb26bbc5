/** Requests a channel received, per operation: what benchmarks and tests count instead of time. */
import { API_OPERATIONS } from '../api/wire-types.js';
import type { ApiOperation } from '../api/wire-types.js';

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
}

export class CallCounterSet {
  private counters = emptyCounters();

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
  }
}

function emptyCounters(): CallCounters {
  const byOperation = Object.fromEntries(
    API_OPERATIONS.map((operation) => [operation, { received: 0, rateLimited: 0, faulted: 0 }]),
  ) as Record<ApiOperation, OperationCounter>;
  return { byOperation, total: { received: 0, rateLimited: 0, faulted: 0 } };
}
