/**
 * The reports of `reconcile` (docs/reconcile.md): `<job>.diff.csv`, one line per difference, as
 * the keys are compared; `<job>.reconcile.json`, the counts; `<job>.reconcile.html`, the same for a
 * person. Written like run's reports (`report.ts`): the CSV appended and flushed in whole lines,
 * owner-readable only, the JSON and the page each through a rename. Their own names, so a
 * reconcile into the nightly run's report folder never overwrites the run's files.
 */
import { mkdirSync } from 'node:fs';
import type { KeyComparison } from '../row/compare.js';
import type { KnownContact } from '../../state/known-contact.js';
import type { RowResult } from './row-outcome.js';
import { CsvFile, reportWriteFailure, writeWhole, type ReportWriteError } from './report.js';
import { renderReconcileHtml } from './reconcile-html.js';
import { NO_MASK, type Masker } from './mask.js';
import { differingKeys, reconcilePaths, type DiffAction, type DiffLine, type DiffStatus, type ReconcileFinishSummary, type ReconcilePaths, type ReconcileSummary } from './reconcile-summary.js';
import type { KeyFinish } from '../row/reconcile-row.js';

/** diff.csv's columns: the contract's six, then why a row of the file could not be compared. */
export const DIFF_COLUMNS = ['key', 'contact_id', 'status', 'field', 'file_value', 'platform_value', 'error_code', 'error_message'] as const;

/**
 * diff.csv's columns when reconcile writes (`--merge-duplicates`, `--tag-extras`): then `action`,
 * what its own writes did to the key. A reconcile that writes nothing keeps the columns it had.
 */
export const DIFF_COLUMNS_WITH_ACTION = [...DIFF_COLUMNS, 'action'] as const;

/** Lines of each status the page shows. */
const FIRST_LINES = 10;

type Counted = Exclude<keyof ReconcileSummary['keys'], 'inFile'>;

export class ReconcileReport {
  readonly paths: ReconcilePaths;
  readonly #diff: CsvFile;
  readonly #keys: Record<Counted, number> = { same: 0, differs: 0, missing: 0, extra: 0, duplicate: 0, failed: 0 };
  readonly #fields = new Map<string, number>();
  readonly #first = new Map<DiffStatus, DiffLine[]>();
  readonly #withAction: boolean;
  readonly #merges = { keys: 0, contactsMerged: 0, failed: 0 };
  readonly #tagExtras = { tagged: 0, alreadyTagged: 0, failed: 0 };

  /** `constructor`'s `masker`: diff.csv, reconcile.json and reconcile.html show masked values masked, as run's reports do. */
  readonly masker: Masker;

  /** `withAction`: reconcile writes (`--merge-duplicates`, `--tag-extras`): diff.csv has the `action` column. */
  constructor(dir: string, name: string, masker: Masker = NO_MASK, withAction = false) {
    this.masker = masker;
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    this.paths = reconcilePaths(dir, name);
    this.#withAction = withAction;
    this.#diff = new CsvFile(this.paths.diff, withAction ? DIFF_COLUMNS_WITH_ACTION : DIFF_COLUMNS, true);
  }

  /** A row of the file: its comparison's lines, or a `failed` line when it has none. Throws ReportWriteError. */
  add(result: RowResult, comparison: KeyComparison | undefined, finish?: KeyFinish): void {
    if (result.outcome === 'skipped') return; // another line of its key speaks for it (onDuplicateRows)
    if (comparison === undefined || result.outcome === 'failed') {
      this.#keys.failed++;
      this.#write({ key: result.key, contactId: result.contactId, status: 'failed', field: '', fileValue: '', platformValue: '', errorCode: result.errorCode, errorMessage: result.errorMessage, action: '' });
      return;
    }
    this.#keys[comparison.status]++;
    for (const line of diffLines(result.key, comparison)) this.#write(finish === undefined ? line : this.#finished(line, finish));
    if (comparison.status === 'differs') {
      const names = comparison.fields.map((field) => field.field);
      if (comparison.tagsToAdd.length + comparison.tagsToRemove.length > 0) names.push('tags');
      for (const name of names) this.#fields.set(name, (this.#fields.get(name) ?? 0) + 1);
    }
  }

  /**
   * A contact holding the prefetch marker whose key is not in the file; `tagged`: what
   * `--tag-extras` did to its contacts (the first failure's error on the line).
   */
  addExtra(key: string, contacts: readonly KnownContact[], tagged?: { readonly action: DiffAction; readonly error?: { readonly code: string; readonly message: string } }): void {
    this.#keys.extra++;
    if (tagged !== undefined) {
      if (tagged.action === 'tagged' || tagged.action === 'would-tag') this.#tagExtras.tagged += contacts.length;
      else if (tagged.action === 'already-tagged') this.#tagExtras.alreadyTagged += contacts.length;
      else this.#tagExtras.failed += contacts.length;
    }
    this.#write({ key, contactId: contacts.map((contact) => contact.id).join(';'), status: 'extra', field: '', fileValue: '', platformValue: '', errorCode: tagged?.error?.code ?? '', errorMessage: tagged?.error?.message ?? '', action: tagged?.action ?? '' });
  }

