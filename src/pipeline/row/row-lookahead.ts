/**
 * Reads the input up to LOOKAHEAD_ROWS (64) rows ahead of the row loop, finds each row's key and
 * row hash, and reads what the state store knows of those keys in one transaction: on a re-run where
 * every row is unchanged, a read of the store per row (two statements, each its own read
 * transaction) cost more than the rest of the row. The row loop takes each row's mapping and the
 * store's answer from here.
 *
 * Unchanged rows by row hash. A row whose row hash (`map/row-hash.ts`) is the one the store holds
 * for its key maps to the draft the store last confirmed: `quick` settles it as `unchanged` with
 * no mapping, no draft hash and no parse of the stored fields, when nothing else of the job could
 * make the row do more (`settlesByRowHash`). Any other row is mapped, when the loop asks, and
 * decided in full.
 *
 * When the store's answer is still true. The store is written only by the rows of a key, in file
 * order (KeyLanes), each after the platform confirmed. So the batch reads only keys with no row
 * running or waiting (`busy`), and each key's answer is taken, once, by the first row of the key
 * the loop takes after the read: no row of the key can have written in between. A later row of the
 * same key finds no answer and reads the store itself, as every row did before.
 */
import { API_ERROR_CODES, type ApiErrorCode } from '../../api/errors.js';
import type { SurfaceName } from '../../api/platform-surface.js';
import type { Job } from '../../config/job-types.js';
import type { StoredContactBrief } from '../../state/contacts-table.js';
import { trustedOn, type StoredContact } from '../../state/known-contact.js';
import type { LookaheadStore } from '../../state/state-port.js';
import type { UncreatableRow } from '../../state/uncreatable-rows.js';
import { mapKey, mapRow } from '../map/map.js';
import { rowHash } from '../map/row-hash.js';
import type { MapResult } from '../map/contact-draft.js';
import type { SourceRecord, SourceRow } from '../source/source-record.js';
import type { KeyState } from './decide.js';
import { keyStateOf } from './key-facts.js';
import type { PriorReads } from './fresh-read.js';

/** Rows read ahead: one store transaction per this many rows. */
export const LOOKAHEAD_ROWS = 64;

/** The decision's fact about a key (`KeyState`) as read ahead, made only if the row that takes it asks. */
class KeyStateAhead {
  constructor(
    private readonly record: StoredContact | undefined,
    private readonly pending: boolean,
    private readonly surface: SurfaceName,
    private readonly priorReads: PriorReads | undefined,
  ) {}

  get state(): KeyState {
    return keyStateOf(this.pending, this.record, this.surface, this.priorReads);
  }
}

/** `take`'s answer for every key of a job without a store: no state. */
const NO_STORE = { state: undefined } as const;

/** No create pending: before a batch is read, or when its read failed. */
const NO_KEYS: ReadonlySet<string> = new Set();

/** The part of the state store the lookahead reads: the brief rows of a batch of keys, and the pending creates. */

export interface RowLookaheadOptions {
  readonly job: Job;
  /** The job's state store, the part read ahead (read only here); undefined with `state: false`. */
  readonly state: LookaheadStore | undefined;
  /** The surface of the run's api (`api.surface.name`): a key whose id came from another is never settled by its row hash. */
  readonly surface: SurfaceName;
  /** What the reconcile or undo right before this run read (`fresh-read.ts`): such a record's before is read. */
  readonly priorReads?: PriorReads;
  /** Whether the key belongs to this run (its shard): other keys are not read. */
  readonly mine: (key: string) => boolean;
  /** Whether a row of the key is running or waiting: its answer could change before it is taken. */
  readonly busy: (key: string) => boolean;
  /**
   * `mappingFingerprint` of the job and the input's header: each row's draft carries its row
   * hash, which the store records with the draft hash. Undefined: no row hash (a dry run).
   */
  readonly fingerprint?: string;
  /** `quick` may settle rows (see `settlesByRowHash`). @default false */
  readonly quick?: boolean;
  /** `uncreatable` may fail rows (see `rowHashSettling`). @default false */
  readonly quickUncreatable?: boolean;
  /** Whether the key is on one row of the input only (`onDuplicateRows` decides the others). @default always */
  readonly alone?: (key: string) => boolean;
  /** @default LOOKAHEAD_ROWS */
  readonly rows?: number;
}

/**
 * Whether an unchanged row of `job` can be settled by its row hash alone: a run that writes
 * (not a dry run), with a store it trusts (not `--full`), in a mode where a known, unchanged key
 * is `unchanged` (upsert, update), and no message (a message may be owed even to an unchanged row).
 */
