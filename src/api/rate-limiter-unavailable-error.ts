/**
 * The Redis that a connection's rate limits are shared through (`rateLimits.redis`) cannot be
 * used: unreachable at start, or gone mid-run. No request is sent without it, since a process
 * pacing itself alone could spend the budget of the others and earn 429s for every one of them.
 */

import { ContactSyncError } from '../failure/contact-sync-error.js';

export type RateLimiterPhase = 'start' | 'lost';

export class RateLimiterUnavailableError extends ContactSyncError<'RATE_LIMITER_UNAVAILABLE'> {
  readonly code = 'RATE_LIMITER_UNAVAILABLE';
  override readonly name = 'RateLimiterUnavailableError';
  /** The Redis URL without user or password. */
  readonly redis: string;
  /** `start`: it never answered; `lost`: it went away after it had answered. */
  readonly phase: RateLimiterPhase;

  constructor(options: { redis: string; phase: RateLimiterPhase; reason: string; where?: string; cause?: unknown }) {
    const where = options.where === undefined ? '' : `${options.where}: `;
    const problem =
      options.phase === 'start'
        ? `Redis at ${options.redis} did not answer (${options.reason}), so the rate limits shared through it cannot be kept and no request was sent; ` +
          'start Redis or fix the URL, or remove rateLimits.redis to let this process pace itself alone'
        : `Redis at ${options.redis} went away mid-run (${options.reason}), so the rate limits shared through it cannot be kept and no further request was sent; ` +
          'check the Redis server, then run the job again';
    super(`${where}${problem}`, options.cause === undefined ? undefined : { cause: options.cause });
    this.redis = options.redis;
    this.phase = options.phase;
  }

  get context(): Readonly<Record<string, unknown>> {
    return { redis: this.redis, phase: this.phase };
  }
}
