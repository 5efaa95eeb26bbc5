import type { ApiErrorCode } from '../api/errors.js';
import type { JobAbortCode } from './job-abort.js';
import type { WriteRule } from '../config/job-types.js';

/**
 * The records that flow through the pipeline: source -> map -> match -> plan -> write -> report.
 */

/** A data row as read from the CSV. */
export interface SourceRow {
  kind: 'row';
  /** Physical line of the row's first line in the file (header = line 1). */
  line: number;
  /** Cells by header name. */
  values: Record<string, string>;
  /** Cells in file order, for rejected.csv. */
  cells: string[];
}

/** A row the reader could not parse; it becomes a failed row and the file goes on. */
export interface MalformedRow {
  kind: 'malformed';
  line: number;
  code: RowErrorCode;
  message: string;
  /** What could be read of the row, for rejected.csv. */
  cells: string[];
  /**
   * A quote never closed: the row's first line from that quote on, as written. rejected.csv ends
   * the row with it, so that fed back unfixed the row is an unclosed quote again (the last of
   * `cells` is what could be read of it).
   */
  openQuote?: string;
}

export type SourceRecord = SourceRow | MalformedRow;

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

/** A row mapped to what the platform should hold. */
/** A field a row was written without: the transforms refused its value (`onInvalid: skip-field`). */
export interface FieldSkip {
  field: string;
  code: string;
  reason: string;
}

/** A phone written without its extension: E.164 has none (the field's phone transform has no `extensionField`). */
export interface PhoneExtension {
  field: string;
  /** The extension not written (`889`). */
  extension: string;
  /** The value as the file had it (`+1 212 555 0100 x889`). */
  value: string;
}

export interface ContactDraft {
  line: number;
  /** Normalised key value (written to `keyField`). */
  key: string;
  keyField: string;
  /** Custom field name -> value, key field excluded. Empty cells are absent unless `clear`. */
  fields: Record<string, string>;
  /** Tags the contact must have, deduplicated, in first-seen order. */
  tagsToAdd: string[];
  /** Tags the contact must not have. */
  tagsToRemove: string[];
  /** Columns and mapped fields, for message templates. */
  templateValues: Record<string, string>;
  /**
   * Fields left out because the transforms refused their value and the field says
   * `onInvalid: skip-field`, for results.csv's `fields_skipped`.
   */
  fieldsSkipped?: FieldSkip[];
  /** Phones written without the extension the file gave them, for results.csv's `warnings`. */
  phoneExtensions?: PhoneExtension[];
  /**
   * The fields whose write rule is not `always` (`write:` in jobs.yaml): `fill-empty` is written
   * to an existing contact only where its value is empty, `on-create` never. Absent: none.
   */
  writeRules?: Readonly<Record<string, WriteRule>>;
  /**
   * The row's tags that differ from another of its tags only in case (`VIP`, `vip`, `Vip`): each
   * is a tag of its own on the platform. For the run's warning (summary.json `tagsDifferingInCase`).
   */
  tagCaseVariants?: string[];
  /**
   * `rowHash` of the one row this draft was mapped from (`map/row-hash.ts`), recorded with the
   * draft hash so a re-run can settle the unchanged row without mapping it; absent for a draft
   * folded from several rows, or mapped without one.
   */
  rowHash?: string;
}

export interface RowError {
  line: number;
  code: RowErrorCode;
  message: string;
}

export type MapResult = { ok: true; draft: ContactDraft } | { ok: false; error: RowError };

export type RowOutcome = 'created' | 'updated' | 'unchanged' | 'skipped' | 'failed';

/** One line of results.csv. */
/** One changed field (or the tag set) of one contact, as `<job>.changes.csv` lists it. */
export interface ChangeLine {
  /** '' for a contact not created yet (a dry run's create): the row's contact_id once it is. */
  readonly contactId: string;
  /** A custom field's name, or `tags`. */
  readonly field: string;
  /** What the platform held before (as the plan knew it); for `tags`, the tags removed. null: none (a create, a field the contact lacked, no tag removed). */
  readonly platformValue: string | null;
  /** What the file writes; for `tags`, the tags added (null: none). */
  readonly fileValue: string | null;
}

export interface RowResult {
  line: number;
  key: string;
  outcome: RowOutcome;
  contactId: string;
  fieldsChanged: string[];
  /** Fields left out of the write for their invalid value (`onInvalid: skip-field`). */
  fieldsSkipped?: FieldSkip[];
  /** Phones written without their extension (`ContactDraft.phoneExtensions`), for results.csv's `warnings`. */
  phoneExtensions?: PhoneExtension[];
  /** The row's tags that differ only in case (`ContactDraft.tagCaseVariants`), for the run's warning. */
  tagCaseVariants?: string[];
  tagsAdded: string[];
  tagsRemoved: string[];
  apiCalls: number;
  errorCode: ReportErrorCode | '';
  errorMessage: string;
  /** The row's message (`message:` of the job): sent, skipped, failed, unknown; '' when none. */
  messageStatus: '' | 'sent' | 'skipped' | 'failed' | 'unknown';
  messageError: string;
  /** Input cells, for rejected.csv. */
  cells: string[];
  /** A row the reader found a quote never closed in: `MalformedRow.openQuote`, for rejected.csv. */
  openQuote?: string;
  /** What the row's plan changes (a dry run's: what it would), field by field, for changes.csv. */
  changes?: ChangeLine[];
}
