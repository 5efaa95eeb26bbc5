/**
 * The departed journal (table `departed`, schema version 4): the keys that left the input and
 * were acted on by `onMissing`, once each, with the action taken and, for action `tag`, the tags
 * it added (removed again if the key comes back). docs/state.md, "Keys that leave the file".
 *
 * A departure also changes the key's contact (`ContactsTable.applyDeparture`): `StateStore.
 * recordDeparture` makes the two one transaction. The contacts table's reads (`readAhead`,
 * `scanKeys`) tell whether a key is in this journal.
 */
import type Database from 'better-sqlite3';
import { parseTags } from './json-columns.js';
import type { IdSurface } from './known-contact.js';

export type DepartedAction = 'tag' | 'untag' | 'update';

/** What `onMissing` did to the contact of a key that left the input. */
export interface Departure {
  readonly contactId: string;
  /** The surface of the api that acted on the contact (`api.surface.name`): where `contactId` is valid. */
  readonly surface: IdSurface;
  readonly action: DepartedAction;
  /** Tags added (action tag): the ones a return of the key removes again. @default [] */
  readonly tagsAdded?: readonly string[];
  /** Tags removed (action untag). @default [] */
  readonly tagsRemoved?: readonly string[];
  /** Fields set (action update). @default {} */
  readonly fields?: Readonly<Record<string, string>>;
}

/** A key `onMissing` acted on, until it comes back. */
export interface DepartedRecord {
  readonly contactId: string;
  /** The surface `contactId` came from ('v1' for departures recorded before schema version 10). */
  readonly surface: IdSurface;
  readonly action: DepartedAction;
  /** The tags action tag added. */
  readonly tags: readonly string[];
  readonly departedAt: number;
}

interface DepartedRow {
  contact_id: string;
  surface: IdSurface;
  action: DepartedAction;
  tags_json: string;
  departed_at: number;
}

export class DepartedKeys {
  readonly #now: () => number;
  readonly #upsert: Database.Statement<[string, string, IdSurface, string, string, number]>;
  readonly #get: Database.Statement<[string], DepartedRow>;
  readonly #delete: Database.Statement<[string]>;
  readonly #count: Database.Statement<[], { n: number }>;
  readonly #deleteAll: Database.Statement<[]>;

  constructor(db: Database.Database, now: () => number) {
    this.#now = now;
    this.#upsert = db.prepare(
      `INSERT INTO departed (key, contact_id, surface, action, tags_json, departed_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (key) DO UPDATE SET contact_id = excluded.contact_id, surface = excluded.surface, action = excluded.action,
         tags_json = excluded.tags_json, departed_at = excluded.departed_at`,
    );
    this.#get = db.prepare('SELECT contact_id, surface, action, tags_json, departed_at FROM departed WHERE key = ?');
    this.#delete = db.prepare('DELETE FROM departed WHERE key = ?');
    this.#count = db.prepare('SELECT count(*) AS n FROM departed');
    this.#deleteAll = db.prepare('DELETE FROM departed');
  }

  /**
   * Journals the departure of `key` (acted on once), replacing an earlier one. One statement, with
   * no transaction of its own: `StateStore.recordDeparture` runs it with the contact's update.
   */
  record(key: string, departure: Departure): void {
    this.#upsert.run(key, departure.contactId, departure.surface, departure.action, JSON.stringify([...(departure.tagsAdded ?? [])].sort()), this.#now());
  }

  /** The journal's record of a key, if `onMissing` acted on it and it has not come back. */
  get(key: string): DepartedRecord | undefined {
    const row = this.#get.get(key);
    return row === undefined ? undefined : { contactId: row.contact_id, surface: row.surface, action: row.action, tags: parseTags(row.tags_json), departedAt: row.departed_at };
  }

  /** The key came back (its row was synced), or its contact is gone: a later departure acts again. */
  clear(key: string): void {
    this.#delete.run(key);
  }

  /** Keys departed and not come back since. */
  count(): number {
    return this.#count.get()?.n ?? 0;
  }

  /** Forgets every departure (`state reset --keep-messages`, in the store's transaction). */
  deleteAll(): void {
    this.#deleteAll.run();
  }
}
