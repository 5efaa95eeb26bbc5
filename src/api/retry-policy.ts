/**
 * What to do after a failed attempt: retry after a delay, or fail with which error. Pure, so the
 * idempotency table of docs/architecture.md is tested without a server.
 *
 * - search, get, update, add/remove tags repeat the same effect: they retry on 429, 5xx, network
 *   failures and timeouts.
 * - create contact and send message do not: they retry only when the request cannot have taken
 *   effect (429, connection refused); after a timeout, a reset or a 5xx they fail with
 *   `OutcomeUnknownError`.
 * - v2's create is `create_or_update` by email or phone: retry-safe, it retries as an update does
 *   (`idempotent: true`); v2's send is not, and its unknown outcome is settled by the v2 client
 *   reading the contact's messages (src/api/v2/send-settlement.ts).
 */
import { type ApiError, MalformedResponseError, NetworkError, OutcomeUnknownError, RateLimitedError, ServerError, TimeoutError } from './errors.js';
import type { ApiOperation } from './wire-types.js';

/** Bounded exponential backoff with jitter. */
export interface RetryOptions {
  /** Retries after the first attempt (0 disables retries). @default 4 */
  readonly limit: number;
  /** Delay before the first retry, before jitter, in milliseconds. @default 500 */
  readonly baseDelayMs: number;
  /** Cap of the backoff delay, in milliseconds. @default 30000 */
  readonly maxDelayMs: number;
  /**
   * Longest `Retry-After` of a 429 that is waited for, in milliseconds; a longer one fails with
   * `RateLimitedError` at once. @default 120000
   */
  readonly maxRetryAfterMs: number;
}

export const DEFAULT_RETRY: RetryOptions = { limit: 4, baseDelayMs: 500, maxDelayMs: 30_000, maxRetryAfterMs: 120_000 };

/** Operations that must not be repeated once they may have taken effect. */
export const NON_IDEMPOTENT_OPERATIONS: ReadonlySet<ApiOperation> = new Set<ApiOperation>(['createContact', 'sendMessage']);

export type RetryDecision = { retry: true; delayMs: number } | { retry: false; error: ApiError };

export interface RetryInput {
  operation: ApiOperation;
  /** What the attempt failed with. */
  error: ApiError;
  /** 1-based number of the attempt that failed. */
  attempt: number;
  retry: RetryOptions;
  /** A number in [0, 1), for jitter. */
  random: () => number;
  /**
   * Whether repeating the request repeats the same effect; by default the operation's place in
   * `NON_IDEMPOTENT_OPERATIONS`. v2's create is a `create_or_update` by the contact's email or
   * phone: repeated, it finds the contact the lost answer created, so it is retried as an update.
   */
  idempotent?: boolean;
}

/**
 * Backoff before retry `attempt` (1-based): baseDelayMs * 2^(attempt-1), capped at maxDelayMs,
 * then "equal jitter" (between half and all of it) so clients that failed together spread out
 * without ever retrying at once.
 */
export function backoffDelay(attempt: number, retry: RetryOptions, random: () => number): number {
  const exponential = retry.baseDelayMs * 2 ** Math.max(0, attempt - 1);
  const capped = Math.min(retry.maxDelayMs, exponential);
  return Math.round(capped / 2 + (capped / 2) * random());
}

/** True when the request cannot have reached the server's application. */
function cannotHaveTakenEffect(error: ApiError): boolean {
  return error instanceof RateLimitedError || (error instanceof NetworkError && error.connectionRefused);
}

/** True when the request may or may not have taken effect. */
function mayHaveTakenEffect(error: ApiError): boolean {
  if (error instanceof TimeoutError || error instanceof ServerError) return true;
  if (error instanceof NetworkError) return !error.connectionRefused;
  // A 2xx whose body cannot be read: done, but the result (the new id) is lost.
  return error instanceof MalformedResponseError && error.status !== undefined && error.status >= 200 && error.status < 300;
}

export function decideRetry(input: RetryInput): RetryDecision {
  const { error, retry } = input;
  const idempotent = input.idempotent ?? !NON_IDEMPOTENT_OPERATIONS.has(input.operation);

  if (!idempotent && !cannotHaveTakenEffect(error)) {
    return { retry: false, error: mayHaveTakenEffect(error) ? new OutcomeUnknownError(error) : error };
  }
  const transient =
    cannotHaveTakenEffect(error) ||
    error instanceof TimeoutError ||
    error instanceof ServerError ||
    error instanceof NetworkError;
  if (!transient || input.attempt > retry.limit) {
    return { retry: false, error };
  }
  if (error instanceof RateLimitedError && error.retryAfterMs !== undefined) {
    if (error.retryAfterMs > retry.maxRetryAfterMs) return { retry: false, error };
    return { retry: true, delayMs: error.retryAfterMs };
  }
  return { retry: true, delayMs: backoffDelay(input.attempt, retry, input.random) };
}
