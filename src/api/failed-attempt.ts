/**
 * What a call's failed attempt leads to, the same on every surface (the one retry loop,
 * call-attempts.ts, asks this after each failed attempt): the connection's health learns of
 * the failure, the retry policy (retry-policy.ts, the idempotency table) decides, and a retry waits
 * its delay here. A connection that this very answer stopped is not retried.
 */
import type { ConnectionHealth } from './connection-health.js';
import { RateLimitedError, type ApiError } from './errors.js';
import type { ApiLogger } from './logger.js';
import { decideRetry, type RetryOptions } from './retry-policy.js';
import type { ApiOperation } from './wire-types.js';

export interface AttemptParts {
  readonly health: ConnectionHealth;
  readonly retry: RetryOptions;
  readonly random: () => number;
  readonly sleep: (ms: number) => Promise<void>;
  readonly logger: ApiLogger;
}

export interface FailedAttempt {
  readonly operation: ApiOperation;
  /** Whether the call may be sent again whatever its operation (v2's create_or_update). @default the operation's */
  readonly idempotent?: boolean;
  readonly error: ApiError;
  readonly attempt: number;
  /** The end of the connection pause the call already slept through. */
  readonly waitedUntil: number;
}

/**
 * Throws the call's outcome when it is not to be retried; else sleeps the retry's delay and returns
 * the end of the connection pause the call has now slept through (after its own 429, the next
 * attempt does not wait that pause again in `beforeAttempt`).
 */
export async function retryAfterFailure(parts: AttemptParts, failed: FailedAttempt): Promise<number> {
  const { health } = parts;
  const { operation, error, attempt } = failed;
  health.failed(operation, error);
  const decision = decideRetry({ operation, error, attempt, retry: parts.retry, random: parts.random, ...(failed.idempotent === undefined ? {} : { idempotent: failed.idempotent }) });
  // This very answer may have stopped the connection: no retry then, but a create or send that
  // may have taken effect is still reported as such.
  if (health.stopped !== undefined) throw !decision.retry && decision.error.code === 'OUTCOME_UNKNOWN' ? decision.error : health.stopped;
  if (!decision.retry) throw decision.error;
  parts.logger.info({ operation, path: error.path, code: error.code, status: error.status, attempt, delayMs: decision.delayMs }, 'api call retried');
  // After a Retry-After the whole connection is paused until pausedUntil: this call sleeps it
  // here, the others in beforeAttempt.
  const pausedUntil = health.pausedUntil;
  await parts.sleep(decision.delayMs);
  return error instanceof RateLimitedError && error.retryAfterMs !== undefined ? pausedUntil : failed.waitedUntil;
}
