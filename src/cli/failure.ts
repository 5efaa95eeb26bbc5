/**
 * Maps an exception that escaped a command to its exit code and the message a user reads. Every
 * failure contact-sync throws is a ContactSyncError (`src/failure/contact-sync-error.ts`) with a
 * code of the closed union below, and each code has its exit code in one table the compiler holds
 * complete: input problems found before any row (usage, config, an unreadable file, a header
 * missing a column, a state store or SQLite that cannot be opened) are exit 2; another run holding
 * the lock is 75; anything that stopped a job mid-way is 3. Anything else is a bug: UNEXPECTED, 3.
 */
import type { ApiErrorCode } from '../api/errors.js';
import { RateLimiterUnavailableError } from '../api/rate-limiter-unavailable-error.js';
import type { ConfigErrorCode } from '../config/config-error.js';
import { EXIT, type ExitCode } from '../exit-codes.js';
import { ContactSyncError } from '../failure/contact-sync-error.js';
import { isStoreFailure, type JobAbortCode } from '../pipeline/job-abort.js';
import { ReportWriteError } from '../pipeline/report/report.js';
import type { SourceErrorCode } from '../pipeline/source/source-error.js';
import { isBusyStore, stateStoreFix, type StateStoreErrorCode } from '../state/state-store-error.js';
import { InputSaveInterruptedError } from './saved-input.js';
import { UsageErrorFromYargs } from './usage-error.js';

/** Every code a failure outside the report can carry: each room's own list, and the CLI's. */
export type FailureCode =
  | ApiErrorCode
  | JobAbortCode
  | ConfigErrorCode
  | SourceErrorCode
  | StateStoreErrorCode
  | 'USAGE'
  | 'LOCK_HELD'
  | 'GUARD_REFUSED'
  | 'RATE_LIMITER_UNAVAILABLE'
  | 'SQLITE_BINDING_UNAVAILABLE'
  | 'REPORT_WRITE_FAILED'
  | 'INTERRUPTED'
  | 'UNEXPECTED';

const BEFORE_ANY_ROW = EXIT.usage;
const STOPPED_A_JOB = EXIT.aborted;

/** The exit code of each failure; a code added to the union without its line here does not compile. */
const EXIT_OF: Record<FailureCode, ExitCode> = {
  USAGE: BEFORE_ANY_ROW,
  CONFIG_UNREADABLE: BEFORE_ANY_ROW,
  CONFIG_SYNTAX: BEFORE_ANY_ROW,
  CONFIG_INVALID: BEFORE_ANY_ROW,
  INPUT_NOT_FOUND: BEFORE_ANY_ROW,
  INPUT_IS_DIRECTORY: BEFORE_ANY_ROW,
  INPUT_UNREADABLE: BEFORE_ANY_ROW,
  INPUT_EMPTY: BEFORE_ANY_ROW,
  INPUT_ENCODING: BEFORE_ANY_ROW,
  INPUT_BAD_HEADER: BEFORE_ANY_ROW,
  INPUT_DUPLICATE_HEADER: BEFORE_ANY_ROW,
  INPUT_HEADER_MISMATCH: BEFORE_ANY_ROW,
  INPUT_NOT_CSV: BEFORE_ANY_ROW,
  STATE_KEY_FIELD_MISMATCH: BEFORE_ANY_ROW,
  STATE_SCHEMA_TOO_NEW: BEFORE_ANY_ROW,
  STATE_UNREADABLE: BEFORE_ANY_ROW,
  STATE_BUSY: EXIT.locked,
  SQLITE_BINDING_UNAVAILABLE: BEFORE_ANY_ROW,
  LOCK_HELD: EXIT.locked,
  // A guard refused the run before its first write: nothing was done, as for a bad input.
  GUARD_REFUSED: BEFORE_ANY_ROW,
  // Unreachable at the start is exit 2 (no row taken); lost later, it stopped a job (see below).
  RATE_LIMITER_UNAVAILABLE: STOPPED_A_JOB,
  REPORT_WRITE_FAILED: STOPPED_A_JOB,
  // A signal before any job started (while `--input -` was saved): SIGTERM's code, SIGINT's below.
  INTERRUPTED: EXIT.sigterm,
  // The job's own aborts, and an API failure that escaped the row it belonged to.
  INVALID_TOKEN: STOPPED_A_JOB,
  MAX_ERRORS: STOPPED_A_JOB,
  RATE_LIMITER_LOST: STOPPED_A_JOB,
  STATE_WRITE_FAILED: STOPPED_A_JOB,
  INPUT_READ_FAILED: STOPPED_A_JOB,
  API_UNAVAILABLE: STOPPED_A_JOB,
  RATE_LIMITED: STOPPED_A_JOB,
  METHOD_NOT_ALLOWED: STOPPED_A_JOB,
  UNMATCHED_FILE_TYPE: STOPPED_A_JOB,
  NO_SUCH_CONTACT: STOPPED_A_JOB,
  FORBIDDEN: STOPPED_A_JOB,
  SERVER_ERROR: STOPPED_A_JOB,
  UNEXPECTED_STATUS: STOPPED_A_JOB,
  NETWORK: STOPPED_A_JOB,
  TIMEOUT: STOPPED_A_JOB,
  MALFORMED_RESPONSE: STOPPED_A_JOB,
  OUTCOME_UNKNOWN: STOPPED_A_JOB,
  REQUEST_INVALID: STOPPED_A_JOB,
  V2_CANNOT_CREATE: STOPPED_A_JOB,
  MATCH_KEY_MISMATCH: STOPPED_A_JOB,
  PAGE_LIMIT: STOPPED_A_JOB,
  SEND_REFUSED: STOPPED_A_JOB,
  UNEXPECTED: STOPPED_A_JOB,
};

export interface Failure {
  exitCode: ExitCode;
  code: FailureCode;
  message: string;
  /** Print the command's usage before the message. */
  showUsage: boolean;
}

export function describeFailure(error: unknown): Failure {
  if (error instanceof ContactSyncError && error.code in EXIT_OF) {
    const code = error.code as FailureCode;
    const failure: Failure = { exitCode: EXIT_OF[code], code, message: error.message, showUsage: error instanceof UsageErrorFromYargs };
    if (error instanceof ReportWriteError) return { ...failure, message: `${error.message}; ${error.fix}` };
    if (error instanceof RateLimiterUnavailableError && error.phase === 'start') return { ...failure, exitCode: BEFORE_ANY_ROW };
    if (error instanceof InputSaveInterruptedError && error.signal === 'SIGINT') return { ...failure, exitCode: EXIT.sigint };
    return failure;
  }
  const message = error instanceof Error ? error.message : String(error);
  // SQLite failed outside a job's rows (which stop the job with STATE_WRITE_FAILED): in a read
  // before the run (`state show`, `history`): nothing was done, and the fix is the failure's.
  if (isStoreFailure(error)) {
    const code = isBusyStore(error) ? 'STATE_BUSY' : 'STATE_UNREADABLE';
    return { exitCode: EXIT_OF[code], code, message: `${message} (the state store, read before the run). ${stateStoreFix(error, undefined)}`, showUsage: false };
  }
  return { exitCode: STOPPED_A_JOB, code: 'UNEXPECTED', message, showUsage: false };
}
