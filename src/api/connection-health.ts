/**
 * What one connection's calls have learnt of the platform, consulted by the client before every
 * attempt (docs/reliability.md, "A dead or throttling platform"):
 *
 * - a `Retry-After` is a pause of the whole connection, not of one call: every attempt waits until
 *   it ends; a pause longer than `maxRetryAfterMs` stops the connection (`RetryAfterTooLongError`),
 *   and no call is made after it;
 * - a circuit breaker: when no attempt succeeded for `unavailableAfterAttempts` attempts in a row,
 *   or for `unavailableAfterMs` since the first failure after the last success (an outage or a
 *   429), the platform is taken for unavailable and the connection stops (`ApiUnavailableError`).
 *
 * Kept apart from the limiter (limiter.ts) so the pacing of calls and the health of the platform
 * change independently.
 */
import { ApiError, ApiUnavailableError, MalformedResponseError, NetworkError, RateLimitedError, ServerError, TimeoutError } from './errors.js';
import type { ApiOperation } from './wire-types.js';

export interface ConnectionHealthOptions {
  /** Attempts in a row without a success after which the platform is unavailable. @default 20 */
  readonly unavailableAfterAttempts: number;
  /** Milliseconds without a success (from the first failure) after which it is unavailable. @default 300000 */
  readonly unavailableAfterMs: number;
  /** Longest `Retry-After` honoured as a pause, in milliseconds. @default 120000 */
  readonly maxRetryAfterMs: number;
  /** Milliseconds since the epoch. @default Date.now */
  readonly now?: () => number;
  /** Waits a pause out. @default a timer */
  readonly sleep: (ms: number) => Promise<void>;
}

export const DEFAULT_UNAVAILABLE_AFTER_ATTEMPTS = 20;
export const DEFAULT_UNAVAILABLE_AFTER_MS = 5 * 60_000;

/** The `Retry-After` asked for is longer than the connection will wait: the job stops. */
export class RetryAfterTooLongError extends ApiError {
  readonly code = 'RATE_LIMITED';
  readonly retryAfterMs: number;
  readonly maxRetryAfterMs: number;
  constructor(cause: RateLimitedError & { retryAfterMs: number }, maxRetryAfterMs: number) {
    super(
      { operation: cause.operation, method: cause.method, path: cause.path, status: 429, cause },
      `the platform asked to wait ${formatWait(cause.retryAfterMs)} before any further call (HTTP 429 Retry-After), ` +
        `longer than the ${formatWait(maxRetryAfterMs)} the connection waits (\`timeouts.maxRetryAfter\` in jobs.yaml); ` +
        'no further call was made: run again later, or raise timeouts.maxRetryAfter',
    );
    this.retryAfterMs = cause.retryAfterMs;
    this.maxRetryAfterMs = maxRetryAfterMs;
  }
}

/** A wait for people: `90 s`, `60 min`. */
export function formatWait(ms: number): string {
  const seconds = Math.ceil(ms / 1000);
  if (seconds < 120) return `${seconds} s`;
  const minutes = seconds / 60;
  return Number.isInteger(minutes) ? `${minutes} min` : `${seconds} s`;
}

/** Failures that say nothing reached the platform's application, or it did not answer. */
function isOutage(error: ApiError): boolean {
  if (error instanceof TimeoutError || error instanceof NetworkError || error instanceof ServerError) return true;
  // A 2xx that is not JSON at all is a proxy's page (maintenance), not the platform.
  return error instanceof MalformedResponseError && /is not JSON/.test(error.problem);
}

/** Bounds the waits of one attempt: a pause extended again and again still ends. */
const MAX_PAUSE_WAITS = 50;

export class ConnectionHealth {
  readonly #options: ConnectionHealthOptions;
  readonly #now: () => number;
  #failedInARow = 0;
  #firstFailureAt: number | undefined;
  #pausedUntil = 0;
  #stopped: ApiError | undefined;

  constructor(options: ConnectionHealthOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  /** The error that stopped this connection, if one did. */
  get stopped(): ApiError | undefined {
    return this.#stopped;
  }

  /** Throws when the connection is stopped: no call may leave. */
  check(): void {
    if (this.#stopped !== undefined) throw this.#stopped;
  }

  /** When the current pause of the connection ends, in milliseconds since the epoch (0: none yet). */
  get pausedUntil(): number {
    return this.#pausedUntil;
  }

  /**
   * Before an attempt leaves: waits out a pause of the connection; throws once it is stopped.
   * `waitedUntil`: the end of a pause this call already slept through (the call that got the 429
   * waits it whole), so it does not wait for it twice.
   */
  async beforeAttempt(waitedUntil = 0): Promise<void> {
    for (let wait = 0; wait < MAX_PAUSE_WAITS; wait += 1) {
      this.check();
      const until = this.#pausedUntil;
      if (until <= waitedUntil) return;
      const left = until - this.#now();
      if (left <= 0) return;
      await this.#options.sleep(left);
      // Waited out, unless another 429 extended the pause meanwhile.
      if (this.#pausedUntil === until) break;
    }
    this.check();
  }

  /** An answer came that the platform's application wrote (any status but an outage). */
  answered(): void {
    this.#failedInARow = 0;
    this.#firstFailureAt = undefined;
  }

  /**
   * An attempt failed with `error`: counts outages, pauses on a Retry-After. A 429 pauses and
   * counts too, as an attempt without a success (issue 42: a 429 storm failed every row after its
   * retries and never stopped the job): a storm trips the breaker as a dead platform does, and a
   * 429 between successes (a window met) resets nothing but is reset by the next success.
   */
  failed(operation: ApiOperation, error: ApiError): void {
    if (error instanceof RateLimitedError) {
      this.#rateLimited(error);
      this.#unanswered(operation, error);
      return;
    }
    if (!isOutage(error)) {
      this.answered();
      return;
    }
    this.#unanswered(operation, error);
  }

  /** One more attempt in a row without a success: the breaker trips at its bounds. */
  #unanswered(operation: ApiOperation, error: ApiError): void {
    const now = this.#now();
    this.#failedInARow += 1;
    this.#firstFailureAt ??= now;
    const downMs = now - this.#firstFailureAt;
    const { unavailableAfterAttempts, unavailableAfterMs } = this.#options;
    if (this.#stopped === undefined && (this.#failedInARow >= unavailableAfterAttempts || downMs >= unavailableAfterMs)) {
      const why =
        this.#failedInARow >= unavailableAfterAttempts
          ? `${this.#failedInARow} attempts in a row failed (\`timeouts.unavailableAfterAttempts\`: ${unavailableAfterAttempts})`
          : `no call succeeded for ${formatWait(downMs)} (\`timeouts.unavailableAfter\`: ${formatWait(unavailableAfterMs)})`;
      this.#stopped = new ApiUnavailableError({
        operation,
        problem: `the platform is unavailable: ${why}, the last with ${error.code}: ${error.message}; no further call is made: check the platform's status and run again (rows not taken are counted as not reached)`,
        lastFailure: error,
      });
    }
  }

  #rateLimited(error: RateLimitedError): void {
    const wait = error.retryAfterMs;
    if (wait === undefined) return;
    if (wait > this.#options.maxRetryAfterMs) {
      this.#stopped ??= new RetryAfterTooLongError(error as RateLimitedError & { retryAfterMs: number }, this.#options.maxRetryAfterMs);
      return;
    }
    this.#pausedUntil = Math.max(this.#pausedUntil, this.#now() + wait);
  }
}
