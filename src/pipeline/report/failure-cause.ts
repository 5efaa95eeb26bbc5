/**
 * Whether a failed row failed for its own data, or for a cause outside it. A row of a bad email
 * or a key on two contacts needs a person to change something for that row: it goes to
 * rejected.csv, to fix. A row that failed because the job stopped (an invalid token, `ABORTED`) or
 * the platform failed (5xx, a timeout) has nothing wrong in it: it stays in results.csv only, and
 * the same command run again takes it once the cause is gone, as it takes the rows not reached.
 * Counting the second as "to fix" sends a person through good rows looking for a mistake that is
 * not there (docs/reports.md, "Rows that failed").
 *
 * Typed over every report code, so a new code does not compile without its place here
 * (test/pipeline/report/failure-cause.test.ts is the table).
 */
import type { ReportErrorCode } from './error-codes.js';

/** `fix`: the row's data (rejected.csv); `run-again`: a cause outside the row (results.csv only). */
export type FailureCause = 'fix' | 'run-again';

export const FAILURE_CAUSE: Readonly<Record<ReportErrorCode, FailureCause>> = {
  // The reader's, the mapper's and the decision's: the cells, or the key on the platform or in the file.
  CSV_UNCLOSED_QUOTE: 'fix',
  CSV_COLUMN_COUNT: 'fix',
  CSV_INVALID_BYTES: 'fix',
  CSV_MALFORMED: 'fix',
  KEY_MISSING: 'fix',
  INVALID_EMAIL: 'fix',
  INVALID_PHONE: 'fix',
  UNKNOWN_COUNTRY: 'fix',
  PHONE_EXTENSION: 'fix',
  DUPLICATE_CONTACTS: 'fix',
  IDENTIFIER_HELD: 'fix',
  DUPLICATE_ROWS: 'fix',
  // Not sent: the job had stopped.
  ABORTED: 'run-again',
  // The platform's answer: a value of the row it refuses, or a key matching too many contacts...
  REQUEST_INVALID: 'fix',
  UNMATCHED_FILE_TYPE: 'fix',
  PAGE_LIMIT: 'fix',
  V2_CANNOT_CREATE: 'fix',
  // ...or the connection, the platform, the workspace or the job, the same for every row.
  INVALID_TOKEN: 'run-again',
  RATE_LIMITED: 'run-again',
  METHOD_NOT_ALLOWED: 'run-again',
  NO_SUCH_CONTACT: 'run-again',
  FORBIDDEN: 'run-again',
  SERVER_ERROR: 'run-again',
  UNEXPECTED_STATUS: 'run-again',
  NETWORK: 'run-again',
  TIMEOUT: 'run-again',
  MALFORMED_RESPONSE: 'run-again',
  // The platform's answer named another key's contact: nothing in the row is wrong.
  MATCH_KEY_MISMATCH: 'run-again',
  OUTCOME_UNKNOWN: 'run-again',
  SEND_REFUSED: 'run-again',
  API_UNAVAILABLE: 'run-again',
  // The reasons a job stops, carried by the row that met them.
  MAX_ERRORS: 'run-again',
  RATE_LIMITER_LOST: 'run-again',
  STATE_WRITE_FAILED: 'run-again',
  REPORT_WRITE_FAILED: 'run-again',
  INPUT_READ_FAILED: 'run-again',
  UNEXPECTED: 'run-again',
};

/** A failed row's cause; a failed row without a code (none is known) is one to look at. */
export function failureCause(code: ReportErrorCode | ''): FailureCause {
  return code === '' ? 'fix' : FAILURE_CAUSE[code];
}
