/**
 * The reports of `undo` (docs/undo.md): `<job>.undo.csv`, one line per field and tag of each
 * contact the undone run changed, as each contact is put back; `<job>.undo.json`, the counts.
 * Written like run's reports (`report.ts`): the CSV appended and flushed in whole lines,
 * owner-readable only, the JSON through a rename. Their own names, so an undo into the run's
 * report folder never overwrites the run's files.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { UndoLine } from '../undo/undo-plan.js';
import { CsvFile, reportWriteFailure, writeWhole, type ReportWriteError } from './report.js';
import { NO_MASK, type Masker } from './mask.js';

/** undo.csv's columns (the contract's). */
export const UNDO_COLUMNS = ['key', 'contact_id', 'action', 'field', 'from', 'to', 'outcome', 'error_code', 'error_message'] as const;

/** A line's outcome: the plan's, or `failed` when its call (or the contact's read) failed. */
export type UndoLineOutcome = UndoLine['outcome'] | 'failed';

export interface UndoPaths {
  readonly csv: string;
  readonly summary: string;
}

export function undoPaths(dir: string, name: string): UndoPaths {
  return { csv: join(dir, `${name}.undo.csv`), summary: join(dir, `${name}.undo.json`) };
}

/** `<job>.undo.json`: what scripts read of an undo. */
export interface UndoSummary {
  job: string;
  /** The run that was undone. */
  undoneRunId: string;
  /** This undo's own run id (an undo can be undone); null for a dry run. */
  runId: string | null;
  dryRun: boolean;
  force: boolean;
  startedAt: string;
  finishedAt: string;
  /**
   * Contacts the undone run changed that this undo takes (those of `keys`, less the created ones
   * with `keepCreated`); those it did not reach (a stop, an abort); the created ones `keepCreated`
   * left alone; those deleted (`--delete-created`; a dry run: those it would delete); those with a
   * conflict (kept as they are, at least one line `conflict`).
   */
  contacts: { total: number; notReached: number; keptCreated: number; deleted: number; conflicts: number };
  /** `--key`: the only keys undone; absent when every key of the run was. */
  keys?: string[];
  /** `--keep-created`: the contacts the run created were left alone (not tagged for deletion). */
  keepCreated: boolean;
  /** `--delete-created`: the contacts the run created were deleted (read first; one changed since kept, a conflict). */
  deleteCreated: boolean;
  /** Lines of undo.csv by outcome. */
  lines: Record<UndoLineOutcome, number>;
  /** Contacts the undone run created, tagged `contact-sync-undone` to be deleted in the platform's interface. */
  createdContacts: string[];
  apiCalls: { total: number; byOperation: Record<string, number> };
  status: 'completed' | 'interrupted' | 'aborted' | 'deadline';
  aborted?: { code: string; message: string };
}

/** One contact's lines, with the call's failure when there was one. */
export interface UndoContactResult {
  readonly key: string;
  readonly contactId: string;
  readonly lines: readonly UndoLine[];
  /** The read or a write failed: the lines the plan meant to restore are `failed`, with this error. */
  readonly error?: { readonly code: string; readonly message: string };
}

export class UndoReport {
  readonly paths: UndoPaths;
  readonly #csv: CsvFile;
  readonly lines: Record<UndoLineOutcome, number> = { restored: 0, conflict: 0, unverified: 0, 'tagged-for-deletion': 0, deleted: 0, unchanged: 0, failed: 0 };
  /** Contacts deleted (`--delete-created`; a dry run: to be deleted), and those kept as conflicts. */
  readonly contacts = { deleted: 0, conflicts: 0 };
  readonly createdContacts: string[] = [];

  /** `privacy.mask`: undo.csv and undo.json show the key and a masked field's values masked, as run's reports do. */
  readonly masker: Masker;

  constructor(dir: string, name: string, masker: Masker = NO_MASK) {
    this.masker = masker;
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    this.paths = undoPaths(dir, name);
    this.#csv = new CsvFile(this.paths.csv, UNDO_COLUMNS, true);
  }

  /** One contact's lines. Throws ReportWriteError. */
  add(result: UndoContactResult): void {
    const { error } = result;
    if (result.lines.length === 0 && error !== undefined) {
      this.lines.failed++;
      this.#csv.append([this.masker.key(result.key), result.contactId, 'contact', '', '', '', 'failed', error.code, this.masker.text(error.message, [result.key])]);
      return;
    }
    if (result.lines.some((line) => line.outcome === 'conflict')) this.contacts.conflicts++;
    for (const line of result.lines) {
      const failed = error !== undefined && (line.outcome === 'restored' || line.outcome === 'tagged-for-deletion' || line.outcome === 'deleted');
      if (line.outcome === 'deleted' && !failed) this.contacts.deleted++;
      const outcome: UndoLineOutcome = failed ? 'failed' : line.outcome;
      this.lines[outcome]++;
      // A created contact still to be deleted in the platform's interface (not one deleted already).
      if (line.action === 'tag-for-deletion' && line.to !== '') this.createdContacts.push(result.contactId);
      const { masker } = this;
      this.#csv.append([
        masker.key(result.key),
        result.contactId,
        line.action,
        line.field,
        masker.field(line.field, line.from),
        masker.field(line.field, line.to),
        outcome,
        failed ? error.code : '',
        masker.text(failed ? error.message : (line.message ?? ''), [result.key]),
      ]);
    }
  }

  /** Flushes and closes undo.csv; the write failure, if any. */
  closeLines(): ReportWriteError | undefined {
    return reportWriteFailure(() => this.#csv.close());
  }

  /** undo.json; the write failure, if any. */
  writeSummary(summary: UndoSummary): ReportWriteError | undefined {
    return reportWriteFailure(() => writeWhole(this.paths.summary, `${JSON.stringify(this.masker.deep(summary), null, 2)}\n`));
  }
}
