/**
 * The one retry loop of both surfaces: a call's attempts, each through the surface's limiter, until
 * one succeeds or the retry policy says stop (failed-attempt.ts, retry-policy.ts). The shared
 * layer runs the attempts and their prelude; each adapter states its surface's rules: how an
 * attempt goes through its limiter (v1: its API group's Bottleneck slot; v2: its endpoint's learnt
 * budget) and which errors end the call at once.
 */
import type { ConnectionParts } from './connection-options.js';
import { ApiError } from './errors.js';
import { retryAfterFailure } from './failed-attempt.js';
import type { ApiOperation } from './wire-types.js';

/** One call as the loop runs it: what the retry policy needs, and the surface's rules. */
export interface AttemptedCall<T> {
  readonly operation: ApiOperation;
  /** Whether the call may be sent again whatever its operation (v2's create_or_update). @default the operation's */
  readonly idempotent?: boolean;
  /** Called when the limiter released the attempt, just before it leaves (not once the token is refused). */
  readonly onLeave?: () => void;
  /** The 401 that refused the client's token, once one came: no attempt leaves (`onLeave` is not called). */
  readonly refusedToken: () => ApiError | undefined;
  /**
   * Runs attempt number `attempt` (1-based) through the surface's limiter: `prelude` first, once
   * the limiter released it, then the request. Resolves to the call's value; rejects with what the
   * attempt failed with. A rejection that is no `ApiError` (the limiter's own) ends the call.
   */
  readonly schedule: (attempt: number, prelude: () => Promise<void>) => Promise<T>;
  /** An error that ends the call at once, the retry policy unasked, beside the connection's stop. */
  readonly endsCall?: (error: ApiError) => boolean;
}

/** Runs `call`'s attempts on the connection `c`; resolves to its value or rejects with its outcome. */
export async function runAttempts<T>(c: ConnectionParts, call: AttemptedCall<T>): Promise<T> {
  // The end of the connection pause this call already slept through (after its own 429).
  let waitedUntil = 0;
  // decideRetry refuses a retry once attempt > retry.limit, so the loop always returns or throws.
  for (let attempt = 1; ; attempt += 1) {
    // A stopped connection makes no call (docs/reliability.md, "A dead or throttling platform").
    c.health.check();
    const since = waitedUntil;
    try {
      return await call.schedule(attempt, async () => {
        // The slot holds the call while the connection is paused by a Retry-After.
        await c.health.beforeAttempt(since);
        c.health.check();
        if (call.refusedToken() === undefined) call.onLeave?.();
      });
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      if (error === c.health.stopped || call.endsCall?.(error) === true) throw error;
      waitedUntil = await retryAfterFailure(c, { operation: call.operation, ...(call.idempotent === undefined ? {} : { idempotent: call.idempotent }), error, attempt, waitedUntil });
    }
  }
}
