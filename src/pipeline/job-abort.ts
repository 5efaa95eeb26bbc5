/**
 * An exception that stops a whole job (exit 3): row failures are data, this is not. It names the
 * connection, never the token.
 */
export type JobAbortCode = 'INVALID_TOKEN' | 'MAX_ERRORS' | 'RATE_LIMITER_LOST';

export class JobAbortError extends Error {
  override readonly name = 'JobAbortError';
  constructor(
    readonly code: JobAbortCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
