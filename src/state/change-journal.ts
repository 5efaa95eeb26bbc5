/**
 * The change journal (docs/undo.md): every write the platform confirmed, under the id of the run
 * that made it. One line per call: a create or an update with each field's value before (what the
 * run read from the platform, or what the state knew when it wrote without reading; null: the
 * contact had no value) and after; a tags call with the tags it added or removed. A line is written
 * in its own transaction as soon as its call is confirmed, before the next call leaves, so a killed
 * run loses no line for a confirmed write. Each line says whether its "before" was read from the
 * platform in its run or taken from the state store unread: undo vouches only for what was read. `history` prints it, `undo` folds one run's lines into
 * what to put back, `state prune` drops the oldest runs' lines.
 */
import type Database from 'better-sqlite3';

export type ChangeOperation = 'create' | 'update' | 'add-tags' | 'remove-tags';

/** A field's value before the call (null: none) and the value written. */
export type FieldChange = readonly [before: string | null, after: string];

/**
 * One confirmed call, as the writer reports it. `beforeRead`: the values before (a field's, whether
 * a tag was there) were read from the platform in this run (a search, the prefetch pages, undo's
 * read), not taken from what the state store knew; always true for a create (nothing was before).
 */
export type ChangeEntry = (
  | { readonly operation: 'create' | 'update'; readonly fields: Readonly<Record<string, FieldChange>> }
  | { readonly operation: 'add-tags' | 'remove-tags'; readonly tags: readonly string[] }
) & { readonly beforeRead: boolean };

/** One line of the journal. */
export type ChangeLine = ChangeEntry & {
  readonly id: number;
  readonly runId: number;
  readonly key: string;
  readonly contactId: string;
  /** ms since the Unix epoch. */
  readonly recordedAt: number;
};

/** A `changes` row as stored (both adapters). */
export interface ChangeRow {
  id: number;
  run_id: number;
  key: string;
  contact_id: string;
  operation: ChangeOperation;
  changes_json: string;
  recorded_at: number;
  /** NULL for lines journalled before the column (schema 7): not known to be read. */
  before_read: number | null;
}

export class ChangeJournal {
  readonly #insert: Database.Statement<[number, string, string, ChangeOperation, string, number, number]>;
  readonly #keyOfRun: Database.Statement<[number, string], { one: number }>;
  readonly #createdBy: Database.Statement<[number], { one: number }>;
  readonly #runIdsBefore: Database.Statement<[number], { id: number }>;
  readonly #pruneRun: Database.Statement<[number]>;
  readonly #byRun: Database.Statement<[number], ChangeRow>;
  readonly #byKey: Database.Statement<[string], ChangeRow>;
  readonly #countByRun: Database.Statement<[number], { count: number }>;
  readonly #created: Database.Statement<[string, string], { one: number }>;
  readonly #prune: Database.Statement<[number]>;
  readonly #runsBefore: Database.Statement<[number], { count: number }>;
  readonly #count: Database.Statement<[], { count: number }>;
  readonly #deleteAll: Database.Statement<[]>;
  readonly #record: (runId: number, key: string, contactId: string, entry: ChangeEntry, at: number) => void;

  constructor(db: Database.Database) {
    this.#insert = db.prepare('INSERT INTO changes (run_id, key, contact_id, operation, changes_json, recorded_at, before_read) VALUES (?, ?, ?, ?, ?, ?, ?)');
    this.#keyOfRun = db.prepare('SELECT 1 AS one FROM changes WHERE run_id = ? AND key = ? LIMIT 1');
    this.#runIdsBefore = db.prepare('SELECT DISTINCT run_id AS id FROM changes WHERE run_id < ? ORDER BY run_id');
    this.#pruneRun = db.prepare('DELETE FROM changes WHERE run_id = ?');
    this.#createdBy = db.prepare("SELECT 1 AS one FROM changes WHERE run_id = ? AND operation = 'create' LIMIT 1");
    this.#byRun = db.prepare('SELECT * FROM changes WHERE run_id = ? ORDER BY id');
    this.#byKey = db.prepare('SELECT * FROM changes WHERE key = ? ORDER BY id');
    this.#countByRun = db.prepare('SELECT count(*) AS count FROM changes WHERE run_id = ?');
    this.#created = db.prepare("SELECT 1 AS one FROM changes WHERE key = ? AND contact_id = ? AND operation = 'create' LIMIT 1");
    this.#prune = db.prepare('DELETE FROM changes WHERE run_id < ?');
    this.#runsBefore = db.prepare('SELECT count(DISTINCT run_id) AS count FROM changes WHERE run_id < ?');
    this.#count = db.prepare('SELECT count(*) AS count FROM changes');
    this.#deleteAll = db.prepare('DELETE FROM changes');
    const record = db.transaction((runId: number, key: string, contactId: string, entry: ChangeEntry, at: number): void => {
      const changes = 'fields' in entry ? entry.fields : entry.tags;
      this.#insert.run(runId, key, contactId, entry.operation, JSON.stringify(changes), at, entry.beforeRead ? 1 : 0);
    });
    this.#record = (runId, key, contactId, entry, at) => record.immediate(runId, key, contactId, entry, at);
  }

