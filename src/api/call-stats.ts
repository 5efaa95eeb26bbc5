/**
 * Counts of HTTP requests per operation. One instance per job run, passed to every client of the
 * run, so the summary counts every call whichever client made it.
 */
import type { CallStats, OperationCount } from './contacts-api.js';
import { API_OPERATIONS, type ApiOperation } from './wire-types.js';

export class ApiCallStats implements CallStats {
  readonly byOperation: Record<ApiOperation, OperationCount>;
  /** Requests started in each minute since the first (for the run report's chart). */
  readonly #perMinute: number[] = [];
  /** Requests by the surface's own name of the call, when the client gives one (API v2: its endpoint). */
  readonly #byEndpoint = new Map<string, number>();
  #firstAt: number | undefined;
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
    this.byOperation = Object.fromEntries(
      API_OPERATIONS.map((operation) => [operation, { requests: 0, retries: 0, rateLimited: 0 }]),
    ) as Record<ApiOperation, OperationCount>;
  }

  /**
   * An HTTP request left; `retry` when it repeats an earlier attempt of the same call; `endpoint`,
   * the surface's own name of it (API v2: `POST /contact/list`), when it has one.
   */
  recordRequest(operation: ApiOperation, retry: boolean, endpoint?: string): void {
    if (endpoint !== undefined) this.#byEndpoint.set(endpoint, (this.#byEndpoint.get(endpoint) ?? 0) + 1);
    const count = this.byOperation[operation];
    count.requests += 1;
    if (retry) count.retries += 1;
    const at = this.#now();
    this.#firstAt ??= at;
    const minute = Math.floor((at - this.#firstAt) / 60_000);
    while (this.#perMinute.length <= minute) this.#perMinute.push(0);
    this.#perMinute[minute]! += 1;
  }

  /** Requests by endpoint (retries included), for a surface that names its calls so (API v2); empty otherwise. */
  byEndpoint(): Record<string, number> {
    return Object.fromEntries([...this.#byEndpoint].sort(([a], [b]) => a.localeCompare(b)));
  }

  /** Requests started in each whole minute from the first request on. */
  callsPerMinute(): number[] {
    return [...this.#perMinute];
  }

  /** A 429 came back. */
  recordRateLimited(operation: ApiOperation): void {
    this.byOperation[operation].rateLimited += 1;
  }

  /** Requests over every operation, retries included. */
  total(): number {
    return this.sum('requests');
  }

  /** Retries over every operation. */
  retries(): number {
    return this.sum('retries');
  }

  /** 429 answers over every operation. */
  rateLimited(): number {
    return this.sum('rateLimited');
  }

  private sum(key: keyof OperationCount): number {
    return API_OPERATIONS.reduce((total, operation) => total + this.byOperation[operation][key], 0);
  }
}
