/**
 * Which failed rows are to fix (rejected.csv) and which failed for a cause outside their data
 * (results.csv only, run again). The table is typed over every report code: a new code does not
 * compile without its place.
 */
import { FAILURE_CAUSE, failureCause } from '../../../src/pipeline/report/failure-cause.js';

describe('failureCause', () => {
  test('the rows to fix: the cells, the key, and values the platform refuses', () => {
    const toFix = Object.entries(FAILURE_CAUSE)
      .filter(([, cause]) => cause === 'fix')
      .map(([code]) => code)
      .sort();
    expect(toFix).toEqual([
      'CSV_COLUMN_COUNT',
      'CSV_INVALID_BYTES',
      'CSV_MALFORMED',
      'CSV_UNCLOSED_QUOTE',
      'DUPLICATE_CONTACTS',
      'DUPLICATE_ROWS',
      'IDENTIFIER_HELD',
      'INVALID_EMAIL',
      'INVALID_PHONE',
      'KEY_MISSING',
      'PAGE_LIMIT',
      'PHONE_EXTENSION',
      'REQUEST_INVALID',
      'UNKNOWN_COUNTRY',
      'UNMATCHED_FILE_TYPE',
      'V2_CANNOT_CREATE',
    ]);
  });

  test.each(['ABORTED', 'INVALID_TOKEN', 'SERVER_ERROR', 'TIMEOUT', 'NETWORK', 'RATE_LIMITED', 'FORBIDDEN', 'API_UNAVAILABLE', 'MAX_ERRORS', 'STATE_WRITE_FAILED'] as const)(
    '%s is a cause outside the row: run again, nothing to fix',
    (code) => {
      expect(failureCause(code)).toBe('run-again');
    },
  );

  test('a failed row without a code is one to look at', () => {
    expect(failureCause('')).toBe('fix');
  });
});