  /** Journals one confirmed call of run `runId`, durably, in a transaction of its own. */
  record(runId: number, key: string, contactId: string, entry: ChangeEntry, at: number): void {
    this.#record(runId, key, contactId, entry, at);
  }

  /** The lines of one run, in the order their calls were confirmed. */
  forRun(runId: number): ChangeLine[] {
    return this.#byRun.all(runId).map(toChangeLine);
  }

  /** The lines of one key, over every run, oldest first. */
  forKey(key: string): ChangeLine[] {
    return this.#byKey.all(key).map(toChangeLine);
  }

  /** Whether some run journalled the create of `key`'s contact `contactId` (changes_by_key finds it). */
  hasCreate(key: string, contactId: string): boolean {
    return this.#created.get(key, contactId) !== undefined;
  }

  /** Whether run `runId` journalled a change of key `key`. */
  changedKey(runId: number, key: string): boolean {
    return this.#keyOfRun.get(runId, key) !== undefined;
  }

  /** Whether run `runId` created a contact (a migration's run): `state prune` keeps its lines unless asked. */
  created(runId: number): boolean {
    return this.#createdBy.get(runId) !== undefined;
  }

  /** How many lines run `runId` journalled. */
  countForRun(runId: number): number {
    return this.#countByRun.get(runId)?.count ?? 0;
  }

  /** Drops the lines of the runs before `runId`; returns how many. */
  pruneBefore(runId: number): number {
    return this.#prune.run(runId).changes;
  }

  /** The ids of the runs before `runId` that have lines, oldest first. */
  runIdsBefore(runId: number): number[] {
    return this.#runIdsBefore.all(runId).map((row) => row.id);
  }

  /** Drops the lines of run `runId`; returns how many. */
  pruneRun(runId: number): number {
    return this.#pruneRun.run(runId).changes;
  }

  /** How many runs before `runId` have lines. */
  runsBefore(runId: number): number {
    return this.#runsBefore.get(runId)?.count ?? 0;
  }

  /** How many lines the journal holds. */
  count(): number {
    return this.#count.get()?.count ?? 0;
  }

  /** Drops every line (`state reset --keep-messages`, with the runs they name, in the store's transaction). */
  deleteAll(): void {
    this.#deleteAll.run();
  }
}

export function toChangeLine(row: ChangeRow): ChangeLine {
  // A create had nothing before it; any other line is read only when it says so.
  const beforeRead = row.operation === 'create' || row.before_read === 1;
  const base = { id: row.id, runId: row.run_id, key: row.key, contactId: row.contact_id, recordedAt: row.recorded_at, beforeRead };
  const parsed: unknown = JSON.parse(row.changes_json);
  if (row.operation === 'add-tags' || row.operation === 'remove-tags') {
    return { ...base, operation: row.operation, tags: Array.isArray(parsed) ? parsed.map(String) : [] };
  }
  const fields: Record<string, FieldChange> = {};
  if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) {
    for (const [name, value] of Object.entries(parsed as Record<string, unknown>)) {
      if (Array.isArray(value)) fields[name] = [value[0] === null ? null : String(value[0]), String(value[1])];
    }
  }
  return { ...base, operation: row.operation, fields };
}
