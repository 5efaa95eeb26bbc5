/**
 * An exception that stops a whole job (exit 3): row failures are data, this is not. It names the
 * connection, never the token.
 */
import { ContactSyncError } from '../failure/contact-sync-error.js';
import { isBusyStore, isDamagedStore, isPostgresFailure, stateStoreFix } from '../state/state-store-error.js';

export const JOB_ABORT_CODES = [
  /** The platform refused the channel token (401). */
  'INVALID_TOKEN',
  /** Rows the platform failed crossed `--max-errors` / `maxErrors` (pipeline/run/error-threshold.ts). */
  'MAX_ERRORS',
  /** The shared rate limit's Redis was lost mid-run. */
  'RATE_LIMITER_LOST',
  /** The state store could not be written (full disk, permissions, a damaged file). */
  'STATE_WRITE_FAILED',
  /** A report file could not be written (full disk, a lost mount). */
  'REPORT_WRITE_FAILED',
  /** The input could not be read to its end (an I/O error, gzip data cut short) after rows were taken. */
  'INPUT_READ_FAILED',
  /** No call of the connection succeeded for too many attempts or too long (circuit breaker). */
  'API_UNAVAILABLE',
  /** The platform asked (Retry-After) for a pause longer than `timeouts.maxRetryAfter`. */
  'RATE_LIMITED',
  /** The list of the marked contacts (match.prefetch, reconcile) grew past twice the pages its first page announced. */
  'PAGE_LIMIT',
  /** Anything else: a bug, reported with its message. */
  'UNEXPECTED',
] as const;

export type JobAbortCode = (typeof JOB_ABORT_CODES)[number];

export class JobAbortError extends ContactSyncError<JobAbortCode> {
  override readonly name = 'JobAbortError';
  constructor(
    override readonly code: JobAbortCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  get context(): Readonly<Record<string, unknown>> {
    return {};
  }
}

/**
 * A failure of the state store, whichever adapter: better-sqlite3's SqliteError (`code`
 * SQLITE_FULL, SQLITE_IOERR_WRITE, SQLITE_READONLY...) or the PostgreSQL store's StoreFailure
 * (`code` STATE_PG_LOST, STATE_PG_TIMEOUT, STATE_PG_FAILED: its connection lost, no answer, a
 * statement refused). Recognised by its code, not `instanceof Error`: an error can come from
 * another realm (jest's VM context runs the CLI in-process), where instanceof says no.
 */
export function isStoreFailure(error: unknown): error is Error & { code: string } {
  const code: unknown = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' && (code.startsWith('SQLITE_') || code.startsWith('STATE_PG_'));
}

/**
 * The state store at `path` failed `where` (a row's line, the run journal). The fix is the one
 * its failure needs (a full disk, another process holding it, a damaged file), as at its open.
 */
export function stateWriteFailed(path: string, where: string, error: Error): JobAbortError {
  if (isPostgresFailure(error)) {
    return new JobAbortError('STATE_WRITE_FAILED', `the state store could not be used ${where}: ${error.message}. ${stateStoreFix(error, undefined)}`, { cause: error });
  }
  if (isDamagedStore(error) || isBusyStore(error)) {
    return new JobAbortError('STATE_WRITE_FAILED', `the state store ${path} could not be used ${where} (${error.message}). ${stateStoreFix(error, undefined)}`, { cause: error });
  }
  return new JobAbortError(
    'STATE_WRITE_FAILED',
    `the state store ${path} could not be written ${where} (${error.message}); free space or fix its permissions, then run again: what was confirmed is kept`,
    { cause: error },
  );
}

