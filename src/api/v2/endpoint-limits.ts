/**
 * The v2 surface's limits, learnt per endpoint (method and path template, like
 * `POST /contact/list`) from each answer's `X-RateLimit-Limit` and `X-RateLimit-Remaining`, and
 * shared by every client, job and process of one organisation (the platform counts them there).
 * The v2 client schedules every attempt through this port; the learnt limiter implements it.
 */

import type { Rate } from '../../limits.js';

/** What one answer said of its endpoint's limit. */
export interface EndpointAnswer {
  readonly status: number;
  /** `X-RateLimit-Limit`: requests the endpoint allows per window. */
  readonly limit?: number;
  /** `X-RateLimit-Remaining`: requests left in the current window. */
  readonly remaining?: number;
  /** A 429's `Retry-After`, in milliseconds. */
  readonly retryAfterMs?: number;
  /** `X-RateLimit-Reset`, when it is a number of seconds: milliseconds until the server's window frees. */
  readonly resetMs?: number;
}

/** What has been learnt of one endpoint, for `check`, the log and summary.json. */
export interface LearntLimit {
  readonly endpoint: string;
  readonly limit: number;
  /** The window the limit counts over: the default (1 s) until an answer said it is longer. */
  readonly windowMs: number;
}

export interface EndpointLimits {
  /**
   * Runs one attempt of a request to `endpoint` when the organisation's budget for it allows, and
   * learns from what its answer said (a 429 included: the attempt returns it, never throws it).
   * Before an endpoint's first answer its requests go one at a time.
   */
  schedule<T>(endpoint: string, attempt: () => Promise<{ value: T; answer: EndpointAnswer }>): Promise<T>;
  /** The limits learnt so far. */
  learnt(): LearntLimit[];
  /** The configured ceiling of `endpoint` (the connection's `rateLimits`), if any. */
  ceiling?(endpoint: string): Rate | undefined;
}
