/**
 * Which failures stop the whole job rather than the one row (or departed key) that met them:
 * an invalid token or a lost shared rate limiter (no later call could succeed), a platform that
 * stopped answering or asks for too long a pause, a state store that cannot be written (the job
 * would lose track of what it did), a bug. See docs/architecture.md, "Rules of the house".
 */
import { ApiError, ApiUnavailableError, InvalidTokenError } from '../api/errors.js';
import { RetryAfterTooLongError } from '../api/connection-health.js';
import { RateLimiterUnavailableError } from '../api/rate-limiter-unavailable-error.js';
import type { Job } from '../config/job-types.js';
import { stateLocation } from '../config/state-location.js';
import { isStoreFailure, JobAbortError, stateWriteFailed } from './job-abort.js';

/**
 * The reason the job must stop, or undefined for a failure of this row alone (an API error).
 * `where` places it for a message: `at line 12`, `for the departed key C-9`.
 */
export function abortReason(error: unknown, job: Job, where: string): JobAbortError | undefined {
  if (error instanceof InvalidTokenError) {
    return new JobAbortError('INVALID_TOKEN', `the platform refused the token of connection "${job.connection.name}" (401); check the channel token it reads`, {
      cause: error,
    });
  }
  // Its message names the connection's rateLimits.redis and what to do.
  if (error instanceof RateLimiterUnavailableError) return new JobAbortError('RATE_LIMITER_LOST', error.message, { cause: error });
  // Their messages name what happened, the setting and what to do (docs/reliability.md).
  if (error instanceof ApiUnavailableError) {
    return new JobAbortError('API_UNAVAILABLE', `connection "${job.connection.name}": ${error.message}`, { cause: error });
  }
  if (error instanceof RetryAfterTooLongError) {
    return new JobAbortError('RATE_LIMITED', `connection "${job.connection.name}": ${error.message}`, { cause: error });
  }
  if (error instanceof ApiError) return undefined;
  if (isStoreFailure(error)) return stateWriteFailed(stateLocation(job.state), where, error);
  const detail = error instanceof Error ? error.message : String(error);
  return new JobAbortError('UNEXPECTED', `an unexpected error stopped the job ${where}: ${detail}; please report it`, { cause: error });
}