export function settlesByRowHash(job: Pick<Job, 'mode' | 'message' | 'state'>, run: { readonly dryRun: boolean; readonly full: boolean }): boolean {
  return !run.dryRun && !run.full && job.state !== false && (job.mode === 'upsert' || job.mode === 'update') && job.message === undefined;
}

/**
 * The lookahead's options of what its row hashes settle: `quick` (`settlesByRowHash`), and
 * `quickUncreatable`: a row the surface could not create on the last run (no contact holds its key,
 * `recordUncreatable`), unchanged, fails again with no call, in a run that writes with a store it
 * trusts and may create (upsert, create); `--full` searches it again.
 */
export function rowHashSettling(job: Pick<Job, 'mode' | 'message' | 'state'>, run: { readonly dryRun: boolean; readonly full: boolean }): { quick: boolean; quickUncreatable: boolean } {
  const trusted = !run.dryRun && !run.full && job.state !== false;
  return { quick: settlesByRowHash(job, run), quickUncreatable: trusted && (job.mode === 'upsert' || job.mode === 'create') };
}

/** A row of the batch with a key: the key and the row's row hash (none without a fingerprint). */
interface KeyedRow {
  readonly key: string;
  readonly rowHash: string | undefined;
}

/** A row of the batch: its key and row hash, or why it has no key. */
type Prepared = KeyedRow | { readonly failed: MapResult };

export class RowLookahead {
  readonly #options: RowLookaheadOptions;
  readonly #size: number;
  #prepared = new Map<SourceRow, Prepared>();
  /**
   * The store's answer for each key of the current batch, until its first row takes it: the
   * key's brief row, or null when the store knows none of it (or the job has no store).
   */
  #known = new Map<string, StoredContactBrief | null>();
  /** The keys of the current batch's read with a create pending. */
  #pending = NO_KEYS;
  /** The marks of the current batch's keys the store knows no contact of (`quickUncreatable`). */
  #uncreatable = new Map<string, UncreatableRow>();
  /** Rows settled by `quick`. */
  #quickRows = 0;

  constructor(options: RowLookaheadOptions) {
    this.#options = options;
    this.#size = options.rows ?? options.state?.aheadRows ?? LOOKAHEAD_ROWS;
  }

  /** Rows `quick` settled so far. */
  get quickRows(): number {
    return this.#quickRows;
  }

  /** `records`, in order, read and prepared a batch at a time. */
  async *records(records: AsyncIterable<SourceRecord>): AsyncGenerator<SourceRecord, void, undefined> {
    const iterator = records[Symbol.asyncIterator]();
    try {
      for (;;) {
        const batch: SourceRecord[] = [];
        let done = false;
        while (batch.length < this.#size) {
          const next = await iterator.next();
          if (next.done === true) {
            done = true;
            break;
          }
          batch.push(next.value);
        }
        this.#prepare(batch);
        yield* batch;
        if (done) return;
      }
    } finally {
      this.#prepared = new Map();
      this.#known = new Map();
      this.#pending = NO_KEYS;
      this.#uncreatable = new Map();
      await iterator.return?.();
    }
  }

