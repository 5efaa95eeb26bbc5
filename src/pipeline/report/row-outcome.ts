/** How a row ended: its outcome and its line of results.csv (`RowResult`), with what it changed for changes.csv. */
import type { FieldSkip, PhoneExtension } from '../map/contact-draft.js';
import type { ReportErrorCode } from './error-codes.js';

export type RowOutcome = 'created' | 'updated' | 'unchanged' | 'skipped' | 'failed';

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

/** One line of results.csv. */
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
