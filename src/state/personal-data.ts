/**
 * Retention and erasure over the tables that hold people's values (issue 45; docs/personal-data.md):
 * the change journal's lines of runs past `retention.journal`, and every row that names one key
 * (an erasure request, `contact-sync forget`). Statements only, with no transaction of their own:
 * `StateStore` runs each in one, then checkpoints the WAL so that no deleted value stays readable
 * in the file or its -wal (`secure_delete` zeroes what a delete frees; docs/decisions.md,
 * "Personal data leaves the file").
 */
import type Database from 'better-sqlite3';

/** What one key's erasure found and removed. */
export interface KeyErasure {
  /** The key's contact id in the contacts table, else in its departure, else in its change lines. */
  readonly contactId: string | undefined;
  /** Counts by kind, only the kinds that held something. */
  readonly removed: Record<string, number>;
  /** The runs whose change lines named the key, oldest first. */
  readonly runIds: number[];
}

export class PersonalData {
  readonly #expiringRuns: Database.Statement<[number], { count: number }>;
  readonly #expire: Database.Statement<[number]>;
  readonly #contactOf: Database.Statement<[string], { contact_id: string }>;
  readonly #departedOf: Database.Statement<[string], { contact_id: string }>;
  readonly #linesOf: Database.Statement<[string], { run_id: number; contact_id: string }>;
  readonly #deleteMessages: Database.Statement<[string]>;
  /** By kind (as `ErasedKey.removed` names it): the statement deleting the key's rows. */
  readonly #byKey: ReadonlyArray<readonly [kind: string, statement: Database.Statement<[string]>]>;

  constructor(db: Database.Database) {
    const ofRunsBefore = 'SELECT id FROM runs WHERE started_at < ?';
    this.#expiringRuns = db.prepare(`SELECT count(DISTINCT run_id) AS count FROM changes WHERE run_id IN (${ofRunsBefore})`);
    this.#expire = db.prepare(`DELETE FROM changes WHERE run_id IN (${ofRunsBefore})`);
    this.#contactOf = db.prepare('SELECT contact_id FROM contacts WHERE key = ?');
    this.#departedOf = db.prepare('SELECT contact_id FROM departed WHERE key = ?');
    this.#linesOf = db.prepare('SELECT DISTINCT run_id, contact_id FROM changes WHERE key = ? ORDER BY run_id');
    this.#deleteMessages = db.prepare('DELETE FROM messages WHERE contact_id = ?');
    this.#byKey = [
      ['record', db.prepare('DELETE FROM contacts WHERE key = ?')],
      ['pendingCreate', db.prepare('DELETE FROM pending_creates WHERE key = ?')],
      ['messageDue', db.prepare('DELETE FROM messages_due WHERE key = ?')],
      ['departure', db.prepare('DELETE FROM departed WHERE key = ?')],
      ['absentRead', db.prepare('DELETE FROM absent_reads WHERE key = ?')],
      ['uncreatable', db.prepare('DELETE FROM uncreatable_rows WHERE key = ?')],
      ['changeLines', db.prepare('DELETE FROM changes WHERE key = ?')],
    ];
  }

  /** Deletes the change lines of every run started before `before`; returns how many runs had lines and how many lines went. */
  expireBefore(before: number): { runs: number; lines: number } {
    const runs = this.#expiringRuns.get(before)?.count ?? 0;
    const lines = runs === 0 ? 0 : this.#expire.run(before).changes;
    return { runs, lines };
  }

  /**
   * Deletes every row of `key`, and the message records of every contact id the store knew for it
   * (its record's, its departure's, its change lines'): a message is journalled by contact id.
   */
  erase(key: string): KeyErasure {
    const lines = this.#linesOf.all(key);
    const record = this.#contactOf.get(key)?.contact_id;
    const departed = this.#departedOf.get(key)?.contact_id;
    const contactIds = new Set([record, departed, ...lines.map((line) => line.contact_id)].filter((id): id is string => id !== undefined));
    const removed: Record<string, number> = {};
    for (const [kind, statement] of this.#byKey) {
      const count = statement.run(key).changes;
      if (count > 0) removed[kind] = count;
    }
    let messages = 0;
    for (const id of contactIds) messages += this.#deleteMessages.run(id).changes;
    if (messages > 0) removed.messages = messages;
    const runIds = [...new Set(lines.map((line) => line.run_id))];
    return { contactId: record ?? departed ?? lines[0]?.contact_id, removed, runIds };
  }
}
