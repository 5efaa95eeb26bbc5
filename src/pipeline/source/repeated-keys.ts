/**
 * The first pass of `onDuplicateRows`: the file read before any call, CSV and key only (no full
 * mapping), to find the keys that are on more than one row, so the run knows, at a key's first
 * row, which of its rows wins. Once when no key repeats (the usual export), twice when some do.
 *
 * Memory stays flat: every key is a 64-bit fingerprint with its first line in a typed table
 * (`key-table.ts`, 13 bytes a slot); only the rows that repeat a fingerprint keep their real key
 * (a small set: the repeated keys), with their lines. The real key is what decides: two keys that
 * share a fingerprint are never taken for one, so no row is skipped for another key's row.
 */
import type { Job } from '../../config/job-types.js';
import { keyOfMappableRow, mapKey } from '../map/map.js';
import { LISTED_LINES, type KeyGroup } from '../map/duplicate-rows.js';
import { openCheckedSource } from './checked-source.js';
import { KeyTable } from './key-table.js';

/** The rows after the first of a fingerprint that have this real key. */
interface LaterRows {
  /** Set by the second pass when it meets the key's own first row (the fingerprint's first sighting). */
  first?: number;
  /** The first lines of them, to name in messages. */
  lines: number[];
  count: number;
  last: number;
  /** Whether the first of `lines` fails in mapping, and whether the last row noted does. */
  firstNotedFails: boolean;
  lastFails: boolean;
}

export class RepeatedKeys {
  /** `table` is for tests (a table whose keys collide). */
  constructor(private readonly table: KeyTable = new KeyTable()) {}
  readonly #later = new Map<string, LaterRows>();
  /** The keys whose fingerprint's first row (their own first row) fails in mapping. */
  readonly #firstFails = new Set<string>();

  /**
   * First pass: a row whose key maps, with its key, in file order; `fails` when the row itself
   * will fail in mapping (a bad email): it is one of its key's rows all the same (issue 41: a
   * failing winner fails the key, it does not hand it to another row).
   */
  note(line: number, key: string, fails = false): void {
    if (this.table.sight(key, line) === 0) {
      if (fails) this.#firstFails.add(key);
      return;
    }
    let later = this.#later.get(key);
    if (later === undefined) {
      later = { lines: [], count: 0, last: line, firstNotedFails: fails, lastFails: fails };
      this.#later.set(key, later);
    }
    if (later.lines.length < LISTED_LINES) later.lines.push(line);
    later.count++;
    later.last = line;
    later.lastFails = fails;
  }

  /** No key is on more than one row: the second pass has nothing to do. */
  get none(): boolean {
    return this.#later.size === 0;
  }

  /** Whether `key` may be on more than one row (its fingerprint is: a key sharing it is refused too). */
  mayRepeat(key: string): boolean {
    return this.table.lookup(key)?.repeated === true;
  }

  /**
   * Second pass, once per row that maps, in file order: the group of the key of the row on `line`,
   * or undefined when the key is on this row only. Rows of the group after its last are not asked
   * for (the group is forgotten then, to free its memory).
   */
  groupOf(line: number, key: string): KeyGroup | undefined {
    const seen = this.table.lookup(key);
    if (seen === undefined || !seen.repeated) return undefined;
    const later = this.#later.get(key);
    if (later === undefined) return undefined;
    // The fingerprint's first row has this very key: it is the key's first row. (Another key
    // sharing the fingerprint would find no LaterRows of its own, or not at its line.)
    if (line === seen.first) later.first = line;
    const count = later.count + (later.first === undefined ? 0 : 1);
    if (count < 2) return undefined;
    const lines = later.first === undefined ? later.lines : [later.first, ...later.lines].slice(0, LISTED_LINES);
    if (line === later.last) {
      this.#later.delete(key);
      this.#firstFails.delete(key);
    }
    const firstFails = later.first === undefined ? later.firstNotedFails : this.#firstFails.has(key);
    return { first: lines[0] ?? line, last: later.last, count, lines, ...(firstFails ? { firstFails } : {}), ...(later.lastFails ? { lastFails: true } : {}) };
  }
}

/**
 * Reads the job's input and notes every row of a repeated key whose key maps; undefined when no
 * key is on two rows. Most exports hold each key once, so a first read takes the key alone (no
 * check of the row's other values: the email and phone checks cost as much as the reading): when
 * no key repeats, that is the whole pass. Otherwise a second read notes the rows of the keys that
 * repeated, each checked as `keyOfMappableRow` checks it: a row that will fail is one of its key's
 * rows all the same, noted as failing, so a failing winner fails the key as a whole instead of
 * handing it to a row it supersedes (issue 41).
 *
 * `onKey` sees the key of every row of the first read whose key maps (a key on several rows, once
 * a row): the run counts there, at no extra read, the keys its state store does not know
 * (`match.prefetch`'s choice, `row/prefetch-choice.ts`).
 */
export async function scanRepeatedKeys(job: Job, onKey?: (key: string) => void): Promise<RepeatedKeys | undefined> {
  const candidates = await keysSeenTwice(job, onKey);
  if (candidates.size === 0) return undefined;
  const repeated = new RepeatedKeys();
  const source = await openCheckedSource(job);
  for await (const record of source.records) {
    if (record.kind === 'malformed') continue;
    const key = mapKey(record, job);
    if (!key.ok || !candidates.has(key.value)) continue;
    repeated.note(record.line, key.value, keyOfMappableRow(record, job) === undefined);
  }
  return repeated.none ? undefined : repeated;
}

/**
 * The keys read on more than one row, whatever their rows' other values. A fingerprint seen
 * before adds the real key, so a key that only shares a fingerprint with another is checked on
 * the second read and found alone there.
 */
async function keysSeenTwice(job: Job, onKey: ((key: string) => void) | undefined): Promise<Set<string>> {
  const sightings = new KeyTable();
  const twice = new Set<string>();
  const source = await openCheckedSource(job);
  for await (const record of source.records) {
    if (record.kind === 'malformed') continue;
    const key = mapKey(record, job);
    if (!key.ok) continue;
    onKey?.(key.value);
    if (sightings.sight(key.value, 0) !== 0) twice.add(key.value);
  }
  return twice;
}