  /** The row's mapping, its draft with its row hash. */
  mapped(row: SourceRow): MapResult {
    const prepared = this.#prepared.get(row);
    if (prepared !== undefined && 'failed' in prepared) return prepared.failed;
    const result = mapRow(row, this.#options.job);
    const hash = prepared === undefined ? this.#rowHash(row) : prepared.rowHash;
    // A row written without a field (onInvalid: skip-field) keeps no row hash: each run maps it
    // again and reports the field until the file is fixed (the draft hash still spares the call);
    // so does a row whose tags differ only in case, for the run's warning, and a phone written
    // without its extension, named on every run.
    if (result.ok && hash !== undefined && result.draft.fieldsSkipped === undefined && result.draft.tagCaseVariants === undefined && result.draft.phoneExtensions === undefined) {
      result.draft.rowHash = hash;
    }
    return result;
  }

  /**
   * The key and contact of `row` when it is unchanged by its row hash and nothing else asks more
   * of it: the store's answer is taken (as `take` would), and the row needs no mapping.
   */
  quick(row: SourceRow): { key: string; contactId: string } | undefined {
    const prepared = this.#prepared.get(row);
    if (prepared === undefined || 'failed' in prepared) return undefined;
    const brief = this.#known.get(prepared.key);
    if (brief === undefined || brief === null || !this.#settles(prepared, brief, this.#pending.has(prepared.key))) return undefined;
    this.#known.delete(prepared.key);
    this.#quickRows++;
    return { key: prepared.key, contactId: brief.contactId };
  }

  /**
   * The key of `row` and why it fails with no call, when the surface could not create its contact
   * on the last run from the same row (same row hash, same surface), no contact holds its key, no
   * create is pending and nothing else asks more of it: the store's answer is taken.
   */
  uncreatable(row: SourceRow): { key: string; failure: UncreatableRow & { readonly code: ApiErrorCode } } | undefined {
    const prepared = this.#prepared.get(row);
    if (prepared === undefined || 'failed' in prepared || prepared.rowHash === undefined) return undefined;
    const mark = this.#uncreatable.get(prepared.key);
    const { surface, alone } = this.#options;
    if (mark === undefined || this.#known.get(prepared.key) !== null || this.#pending.has(prepared.key)) return undefined;
    if (mark.rowHash !== prepared.rowHash || !trustedOn(mark, surface) || !(alone?.(prepared.key) ?? true)) return undefined;
    // A code this version does not know (a newer one wrote it): the row runs as usual.
    const code = API_ERROR_CODES.find((known) => known === mark.code);
    if (code === undefined) return undefined;
    this.#known.delete(prepared.key);
    return { key: prepared.key, failure: { ...mark, code } };
  }

  /**
   * What the store knew of the key when its batch was read, for the first row of the key taken
   * since: the answer is handed out once. Undefined for any other row, when the read failed, and
   * for a key whose row `quick` was to settle (only its brief was read).
   */
  take(key: string): { readonly state: KeyState | undefined } | undefined {
    const brief = this.#known.get(key);
    if (brief === undefined) return undefined;
    this.#known.delete(key);
    if (this.#options.state === undefined) return NO_STORE;
    if (brief === null) return new KeyStateAhead(undefined, this.#pending.has(key), this.#options.surface, this.#options.priorReads);
    const record = brief.record();
    // Only the brief was read (its row was one for `quick` to settle): no half answer.
    return record === undefined ? undefined : new KeyStateAhead(record, this.#pending.has(key), this.#options.surface, this.#options.priorReads);
  }

  /** Whether the row that `prepared` is, first of its key in the batch, is settled by its row hash. */
  #settles(prepared: KeyedRow, brief: StoredContactBrief, pending: boolean): boolean {
    const { quick, alone, surface } = this.#options;
    // An id of another surface is matched again by its key field: the row is decided in full.
    return (
      quick === true && prepared.rowHash !== undefined && brief.rowHash === prepared.rowHash && trustedOn(brief, surface) && !brief.departed && !pending && (alone?.(prepared.key) ?? true)
    );
  }

  #rowHash(row: SourceRow): string | undefined {
    const { fingerprint } = this.#options;
    return fingerprint === undefined ? undefined : rowHash(fingerprint, row.cells);
  }

  #prepare(batch: readonly SourceRecord[]): void {
    const { job, state, mine, busy } = this.#options;
    const prepared = new Map<SourceRow, Prepared>();
    /** The first row of each key to read. */
    const keys = new Map<string, KeyedRow>();
    for (const record of batch) {
      if (record.kind !== 'row') continue;
      // The key alone (a row whose key fails is mapped whole, so that all its problems are named);
      // the others are mapped only when the loop asks (an unchanged row is never mapped).
      const key = mapKey(record, job);
      if (!key.ok) {
        // Mapped whole, so that the row's other problems are named with its key's (mapRow fails it).
        const mapped = mapRow(record, job);
        prepared.set(record, { failed: mapped.ok ? key : mapped });
        continue;
      }
      const row: KeyedRow = { key: key.value, rowHash: this.#rowHash(record) };
      prepared.set(record, row);
      if (!keys.has(key.value) && mine(key.value) && !busy(key.value)) keys.set(key.value, row);
    }
    this.#prepared = prepared;
    this.#read(state, keys);
  }

  /**
   * The store's answers for `keys` (each with its first row), read at once: the brief row of
   * each, and the whole record unless its row will be settled by its row hash. None when the read
   * fails (each row then reads for itself and meets the failure).
   */
  #read(state: LookaheadStore | undefined, keys: ReadonlyMap<string, KeyedRow>): void {
    const known = new Map<string, StoredContactBrief | null>();
    this.#known = known;
    this.#pending = NO_KEYS;
    this.#uncreatable = new Map();
    if (keys.size === 0) return;
    if (state === undefined) {
      for (const key of keys.keys()) known.set(key, null);
      return;
    }
    try {
      // Pending creates are few (a create whose answer was lost), so all of them are read.
      const pending = new Set(state.pendingCreates());
      const briefs = state.readAhead([...keys.keys()], (brief) => !this.#settles(keys.get(brief.key)!, brief, pending.has(brief.key)));
      for (const key of keys.keys()) known.set(key, briefs.get(key) ?? null);
      this.#pending = pending;
      if (this.#options.quickUncreatable === true) this.#uncreatable = state.uncreatableAhead([...keys.keys()].filter((key) => !briefs.has(key)));
    } catch {
      known.clear();
    }
  }
}
