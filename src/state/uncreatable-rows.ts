/**
 * The rows the platform's surface could not create (table `uncreatable_rows`, schema version 13):
 * a key no contact holds whose row failed before any call because the surface cannot create its
 * contact (API v2 without an email or a phone, `V2_CANNOT_CREATE`), with the row hash of that row,
 * the surface and the reason. A later run's row of the key with the same row hash on the same
 * surface fails again with no call (issue 41; docs/state.md, "Rows the surface cannot create");
 * a changed row, another surface or `--full` searches again. A contact recorded for the key drops
 * its mark.
 */
import type Database from 'better-sqlite3';
import type { IdSurface } from './known-contact.js';

/** Why a row of the key could not be created, and the row that could not be. */
export interface UncreatableRow {
  readonly rowHash: string;
  /** The surface that could not create it (`api.surface.name`). */
  readonly surface: IdSurface;
  /** The failure's code and sentence, as the row was reported. */
  readonly code: string;
  readonly message: string;
}

/** Keys read by one statement of `readAhead`. */
const READ_AHEAD_KEYS = 64;

export class UncreatableRows {
  readonly #db: Database.Database;
  readonly #now: () => number;
  readonly #upsert: Database.Statement<[string, string, IdSurface, string, string, number]>;
  readonly #delete: Database.Statement<[string]>;
  readonly #deleteAll: Database.Statement<[]>;
  readonly #count: Database.Statement<[], { n: number }>;
  readonly #statements = new Map<number, Database.Statement<string[], { key: string; row_hash: string; surface: IdSurface; code: string; message: string }>>();
  /** Whether the table may hold a mark: a store that never had one reads and deletes nothing. */
  #any: boolean;

  constructor(db: Database.Database, now: () => number) {
    this.#db = db;
    this.#now = now;
    this.#upsert = db.prepare(
      `INSERT INTO uncreatable_rows (key, row_hash, surface, code, message, recorded_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (key) DO UPDATE SET row_hash = excluded.row_hash, surface = excluded.surface, code = excluded.code,
         message = excluded.message, recorded_at = excluded.recorded_at`,
    );
    this.#delete = db.prepare('DELETE FROM uncreatable_rows WHERE key = ?');
    this.#deleteAll = db.prepare('DELETE FROM uncreatable_rows');
    this.#count = db.prepare('SELECT count(*) AS n FROM uncreatable_rows');
    this.#any = this.count() > 0;
  }

  record(key: string, row: UncreatableRow): void {
    this.#upsert.run(key, row.rowHash, row.surface, row.code, row.message, this.#now());
    this.#any = true;
  }

  /** The marks of `keys` (those that have one). */
  readAhead(keys: readonly string[]): Map<string, UncreatableRow> {
    const marks = new Map<string, UncreatableRow>();
    if (!this.#any) return marks;
    for (let start = 0; start < keys.length; start += READ_AHEAD_KEYS) {
      const some = keys.slice(start, start + READ_AHEAD_KEYS);
      for (const row of this.#statement(some.length).all(...some)) {
        marks.set(row.key, { rowHash: row.row_hash, surface: row.surface, code: row.code, message: row.message });
      }
    }
    return marks;
  }

  delete(key: string): void {
    if (this.#any) this.#delete.run(key);
  }

  deleteAll(): void {
    this.#deleteAll.run();
    this.#any = false;
  }

  /** Whether the table may hold a mark, read again (after an import wrote the table). */
  recount(): void {
    this.#any = this.count() > 0;
  }

  count(): number {
    return this.#count.get()?.n ?? 0;
  }

  #statement(count: number): Database.Statement<string[], { key: string; row_hash: string; surface: IdSurface; code: string; message: string }> {
    let statement = this.#statements.get(count);
    if (statement === undefined) {
      statement = this.#db.prepare(`SELECT key, row_hash, surface, code, message FROM uncreatable_rows WHERE key IN (${new Array(count).fill('?').join(', ')})`);
      this.#statements.set(count, statement);
    }
    return statement;
  }
}
