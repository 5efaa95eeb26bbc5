/**
 * The message journal (docs/messages.md): the messages sent, or maybe sent, to each contact, by
 * hash of the rendered message (table `messages`), and the keys whose row owes a message that has
 * not left yet (table `messages_due`, schema version 2; docs/reliability.md, "Messages journalled
 * when they leave"). It is what keeps a message at most once across a kill and a re-run, and on
 * API v2 exactly once: a send recorded `sent` keeps the platform's `messageId` (schema version 12).
 *
 * `record` and `markDue` are single statements that the store commits fsynced (`StateStore`'s
 * `synchronous = FULL` writes): a lost mark could send a message twice, or lose a greeting.
 */
import type Database from 'better-sqlite3';

/** `sent`: the platform accepted it. `unknown`: it may have been delivered (or is being sent). */
export type MessageStatus = 'sent' | 'unknown';

/** The journal's record of one message to one contact. */
export interface MessageRecord {
  readonly status: MessageStatus;
  /** When it was recorded (ms since the epoch): for `unknown`, when the send left. */
  readonly recordedAt: number;
  /** The platform's id of the message (API v2's sends); null when none is known. */
  readonly messageId: string | null;
}

export class MessageJournal {
  readonly #now: () => number;
  readonly #get: Database.Statement<[string, string], { status: MessageStatus }>;
  readonly #getRecord: Database.Statement<[string, string], MessageRecord>;
  readonly #upsert: Database.Statement<[string, string, MessageStatus, number, string | null]>;
  readonly #delete: Database.Statement<[string, string]>;
  readonly #count: Database.Statement<[], { n: number }>;
  readonly #markDue: Database.Statement<[string, number]>;
  readonly #isDue: Database.Statement<[string], { one: number }>;
  readonly #clearDue: Database.Statement<[string]>;

  constructor(db: Database.Database, now: () => number) {
    this.#now = now;
    this.#get = db.prepare('SELECT status FROM messages WHERE contact_id = ? AND message_hash = ?');
    this.#getRecord = db.prepare('SELECT status, recorded_at AS recordedAt, message_id AS messageId FROM messages WHERE contact_id = ? AND message_hash = ?');
    this.#upsert = db.prepare(
      `INSERT INTO messages (contact_id, message_hash, status, recorded_at, message_id) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (contact_id, message_hash) DO UPDATE SET status = excluded.status, recorded_at = excluded.recorded_at, message_id = excluded.message_id`,
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

  /**
   * Records a message to a contact as `status`, with the platform's `messageId` when one is known,
   * replacing an earlier record (the store fsyncs it).
   */
  record(contactId: string, messageHash: string, status: MessageStatus, messageId?: string): void {
    this.#upsert.run(contactId, messageHash, status, this.#now(), messageId ?? null);
  }

  /** The record of this message to this contact, when it was made, and its messageId. */
  recordOf(contactId: string, messageHash: string): MessageRecord | undefined {
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
