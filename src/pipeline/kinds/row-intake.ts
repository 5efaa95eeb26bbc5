/**
 * The intake of a run: each record the reader gives is classified once, in file order, as
 * another shard's (not this run's), a row that ends here without the API (unreadable, settled by
 * its row hash, failed in mapping, decided by onDuplicateRows, or needing no call), or a row to
 * dispatch. On the way it notes every key read (for `onMissing`'s departed step) and takes each
 * key's state read ahead. The rules are the stages' own (`row/row-lookahead.ts`,
 * `duplicate-rows-stage.ts`, and the kind's `settle`: `row/sync-row.ts` `settleWithoutCalls` for
 * `run`); this file only orders them.
 */
import type { Job } from '../../config/job-types.js';
import type { DuplicateRowsStage } from './duplicate-rows-stage.js';
import type { JobAbortError } from '../job-abort.js';
import type { KeySighting } from './key-sighting.js';
import { keyCellOf, mapKey } from '../map/map.js';
import type { RowLookahead } from '../row/row-lookahead.js';
import type { KeyState } from '../row/decide.js';
import { failedResult, unchangedResult, uncreatableResult } from '../row/row-result.js';
import type { RowSync } from '../row/sync-row.js';
import type { ContactDraft } from '../map/contact-draft.js';
import type { RowResult } from '../report/row-outcome.js';
import type { SourceRecord, SourceRow } from '../source/source-record.js';

/** What becomes of a record. */
export type IntakeDecision =
  /** Another shard's row: not this run's at all. */
  | { readonly kind: 'not-mine' }
  /** A row of this run that ends here, with no call; `abort` when settling it met one. */
  | { readonly kind: 'ended'; readonly result: RowResult; readonly abort?: JobAbortError }
  /** A row of this run that needs the API. */
  | { readonly kind: 'dispatch'; readonly draft: ContactDraft; readonly cells: string[] };

const NOT_MINE: IntakeDecision = { kind: 'not-mine' };

export class RowIntake {
  readonly #keyColumn: number;

  constructor(
    private readonly stages: {
      readonly job: Job;
      readonly ahead: RowLookahead;
      readonly duplicates: DuplicateRowsStage;
      /** Whether a key belongs to this run (its shard). */
      readonly mine: (key: string) => boolean;
      /** With `onMissing`: every key read, a failed row's included. */
      readonly seen: KeySighting | undefined;
      readonly header: readonly string[];
      /**
       * The kind's rule for a row that needs no call, given its key's state read ahead: the row
       * settled here, or undefined when it needs the kind's work (`run`: `settleWithoutCalls`).
       * Absent: every row that maps goes to the kind's work. @default none
       */
      readonly settle?: ((draft: ContactDraft, cells: string[], known: KeyState | undefined) => RowSync | undefined) | undefined;
    },
  ) {
    this.#keyColumn = stages.header.indexOf(stages.job.key.column);
  }

  /** `idle`: no row is in flight, so a row that needs no call may settle now and keep the reports in order. */
  classify(record: SourceRecord, idle: boolean): IntakeDecision {
    const { job, ahead, duplicates, mine, seen, settle } = this.stages;
    if (record.kind === 'malformed') {
      const key = keyCellOf(record, job, this.#keyColumn);
      if (seen !== undefined) seeKey(seen, key);
      // Sharded as a row without a key (shard.ts), but reported with the key it shows, so a person
      // finds the contact in results.csv, the HTML report and diff.csv.
      if (!mine('')) return NOT_MINE;
      const result = failedResult(record.line, key, record.cells, record.code, record.message);
      if (record.openQuote !== undefined) result.openQuote = record.openQuote;
      return { kind: 'ended', result };
    }
    // An unchanged row of a re-run, known by its row hash, is settled without being mapped, even
    // while other rows are in flight (their keys were not read ahead, so none is settled here;
    // results.csv is in the order rows finish, docs/reports.md).
    const quick = ahead.quick(record);
    if (quick !== undefined) {
      if (seen !== undefined) seeKey(seen, quick.key);
      return { kind: 'ended', result: unchangedResult(record.line, quick.key, record.cells, quick.contactId) };
    }
    // A row the surface could not create on the last run, unchanged since: it fails again, with no call.
    const uncreatable = ahead.uncreatable(record);
    if (uncreatable !== undefined) {
      if (seen !== undefined) seeKey(seen, uncreatable.key);
      return { kind: 'ended', result: uncreatableResult(record.line, uncreatable.key, record.cells, uncreatable.failure) };
    }
    const mapped = ahead.mapped(record);
    if (seen !== undefined) seeKey(seen, mapped.ok ? mapped.draft.key : unmappedKey(record, job));
    if (!mapped.ok) {
      const key = keyCellOf(record, job, this.#keyColumn);
      if (!mine(key)) return NOT_MINE;
      return { kind: 'ended', result: failedResult(record.line, key, record.cells, mapped.error.code, mapped.error.message) };
    }
    if (!mine(mapped.draft.key)) return NOT_MINE;
    // A row that another line of its key wins (or takes in) ends here, with no call.
    const taken = duplicates.take(mapped.draft, record.cells);
    if (taken.kind === 'done') return { kind: 'ended', result: taken.result };
    const { draft } = taken;
    // A row that needs no call (unchanged on a re-run) is settled here, without a promise, when
    // no row is in flight (so the reports keep the order they had).
    const known = ahead.take(draft.key);
    const settled = known !== undefined && idle && settle !== undefined ? settle(draft, record.cells, known.state) : undefined;
    if (settled !== undefined) return { kind: 'ended', result: settled.result, ...(settled.abort === undefined ? {} : { abort: settled.abort }) };
    return { kind: 'dispatch', draft, cells: record.cells };
  }
}

function seeKey(seen: KeySighting, key: string): void {
  if (key !== '') seen.seenBefore(key);
}

/** The key of a row that did not map: as the mapper makes it (an email key lowercased...) when the key itself is fine, else the cell. */
function unmappedKey(record: SourceRow, job: Job): string {
  const key = mapKey(record, job);
  return key.ok ? key.value : keyCellOf(record, job, -1);
}
