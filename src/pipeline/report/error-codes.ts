/** The codes a report's `error_code` may carry. */
import type { ApiErrorCode } from '../../api/errors.js';
import type { JobAbortCode } from '../job-abort.js';

/**
 * Codes of the failures that belong to the row itself, found before or without any call: the
 * reader's, the mapper's, the decision's, and `ABORTED` for a row the job did not send after it
 * stopped.
 */
export const ROW_ERROR_CODES = [
  'CSV_UNCLOSED_QUOTE',
  'CSV_COLUMN_COUNT',
  'CSV_INVALID_BYTES',
  'CSV_MALFORMED',
  'KEY_MISSING',
  'INVALID_EMAIL',
  'INVALID_PHONE',
  'UNKNOWN_COUNTRY',
  'PHONE_EXTENSION',
  'DUPLICATE_CONTACTS',
  'IDENTIFIER_HELD',
  'DUPLICATE_ROWS',
  'ABORTED',
] as const;

export type RowErrorCode = (typeof ROW_ERROR_CODES)[number];

/**
 * Every code that can stand in a report's `error_code`: the row's own, the API client's (the
 * row's call failed), and the job's abort codes (the row that met the reason the job stopped).
 * Each is listed with its meaning and fix in docs/reports.md; a test keeps the two in step.
 */
export type ReportErrorCode = RowErrorCode | ApiErrorCode | JobAbortCode;
