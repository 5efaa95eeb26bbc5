/**
 * The message journal (docs/messages.md): the messages sent, or maybe sent, to each contact, by
 * hash of the rendered message (table `messages`), and the keys whose row owes a message that has
 * not left yet (table `messages_due`, schema version 2; docs/reliability.md, "Messages journalled
 * when they leave"). It is what keeps a message at most once across a kill and a re-run.
 *
 * `record` and `markDue` are single statements that the store commits fsynced (`StateStore`'s
 * `synchronous = FULL` writes): a lost mark could send a message twice, or lose a greeting.
 */
import type Database from 'better-sqlite3';

/** `sent`: the platform accepted it. `unknown`: it may have been delivered (or is being sent). */
export type MessageStatus = 'sent' | 'unknown';

export class MessageJournal {
  readonly #now: () => number;
  readonly #get: Database.Statement<[string, string], { status: MessageStatus }>;
  readonly #getRecord: Database.Statement<[string, string], { status: MessageStatus; recordedAt: number }>;
  readonly #upsert: Database.Statement<[string, string, MessageStatus, number]>;
  readonly #delete: Database.Statement<[string, string]>;
  readonly #count: Database.Statement<[], { n: number }>;
  readonly #markDue: Database.Statement<[string, number]>;
  readonly #isDue: Database.Statement<[string], { one: number }>;
  readonly #clearDue: Database.Statement<[string]>;

  constructor(db: Database.Database, now: () => number) {
    this.#now = now;
    this.#get = db.prepare('SELECT status FROM messages WHERE contact_id = ? AND message_hash = ?');
    this.#getRecord = db.prepare('SELECT status, recorded_at AS recordedAt FROM messages WHERE contact_id = ? AND message_hash = ?');
    this.#upsert = db.prepare(
      `INSERT INTO messages (contact_id, message_hash, status, recorded_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (contact_id, message_hash) DO UPDATE SET status = excluded.status, recorded_at = excluded.recorded_at`,
    );
    this.#delete = db.prepare('DELETE FROM messages WHERE contact_id = ? AND message_hash = ?');
    this.#count = db.prepare('SELECT count(*) AS n FROM messages');
    this.#markDue = db.prepare('INSERT INTO messages_due (key, recorded_at) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET recorded_at = excluded.recorded_at');
    this.#isDue = db.prepare('SELECT 1 AS one FROM messages_due WHERE key = ?');
    this.#clearDue = db.prepare('DELETE FROM messages_due WHERE key = ?');
  }

  /** True when this message was recorded for this contact, as `sent` or `unknown`. */
  sent(contactId: string, messageHash: string): boolean {
    return this.#get.get(contactId, messageHash) !== undefined;
  }

  /** Records a message to a contact as `status`, replacing an earlier record (the store fsyncs it). */
  record(contactId: string, messageHash: string, status: MessageStatus): void {
    this.#upsert.run(contactId, messageHash, status, this.#now());
  }

  /** The record of this message to this contact, and when it was made. */
  recordOf(contactId: string, messageHash: string): { status: MessageStatus; recordedAt: number } | undefined {
    return this.#getRecord.get(contactId, messageHash);
  }

  /** Removes the record of a message that surely was not delivered. */
  forget(contactId: string, messageHash: string): void {
    this.#delete.run(contactId, messageHash);
  }

  /** Messages recorded as sent or maybe sent. */
  count(): number {
    return this.#count.get()?.n ?? 0;
  }

  /** The row of `key` owes a message (the store fsyncs it, before the row's writes). */
  markDue(key: string): void {
    this.#markDue.run(key, this.#now());
  }

  /** True when the row of `key` owes a message an earlier run did not send. */
  isDue(key: string): boolean {
    return this.#isDue.get(key) !== undefined;
  }

  /** The row's message left (or was settled): the key owes none. */
  clearDue(key: string): void {
    this.#clearDue.run(key);
  }
}
