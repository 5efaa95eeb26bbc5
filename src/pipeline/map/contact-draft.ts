/** A row mapped to what the platform should hold (`ContactDraft`), or the row's own failure to map. */
import type { WriteRule } from '../../config/job-types.js';
import type { RowErrorCode } from '../report/error-codes.js';

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
