/**
 * Reads the input a few hundred rows ahead of the row loop, maps them, and reads what the state
 * store knows of their keys in one transaction: on a nightly re-run where every row is unchanged,
 * a read of the store per row (two statements, each its own read transaction) cost more than the
 * rest of the row. The row loop takes each row's mapping and the store's answer from here.
 *
 * When the store's answer is still true. The store is written only by the rows of a key, in file
 * order (KeyLanes), each after the platform confirmed. So the batch reads only keys with no row
 * running or waiting (`busy`), and each key's answer is taken, once, by the first row of the key
 * the loop takes after the read: no row of the key can have written in between. A later row of the
 * same key finds no answer and reads the store itself, as every row did before.
 */
import type { Job } from '../../config/job-types.js';
import type { StateStore } from '../../state/state-store.js';
import { mapRow } from '../map/map.js';
import type { MapResult, SourceRecord, SourceRow } from '../types.js';
import type { KeyState } from './decide.js';
import { keyStateOf } from './sync-row.js';

/** Rows read ahead: one store transaction per this many rows. */
export const LOOKAHEAD_ROWS = 64;

/** What the store knew of a key when the batch was read; `state` is undefined for a job without a store. */
export interface KnownKey {
  readonly state: KeyState | undefined;
}

export interface RowLookaheadOptions {
  readonly job: Job;
  /** The job's state store (read only here); undefined with `state: false`. */
  readonly state: StateStore | undefined;
  /** Whether the key belongs to this run (its shard): other keys are not read. */
  readonly mine: (key: string) => boolean;
  /** Whether a row of the key is running or waiting: its answer could change before it is taken. */
  readonly busy: (key: string) => boolean;
  /** @default LOOKAHEAD_ROWS */
  readonly rows?: number;
}

export class RowLookahead {
  readonly #options: RowLookaheadOptions;
  readonly #size: number;
  /** The mapping of each row of the current batch. */
  #mapped = new Map<SourceRow, MapResult>();
  /** The store's answer for each key of the current batch, until its first row takes it. */
  #known = new Map<string, KnownKey>();

  constructor(options: RowLookaheadOptions) {
    this.#options = options;
    this.#size = options.rows ?? LOOKAHEAD_ROWS;
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
      this.#mapped = new Map();
      this.#known = new Map();
      await iterator.return?.();
    }
  }

  /** The row's mapping: made ahead for the current batch, else now. */
  mapped(row: SourceRow): MapResult {
    return this.#mapped.get(row) ?? mapRow(row, this.#options.job);
  }

  /**
   * What the store knew of the key when its batch was read, for the first row of the key taken
   * since: the answer is handed out once. Undefined for any other row, and when the read failed.
   */
  take(key: string): KnownKey | undefined {
    const known = this.#known.get(key);
    if (known !== undefined) this.#known.delete(key);
    return known;
  }

  #prepare(batch: readonly SourceRecord[]): void {
    const { job, state, mine, busy } = this.#options;
    const mapped = new Map<SourceRow, MapResult>();
    const keys = new Set<string>();
    for (const record of batch) {
      if (record.kind !== 'row') continue;
      const result = mapRow(record, job);
      mapped.set(record, result);
      if (result.ok && mine(result.draft.key) && !busy(result.draft.key)) keys.add(result.draft.key);
    }
    this.#mapped = mapped;
    this.#known = readKnown(state, keys);
  }
}

/** The store's answers for `keys`, read at once; none when the read fails (each row then reads for itself and meets the failure). */
function readKnown(state: StateStore | undefined, keys: ReadonlySet<string>): Map<string, KnownKey> {
  const known = new Map<string, KnownKey>();
  if (keys.size === 0) return known;
  if (state === undefined) {
    for (const key of keys) known.set(key, { state: undefined });
    return known;
  }
  try {
    // Pending creates are few (a create whose answer was lost), so all of them are read.
    const pending = new Set(state.pendingCreates());
    const contacts = state.getMany([...keys]);
    for (const key of keys) known.set(key, { state: keyStateOf(pending.has(key), contacts.get(key)) });
  } catch {
    known.clear();
  }
  return known;
}