  /** reconcile.json `finish`: the counts of what the flags given wrote. */
  finishSummary(flags: { readonly dryRun: boolean; readonly merge: boolean; readonly tag: string | undefined }): ReconcileFinishSummary | undefined {
    if (!flags.merge && flags.tag === undefined) return undefined;
    return {
      dryRun: flags.dryRun,
      ...(flags.merge ? { merges: { ...this.#merges } } : {}),
      ...(flags.tag === undefined ? {} : { tagExtras: { tag: flags.tag, ...this.#tagExtras } }),
    };
  }

  /** A duplicate key's line, with what its merge did (the survivor first in `contact_id`). */
  #finished(line: DiffLine, finish: KeyFinish): DiffLine {
    if (finish.action === 'merge-failed') this.#merges.failed++;
    else {
      this.#merges.keys++;
      this.#merges.contactsMerged += finish.contactIds.length - 1;
    }
    return { ...line, contactId: finish.contactIds.join(';'), action: finish.action, errorCode: finish.error?.code ?? line.errorCode, errorMessage: finish.error?.message ?? line.errorMessage };
  }

  /** How many keys of each status so far. */
  get keys(): Readonly<Record<Counted, number>> {
    return this.#keys;
  }

  /** Keys whose file and platform disagree in any way. */
  get differences(): number {
    return differingKeys(this.#keys);
  }

  /** Per field, the keys that differ in it, most first. */
  fieldCounts(): Record<string, number> {
    return Object.fromEntries([...this.#fields].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])));
  }

  /** Flushes and closes diff.csv; the write failure, if any. */
  closeRows(): ReportWriteError | undefined {
    return reportWriteFailure(() => this.#diff.close());
  }

  /** The page, then reconcile.json last; the first write failure, if any. */
  writeSummary(summary: ReconcileSummary): ReportWriteError | undefined {
    return reportWriteFailure(() => {
      const shown = this.masker.deep(summary);
      writeWhole(this.paths.html, renderReconcileHtml({ summary: shown, first: this.#first, paths: this.paths, perStatus: FIRST_LINES }));
      writeWhole(this.paths.summary, `${JSON.stringify(shown, null, 2)}\n`);
    });
  }

  #write(whole: DiffLine): void {
    const { masker } = this;
    // privacy.mask: the key, a masked field's two values and the error's text, as changes.csv shows them.
    const line = !masker.active
      ? whole
      : {
          ...whole,
          key: masker.key(whole.key),
          fileValue: masker.field(whole.field, whole.fileValue),
          platformValue: masker.field(whole.field, whole.platformValue),
          errorMessage: masker.text(whole.errorMessage, [whole.key]),
        };
    const first = this.#first.get(line.status) ?? [];
    if (first.length < FIRST_LINES) this.#first.set(line.status, [...first, line]);
    const cells = [line.key, line.contactId, line.status, line.field, line.fileValue, line.platformValue, line.errorCode, line.errorMessage];
    this.#diff.append(this.#withAction ? [...cells, line.action ?? ''] : cells);
  }
}

/** The diff.csv lines of a compared key: none when it agrees. */
export function diffLines(key: string, comparison: KeyComparison): DiffLine[] {
  const line = { key, contactId: '', field: '', fileValue: '', platformValue: '', errorCode: '', errorMessage: '', action: '' as const };
  switch (comparison.status) {
    case 'same':
      return [];
    case 'missing': {
      // A key the surface cannot create: no run repairs it until the row changes, and the line says why.
      const why = comparison.cannotCreate;
      return [why === undefined ? { ...line, status: 'missing' } : { ...line, status: 'missing', errorCode: why.code, errorMessage: `${why.message} (a run fails this row until it changes)` }];
    }
    case 'duplicate':
      return [{ ...line, status: 'duplicate', contactId: comparison.contactIds.join(';') }];
    case 'differs': {
      const lines: DiffLine[] = comparison.fields.map((field) => ({
        ...line,
        status: 'differs',
        contactId: comparison.contactId,
        field: field.field,
        fileValue: field.fileValue,
        platformValue: field.platformValue,
      }));
      if (comparison.tagsToAdd.length + comparison.tagsToRemove.length > 0) {
        lines.push({ ...line, status: 'differs', contactId: comparison.contactId, field: 'tags', fileValue: comparison.tagsToAdd.join(';'), platformValue: comparison.tagsToRemove.join(';') });
      }
      return lines;
    }
  }
}
