/**
 * The `onDuplicateRows` stage of a run, between map and the row executor: each row that mapped
 * goes on as it is, goes on as the fold of its key's rows (`merge`), or ends here as a result
 * (`skipped` for a row another line wins, `failed` with DUPLICATE_ROWS under `fail`), with no
 * call. The policy is `map/duplicate-rows.ts`; the groups come from the first pass
 * (`source/repeated-keys.ts`). Only the drafts of repeated keys under `merge` are held, folded
 * into one per key, until the key's last row.
 */
import type { Job, OnDuplicateRows } from '../../config/job-types.js';
import { foldDraft, verdict } from '../map/duplicate-rows.js';
import { failedResult, skippedResult } from '../row/row-result.js';
import { scanRepeatedKeys, type RepeatedKeys } from '../source/repeated-keys.js';
import type { ContactDraft } from '../map/contact-draft.js';
import type { RowResult } from '../report/row-outcome.js';

export type DuplicateRowsOutput = { readonly kind: 'sync'; readonly draft: ContactDraft } | { readonly kind: 'done'; readonly result: RowResult };

export class DuplicateRowsStage {
  readonly #held = new Map<string, ContactDraft>();

  /**
   * The stage of `job`: the first pass reads the input (before any call). With `mode: message`
   * every row is a message of its own, and rows of one key all go on. `onKey` sees each row's
   * key as the first pass reads it (`scanRepeatedKeys`).
   */
  static async open(job: Job, onKey?: (key: string) => void): Promise<DuplicateRowsStage> {
    return new DuplicateRowsStage(job.mode === 'message' ? undefined : await scanRepeatedKeys(job, onKey), job.onDuplicateRows);
  }

  constructor(
    private readonly repeated: RepeatedKeys | undefined,
    private readonly policy: OnDuplicateRows,
  ) {}

  /** Whether `key` is on one row of the input only (no policy applies to it); asks nothing of the stage. */
  alone(key: string): boolean {
    return this.repeated === undefined || !this.repeated.mayRepeat(key);
  }

  /** Call once per row that mapped and belongs to the run, in file order. */
  take(draft: ContactDraft, cells: string[]): DuplicateRowsOutput {
    const group = this.repeated?.groupOf(draft.line, draft.key);
    if (group === undefined) return { kind: 'sync', draft };
    const decided = verdict(this.policy, group, draft.line, draft.key);
    switch (decided.kind) {
      case 'apply':
        return { kind: 'sync', draft };
      case 'skip':
        return { kind: 'done', result: skippedResult(draft, cells, decided.message) };
      case 'fold': {
        const earlier = this.#held.get(draft.key);
        this.#held.set(draft.key, earlier === undefined ? draft : foldDraft(earlier, draft));
        return { kind: 'done', result: skippedResult(draft, cells, decided.message) };
      }
      case 'apply-merged': {
        const earlier = this.#held.get(draft.key);
        this.#held.delete(draft.key);
        return { kind: 'sync', draft: earlier === undefined ? draft : foldDraft(earlier, draft) };
      }
      case 'fail':
        return { kind: 'done', result: failedResult(draft.line, draft.key, cells, 'DUPLICATE_ROWS', decided.message) };
    }
  }
}
