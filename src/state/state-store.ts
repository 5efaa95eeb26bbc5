/**
 * The per-job memory of what the platform confirmed: key -> contact id, the field values and tags
 * last written, the hash of the last draft written in full, creates and messages whose outcome is
 * not known, and a journal of runs. It lets a nightly run skip unchanged rows with no API call and
 * update changed ones by id with no search.
 *
 * Durability: the file is in WAL mode. A committed transaction is in the WAL (handed to the
 * kernel by write(2)) before the commit returns, so a kill of the process at any instant loses no
 * committed transaction and never leaves a half-written one: each method below is one
 * transaction. `synchronous = NORMAL` skips the fsync per commit; it only risks the last commits
 * on a power loss or kernel crash, and the file stays consistent even then. Losing a confirmed
 * write costs a search on the next run, nothing more, so NORMAL is enough for it. Losing a
 * "create pending" or a message mark could duplicate a contact or a message, so those two
 * records commit with `synchronous = FULL` (fsync of the WAL before the call returns).
 */
import type Database from 'better-sqlite3';
import { migrate, SCHEMA_VERSION } from './schema.js';
import { prepareStateFile, removeStateFiles } from './state-file.js';
import { StateStoreError, resetCommand } from './state-store-error.js';
import { openSqliteDatabase, SqliteBindingError } from './sqlite-database.js';

export interface StateStoreOptions {
  /** The job that owns the file; recorded in the file and shown by `state show`. */
  readonly job: string;
  /**
   * The custom field whose values are the keys. A file recorded for another key field is refused
   * (its keys would name other contacts).
   */
  readonly keyField: string;
  /** Clock for `updatedAt` and the like, in milliseconds since the Unix epoch. @default Date.now */
  readonly now?: () => number;
}

/** What the platform confirmed for one key. */
export interface StoredContact {
  readonly key: string;
  readonly contactId: string;
  /** Custom field name -> value last confirmed written, merged over every write to this contact. */
  readonly fields: Readonly<Record<string, string>>;
  /** Tags confirmed present (added and not removed since), sorted. */
  readonly tags: readonly string[];
  /**
   * The tags this job added to the contact and has not removed since, sorted (`tags.prune`
   * removes those its row no longer carries); null for keys recorded before the store knew them.
   */
  readonly jobTags: readonly string[] | null;
  /** `draftHash` of the last draft written in full; null when the last write was partial. */
  readonly draftHash: string | null;
  /** The row hash (pipeline/map/row-hash.ts) of the row that draft came from; null when not known. */
  readonly rowHash: string | null;
  /** When the last write was confirmed, ms since the Unix epoch. */
  readonly updatedAt: number;
}

/** What `readAhead` reads first of every known key: enough to settle a row by its row hash. */
export interface KnownKeyBrief {
  readonly key: string;
  readonly contactId: string;
  readonly draftHash: string | null;
  readonly rowHash: string | null;
  /** `onMissing` acted on the key (it is in the departed journal). */
  readonly departed: boolean;
}

/**
 * What `readAhead` gives of a known key: the brief, and the whole record when it was asked for,
 * parsed on the first call (parsing the fields and tags costs more than the rest of an unchanged
 * row, and reading them a third more than the brief).
 */
export interface KnownKeyRecord extends KnownKeyBrief {
  /** The whole record; undefined when only the brief was read. */
  contact(): StoredContact | undefined;
}

/** What one confirmed write (or the writes of one row) did to a contact. */
export interface ConfirmedWrite {
  /** The contact written. The id a create returned; never the id an update answered. */
  readonly contactId: string;
  /** Fields just written; merged over the fields known for this contact. @default {} */
  readonly fields?: Readonly<Record<string, string>>;
  /** Tags just added. @default [] */
  readonly tagsAdded?: readonly string[];
  /** Tags just removed; they leave the known set. @default [] */
  readonly tagsRemoved?: readonly string[];
  /**
   * `draftHash(draft)` when every operation of the row's draft was confirmed, else null: a null
   * hash makes the next run compare the row again instead of calling it unchanged.
   */
  readonly draftHash: string | null;
  /** The row hash of the row whose draft `draftHash` is; stored only with a draft hash. @default null */
  readonly rowHash?: string | null;
}

/** A contact as just read from the platform (with our confirmed writes applied). */
export interface ObservedContact {
  readonly contactId: string;
  /** Every custom field of the contact; replaces the known fields. */
  readonly fields: Readonly<Record<string, string>>;
  /** Every tag of the contact; replaces the known tags. */
  readonly tags: readonly string[];
  /** The tags the row's writes added (they become the job's). @default [] */
  readonly tagsAdded?: readonly string[];
  /** The tags the row's writes removed. @default [] */
  readonly tagsRemoved?: readonly string[];
  /** As in `ConfirmedWrite`. */
  readonly draftHash: string | null;
  /** As in `ConfirmedWrite`. @default null */
  readonly rowHash?: string | null;
}

/** What `onMissing` did to the contact of a key that left the input. */
export interface Departure {
  readonly contactId: string;
  readonly action: DepartedAction;
  /** Tags added (action tag): the ones a return of the key removes again. @default [] */
  readonly tagsAdded?: readonly string[];
  /** Tags removed (action untag). @default [] */
  readonly tagsRemoved?: readonly string[];
  /** Fields set (action update). @default {} */
  readonly fields?: Readonly<Record<string, string>>;
}

export type DepartedAction = 'tag' | 'untag' | 'update';

/** A key `onMissing` acted on, until it comes back. */
export interface DepartedRecord {
  readonly contactId: string;
  readonly action: DepartedAction;
  /** The tags action tag added. */
  readonly tags: readonly string[];
  readonly departedAt: number;
}

/** One known key, as `scanKeys` visits it. */
export interface ScannedKey {
  readonly key: string;
  readonly contactId: string;
  readonly tags: readonly string[];
  readonly fields: Readonly<Record<string, string>>;
  /** `onMissing` acted on it already (it is in the departed journal). */
  readonly departed: boolean;
}

/** `sent`: the platform accepted it. `unknown`: it may have been delivered (or is being sent). */
export type MessageStatus = 'sent' | 'unknown';

/** Counts of rows by outcome (and `total`), as in summary.json. */
export type RunRowCounts = Readonly<Record<string, number>>;

export interface RunStart {
  readonly job: string;
  /** ms since the Unix epoch. @default now() */
  readonly startedAt?: number;
  /** The command line, shortened, with no token or other secret: the caller strips them. */
  readonly argv: string;
  /** `--full`: hashes ignored, every row compared with the platform. */
  readonly full: boolean;
}

/** How a run ended, as summary.json's `status` says it. */
export type RunStatus = 'completed' | 'interrupted' | 'aborted' | 'deadline';

export interface RunFinish {
  /** ms since the Unix epoch. @default now() */
  readonly finishedAt?: number;
  readonly rows: RunRowCounts;
  /** The run's real exit code: 130 for a run stopped by SIGINT, 4 at --max-duration... */
  readonly exitCode: number;
  readonly status: RunStatus;
}

export interface RunRecord {
  readonly id: number;
  readonly job: string;
  readonly startedAt: number;
  readonly argv: string;
  readonly full: boolean;
  /** False for a run still going, or killed before `finishRun`. */
  readonly finished: boolean;
  readonly finishedAt: number | null;
  readonly rows: RunRowCounts | null;
  readonly exitCode: number | null;
  /** How it ended; null while it runs, when it was killed, or for runs journalled before status was. */
  readonly status: RunStatus | null;
}

/** What `contact-sync state show` prints. */
export interface StateSummary {
  readonly path: string;
  readonly job: string;
  readonly keyField: string;
  readonly schemaVersion: number;
  /** Keys with a known contact. */
  readonly keys: number;
  readonly pendingCreates: number;
  /** Messages recorded as sent or maybe sent. */
  readonly messages: number;
  /** Keys that left the input and were acted on by `onMissing` (not come back since). */
  readonly departed: number;
  /** The latest run, finished or not. */
  readonly lastRun: RunRecord | undefined;
  readonly lastFinishedRun: RunRecord | undefined;
}

interface ContactRow {
  key: string;
  contact_id: string;
  fields_json: string;
  tags_json: string;
  draft_hash: string | null;
  updated_at: number;
  job_tags_json: string | null;
  row_hash: string | null;
}

interface RunRow {
  id: number;
  job: string;
  started_at: number;
  argv: string;
  full: number;
  finished_at: number | null;
  rows_json: string | null;
  exit_code: number | null;
  status: string | null;
}

type ContactParams = [
  key: string,
  contactId: string,
  fieldsJson: string,
  tagsJson: string,
  draftHash: string | null,
  updatedAt: number,
  jobTagsJson: string | null,
  rowHash: string | null,
];

/** Row hash notes held before they are written in one transaction. */
const ROW_HASH_NOTES = 512;

/** Keys read by one statement of `readAhead` (the row lookahead reads 64 at a time). */
const READ_AHEAD_KEYS = 64;

export class StateStore {
  readonly #db: Database.Database;
  readonly #now: () => number;
  readonly #getContact: Database.Statement<[string], ContactRow>;
  readonly #upsertContact: Database.Statement<ContactParams>;
  readonly #deleteContact: Database.Statement<[string]>;
  readonly #listContacts: Database.Statement<[number], ContactRow>;
  readonly #markPending: Database.Statement<[string, number]>;
  readonly #clearPending: Database.Statement<[string]>;
  readonly #isPending: Database.Statement<[string], { one: number }>;
  readonly #knows: Database.Statement<[string], { one: number }>;
  readonly #listPending: Database.Statement<[], { key: string }>;
  readonly #getMessage: Database.Statement<[string, string], { status: MessageStatus }>;
  readonly #upsertMessage: Database.Statement<[string, string, MessageStatus, number]>;
  readonly #deleteMessage: Database.Statement<[string, string]>;
  readonly #insertRun: Database.Statement<[string, number, string, number]>;
  readonly #finishRun: Database.Statement<[number, string, number, string, number]>;
  readonly #lastRuns: Database.Statement<[number], RunRow>;
  readonly #lastRun: Database.Statement<[], RunRow>;
  readonly #lastFinishedRun: Database.Statement<[], RunRow>;
  readonly #syncFull: Database.Statement<[]>;
  readonly #syncNormal: Database.Statement<[]>;
  readonly #recordConfirmed: (key: string, write: ConfirmedWrite) => void;
  readonly #recordObserved: (key: string, observed: ObservedContact) => void;
  readonly #readAhead: (keys: readonly string[], whole: (brief: KnownKeyBrief) => boolean) => Map<string, KnownKeyRecord>;
  readonly #noteRowHash: Database.Statement<[string, string, string]>;
  readonly #writeRowHashNotes: (notes: ReadonlyArray<[string, string, string]>) => void;
  #rowHashNotes: Array<[rowHash: string, key: string, draftHash: string]> = [];
  /** `readAhead`'s statements, by what they read and the number of keys they take. */
  readonly #readAheadStatements = new Map<string, Database.Statement<string[]>>();
  readonly #recordDeparture: (key: string, departure: Departure) => void;

  private constructor(
    /** The file, as given to `open`. */
    readonly path: string,
    db: Database.Database,
    now: () => number,
  ) {
    this.#db = db;
    this.#now = now;
    this.#getContact = db.prepare('SELECT * FROM contacts WHERE key = ?');
    this.#upsertContact = db.prepare(
      `INSERT INTO contacts (key, contact_id, fields_json, tags_json, draft_hash, updated_at, job_tags_json, row_hash)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (key) DO UPDATE SET contact_id = excluded.contact_id, fields_json = excluded.fields_json,
         tags_json = excluded.tags_json, draft_hash = excluded.draft_hash, updated_at = excluded.updated_at,
         job_tags_json = excluded.job_tags_json, row_hash = excluded.row_hash`,
    );
    this.#deleteContact = db.prepare('DELETE FROM contacts WHERE key = ?');
    this.#listContacts = db.prepare('SELECT * FROM contacts ORDER BY key LIMIT ?');
    this.#markPending = db.prepare(
      'INSERT INTO pending_creates (key, marked_at) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET marked_at = excluded.marked_at',
    );
    this.#clearPending = db.prepare('DELETE FROM pending_creates WHERE key = ?');
    this.#isPending = db.prepare('SELECT 1 AS one FROM pending_creates WHERE key = ?');
    this.#knows = db.prepare('SELECT 1 AS one FROM contacts WHERE key = ?');
    this.#listPending = db.prepare('SELECT key FROM pending_creates ORDER BY key');
    this.#getMessage = db.prepare('SELECT status FROM messages WHERE contact_id = ? AND message_hash = ?');
    this.#upsertMessage = db.prepare(
      `INSERT INTO messages (contact_id, message_hash, status, recorded_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (contact_id, message_hash) DO UPDATE SET status = excluded.status, recorded_at = excluded.recorded_at`,
    );
    this.#deleteMessage = db.prepare('DELETE FROM messages WHERE contact_id = ? AND message_hash = ?');
    this.#insertRun = db.prepare('INSERT INTO runs (job, started_at, argv, full) VALUES (?, ?, ?, ?)');
    this.#finishRun = db.prepare('UPDATE runs SET finished_at = ?, rows_json = ?, exit_code = ?, status = ? WHERE id = ?');
    this.#lastRuns = db.prepare('SELECT * FROM runs ORDER BY id DESC LIMIT ?');
    this.#lastRun = db.prepare('SELECT * FROM runs ORDER BY id DESC LIMIT 1');
    this.#lastFinishedRun = db.prepare('SELECT * FROM runs WHERE finished_at IS NOT NULL ORDER BY id DESC LIMIT 1');
    this.#syncFull = db.prepare('PRAGMA synchronous = FULL');
    this.#syncNormal = db.prepare('PRAGMA synchronous = NORMAL');

    const recordConfirmed = db.transaction((key: string, write: ConfirmedWrite): void => {
      const known = this.#getContact.get(key);
      // Values known for another contact (the key's contact was deleted and created anew) say
      // nothing about this one.
      const sameContact = known !== undefined && known.contact_id === write.contactId;
      const fields = { ...(sameContact ? parseFields(known.fields_json) : {}), ...write.fields };
      const tags = new Set(sameContact ? parseTags(known.tags_json) : []);
      for (const tag of write.tagsAdded ?? []) tags.add(tag);
      for (const tag of write.tagsRemoved ?? []) tags.delete(tag);
      const jobTags = nextJobTags(sameContact ? known.job_tags_json : null, write.tagsAdded, write.tagsRemoved);
      this.#upsertContact.run(key, write.contactId, JSON.stringify(fields), JSON.stringify([...tags].sort()), write.draftHash, this.#now(), jobTags, rowHashOf(write));
      // A confirmed id settles a create that was pending for the key.
      this.#clearPending.run(key);
    });
    this.#recordConfirmed = (key, write) => recordConfirmed.immediate(key, write);

    const recordObserved = db.transaction((key: string, observed: ObservedContact): void => {
      const tags = [...new Set(observed.tags)].sort();
      const known = this.#getContact.get(key);
      // The job's tags the contact no longer has (removed by hand) are no longer the job's.
      const present = new Set(tags);
      const earlier = known !== undefined && known.contact_id === observed.contactId && known.job_tags_json !== null ? parseTags(known.job_tags_json) : null;
      const kept = earlier === null ? null : JSON.stringify(earlier.filter((tag) => present.has(tag)));
      const jobTags = nextJobTags(kept, observed.tagsAdded, observed.tagsRemoved);
      this.#upsertContact.run(key, observed.contactId, JSON.stringify({ ...observed.fields }), JSON.stringify(tags), observed.draftHash, this.#now(), jobTags, rowHashOf(observed));
      this.#clearPending.run(key);
    });
    this.#recordObserved = (key, observed) => recordObserved.immediate(key, observed);

    const recordDeparture = db.transaction((key: string, departure: Departure): void => {
      const known = this.#getContact.get(key);
      if (known !== undefined && known.contact_id === departure.contactId) {
        const fields = { ...parseFields(known.fields_json), ...departure.fields };
        const tags = new Set(parseTags(known.tags_json));
        for (const tag of departure.tagsAdded ?? []) tags.add(tag);
        for (const tag of departure.tagsRemoved ?? []) tags.delete(tag);
        // The departure's tags are not the row's: they are not the job's for prune. A null hash
        // makes the key's row, if it comes back, compared with what the contact holds now.
        const jobTags = nextJobTags(known.job_tags_json, [], departure.tagsRemoved);
        this.#upsertContact.run(key, known.contact_id, JSON.stringify(fields), JSON.stringify([...tags].sort()), null, this.#now(), jobTags, null);
      }
      db.prepare<[string, string, string, string, number]>(
        `INSERT INTO departed (key, contact_id, action, tags_json, departed_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (key) DO UPDATE SET contact_id = excluded.contact_id, action = excluded.action, tags_json = excluded.tags_json,
           departed_at = excluded.departed_at`,
      ).run(key, departure.contactId, departure.action, JSON.stringify([...(departure.tagsAdded ?? [])].sort()), this.#now());
    });
    this.#recordDeparture = (key, departure) => recordDeparture.immediate(key, departure);

    this.#noteRowHash = db.prepare('UPDATE contacts SET row_hash = ? WHERE key = ? AND draft_hash = ?');
    this.#writeRowHashNotes = db.transaction((notes: ReadonlyArray<[string, string, string]>): void => {
      for (const note of notes) this.#noteRowHash.run(...note);
    });
    this.#readAhead = db.transaction((keys: readonly string[], whole: (brief: KnownKeyBrief) => boolean): Map<string, KnownKeyRecord> => {
      const briefs: KnownKeyBrief[] = [];
      for (const some of chunks(keys, READ_AHEAD_KEYS)) {
        for (const [key, contactId, draftHash, rowHash, departed] of this.#readAheadStatement('brief', some.length).all(...some) as BriefRow[]) {
          briefs.push({ key, contactId, draftHash, rowHash, departed: departed === 1 });
        }
      }
      const rows = new Map<string, ContactRow>();
      for (const some of chunks(briefs.filter(whole).map((brief) => brief.key), READ_AHEAD_KEYS)) {
        for (const row of this.#readAheadStatement('whole', some.length).all(...some) as ContactRow[]) rows.set(row.key, row);
      }
      return new Map(briefs.map((brief) => [brief.key, knownKeyRecord(brief, rows.get(brief.key))]));
    });
  }

  /**
   * Opens (creating if needed) the state file of a job: parent directories, mode 0600, WAL,
   * migrations, and the check that the file belongs to this key field.
   * @throws StateStoreError `STATE_KEY_FIELD_MISMATCH`, `STATE_SCHEMA_TOO_NEW`, `STATE_UNREADABLE`
   */
  static open(path: string, options: StateStoreOptions): StateStore {
    const now = options.now ?? Date.now;
    let db: Database.Database | undefined;
    try {
      prepareStateFile(path);
      db = openSqliteDatabase(path);
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      migrate(db, path, options.job, now());
      bindIdentity(db, path, options, now());
      return new StateStore(path, db, now);
    } catch (error) {
      db?.close();
      if (error instanceof StateStoreError || error instanceof SqliteBindingError) throw error;
      const reason = typeof error === 'object' && error !== null && 'message' in error ? String(error.message) : String(error);
      throw new StateStoreError('STATE_UNREADABLE', path, `${path}: cannot open the state store of job "${options.job}" (${reason}). ${openFix(error, options.job)}`, { cause: error });
    }
  }

  /**
   * Forgets the contacts, pending creates and runs, and keeps the message journal (`state reset
   * --keep-messages`): the next run searches each key again, and still sends no message twice.
   */
  forgetAllButMessages(): { keys: number } {
    const keys = this.summary().keys;
    this.#db.exec('BEGIN; DELETE FROM contacts; DELETE FROM pending_creates; DELETE FROM runs; DELETE FROM departed; COMMIT;');
    return { keys };
  }

  /**
   * Deletes a state file and its -wal, -shm and -journal companions. No store may have it open.
   * Returns the files that existed.
   */
  static reset(path: string): string[] {
    return removeStateFiles(path);
  }

  /** Closes the file; the WAL is checkpointed into it. Closing twice is harmless. */
  close(): void {
    if (!this.#db.open) return;
    try {
      this.#flushRowHashNotes();
    } catch {
      // Notes only save the next run some mapping: a store that cannot take them loses nothing.
    }
    this.#db.close();
  }

  get(key: string): StoredContact | undefined {
    const row = this.#getContact.get(key);
    return row === undefined ? undefined : toStoredContact(row);
  }

  /**
   * The known keys among `keys`, from one snapshot, a few dozen keys a statement: the brief of
   * each, and the whole record (parsed only when asked) of those `whole` asks for. For the row
   * lookahead, where most rows of a re-run need nothing but the brief.
   */
  readAhead(keys: readonly string[], whole: (brief: KnownKeyBrief) => boolean = () => true): Map<string, KnownKeyRecord> {
    return this.#readAhead(keys, whole);
  }

  /**
   * Notes the row hash of a row found unchanged by its draft hash (a column the job does not map
   * changed, the mapping changed, or the key was recorded before row hashes): the next run settles
   * the row without mapping it. Only while the key's draft hash is still `draftHash`.
   */
  noteRowHash(key: string, draftHash: string, rowHash: string): void {
    // Held and written a few hundred at a time: the first run after a change of mapping notes
    // every row, and a transaction each cost as much as the rest of the row. The update's
    // condition makes the order against other writes irrelevant; a note lost to a kill costs the
    // next run the mapping of that row, nothing else.
    this.#rowHashNotes.push([rowHash, key, draftHash]);
    if (this.#rowHashNotes.length >= ROW_HASH_NOTES) this.#flushRowHashNotes();
  }

  #flushRowHashNotes(): void {
    if (this.#rowHashNotes.length === 0) return;
    const notes = this.#rowHashNotes;
    this.#rowHashNotes = [];
    this.#writeRowHashNotes(notes);
  }

  /**
   * Records a write the platform confirmed, in one transaction: fields merge over those known for
   * the same contact (a different contact id starts afresh), tags added join the known set and
   * tags removed leave it, and a create pending for the key is cleared.
   */
  recordConfirmed(key: string, write: ConfirmedWrite): void {
    this.#recordConfirmed(key, write);
  }

  /**
   * Records a contact as read from the platform, replacing what is known of the key (used by
   * `--full` and after a search), and clears a create pending for the key.
   */
  recordObserved(key: string, observed: ObservedContact): void {
    this.#recordObserved(key, observed);
  }

  /**
   * Records that a create for `key` is about to be sent. Call it before sending: it is on disk
   * (fsynced) when this returns, so after a crash the next run searches the key before creating.
   */
  markCreatePending(key: string): void {
    this.#durably(() => this.#markPending.run(key, this.#now()));
  }

  /** The create for `key` is settled otherwise (surely not created, or found by a search). */
  clearCreatePending(key: string): void {
    this.#clearPending.run(key);
  }

  /** Whether the store holds a contact for `key` (a run matches it without a search). */
  knows(key: string): boolean {
    return this.#knows.get(key) !== undefined;
  }

  isCreatePending(key: string): boolean {
    return this.#isPending.get(key) !== undefined;
  }

  /** Keys whose create was sent without a confirmed answer, sorted. */
  pendingCreates(): string[] {
    return this.#listPending.all().map((row) => row.key);
  }

  /** The key's contact no longer exists on the platform ("no such contact"). */
  forget(key: string): void {
    this.#deleteContact.run(key);
    this.clearDeparted(key);
  }

  /**
   * True when this message was recorded for this contact, as `sent` or `unknown` (at most once:
   * a message that may have been delivered is not sent again unless the job says `repeat`).
   */
  messageSent(contactId: string, messageHash: string): boolean {
    return this.#getMessage.get(contactId, messageHash) !== undefined;
  }

  /**
   * Records a message to a contact, fsynced before it returns. For at-most-once across a kill,
   * record `unknown` before sending and `sent` once the platform accepted it; if the send surely
   * failed (429, refused connection, rejected request), `forgetMessage` lets a later run send it.
   */
  recordMessage(contactId: string, messageHash: string, status: MessageStatus): void {
    this.#durably(() => this.#upsertMessage.run(contactId, messageHash, status, this.#now()));
  }

  /**
   * The journal's record of this message to this contact: `sent`, or `unknown` (it left and no
   * answer was recorded: a kill while it was on the wire, or an unknown outcome), and when.
   */
  messageRecord(contactId: string, messageHash: string): { status: MessageStatus; recordedAt: number } | undefined {
    return this.#db
      .prepare<[string, string], { status: MessageStatus; recordedAt: number }>(
        'SELECT status, recorded_at AS recordedAt FROM messages WHERE contact_id = ? AND message_hash = ?',
      )
      .get(contactId, messageHash);
  }

  /**
   * Journals, fsynced, that the row of `key` owes a message: before its writes, so a run killed
   * between a write and the send leaves the key marked and the re-run sends it (docs/reliability.md,
   * "Messages journalled when they leave").
   */
  markMessageDue(key: string): void {
    this.#durably(() =>
      this.#db
        .prepare<[string, number]>('INSERT INTO messages_due (key, recorded_at) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET recorded_at = excluded.recorded_at')
        .run(key, this.#now()),
    );
  }

  /** True when the row of `key` owes a message an earlier run did not send. */
  isMessageDue(key: string): boolean {
    return this.#db.prepare<[string], { one: number }>('SELECT 1 AS one FROM messages_due WHERE key = ?').get(key) !== undefined;
  }

  /** The row's message left (or was settled): the key owes none. */
  clearMessageDue(key: string): void {
    this.#db.prepare<[string]>('DELETE FROM messages_due WHERE key = ?').run(key);
  }

  /** Removes the record of a message that surely was not delivered. */
  forgetMessage(contactId: string, messageHash: string): void {
    this.#deleteMessage.run(contactId, messageHash);
  }

  /**
   * Records what `onMissing` did to a departed key's contact, in one transaction: the contact's
   * known fields and tags follow the departure, its draft hash is cleared (a returning row is
   * compared again), and the key joins the departed journal (acted on once).
   */
  recordDeparture(key: string, departure: Departure): void {
    this.#recordDeparture(key, departure);
  }

  /** The departed journal's record of a key, if `onMissing` acted on it and it has not come back. */
  departedRecord(key: string): DepartedRecord | undefined {
    const row = this.#db
      .prepare<[string], { contact_id: string; action: DepartedAction; tags_json: string; departed_at: number }>(
        'SELECT contact_id, action, tags_json, departed_at FROM departed WHERE key = ?',
      )
      .get(key);
    return row === undefined ? undefined : { contactId: row.contact_id, action: row.action, tags: parseTags(row.tags_json), departedAt: row.departed_at };
  }

  /** The key came back (its row was synced): a later departure acts again. */
  clearDeparted(key: string): void {
    this.#db.prepare<[string]>('DELETE FROM departed WHERE key = ?').run(key);
  }

  /**
   * Visits every known key in key order, from one snapshot, with whether `onMissing` already acted
   * on it. `visit` must not call the store (the read holds the connection).
   */
  scanKeys(visit: (key: ScannedKey) => void): void {
    const rows = this.#db
      .prepare<[], ContactRow & { departed: number }>(
        'SELECT c.*, d.key IS NOT NULL AS departed FROM contacts c LEFT JOIN departed d ON d.key = c.key ORDER BY c.key',
      )
      .iterate();
    for (const row of rows) {
      visit({ key: row.key, contactId: row.contact_id, tags: parseTags(row.tags_json), fields: parseFields(row.fields_json), departed: row.departed === 1 });
    }
  }

  /** Journals the start of a run; returns its id for `finishRun`. */
  startRun(start: RunStart): number {
    const result = this.#insertRun.run(start.job, start.startedAt ?? this.#now(), start.argv, start.full ? 1 : 0);
    return Number(result.lastInsertRowid);
  }

  finishRun(runId: number, finish: RunFinish): void {
    this.#flushRowHashNotes();
    this.#finishRun.run(finish.finishedAt ?? this.#now(), JSON.stringify(finish.rows), finish.exitCode, finish.status, runId);
  }

  /** The latest `count` runs, newest first, finished or not. */
  lastRuns(count: number): RunRecord[] {
    return this.#lastRuns.all(count).map(toRunRecord);
  }

  /** The latest run, finished or not (a killed run stays unfinished). */
  lastRun(): RunRecord | undefined {
    const row = this.#lastRun.get();
    return row === undefined ? undefined : toRunRecord(row);
  }

  lastFinishedRun(): RunRecord | undefined {
    const row = this.#lastFinishedRun.get();
    return row === undefined ? undefined : toRunRecord(row);
  }

  summary(): StateSummary {
    const count = (table: string): number =>
      this.#db.prepare<[], { n: number }>(`SELECT count(*) AS n FROM ${table}`).get()?.n ?? 0;
    const meta = readMeta(this.#db);
    return {
      path: this.path,
      job: meta.get('job') ?? '',
      keyField: meta.get('key_field') ?? '',
      schemaVersion: SCHEMA_VERSION,
      keys: count('contacts'),
      pendingCreates: count('pending_creates'),
      messages: count('messages'),
      departed: count('departed'),
      lastRun: this.lastRun(),
      lastFinishedRun: this.lastFinishedRun(),
    };
  }

  /** The first `limit` known contacts in key order (`Infinity`: all). */
  listKeys(limit: number): StoredContact[] {
    // SQLite reads a negative LIMIT as "no limit".
    const bound = Number.isFinite(limit) ? Math.max(0, Math.floor(limit)) : -1;
    return this.#listContacts.all(bound).map(toStoredContact);
  }

  #readAheadStatement(what: 'brief' | 'whole', count: number): Database.Statement<string[]> {
    const name = `${what}:${count}`;
    let statement = this.#readAheadStatements.get(name);
    if (statement === undefined) {
      const keys = `(${new Array(count).fill('?').join(', ')})`;
      statement =
        what === 'brief'
          ? // Raw rows (arrays): a third faster than objects for the million rows of a re-run.
            this.#db
              .prepare<string[]>(`SELECT c.key, c.contact_id, c.draft_hash, c.row_hash, EXISTS (SELECT 1 FROM departed d WHERE d.key = c.key) FROM contacts c WHERE c.key IN ${keys}`)
              .raw(true)
          : this.#db.prepare<string[]>(`SELECT * FROM contacts WHERE key IN ${keys}`);
      this.#readAheadStatements.set(name, statement);
    }
    return statement;
  }

  /** Runs `write` as a transaction that is fsynced before it returns. */
  #durably(write: () => void): void {
    this.#syncFull.run();
    try {
      write();
    } finally {
      this.#syncNormal.run();
    }
  }
}

/** Records job and key field in a new file; refuses a file recorded for another key field. */
function bindIdentity(db: Database.Database, path: string, options: StateStoreOptions, now: number): void {
  const bind = db.transaction(() => {
    const meta = readMeta(db);
    const recorded = meta.get('key_field');
    if (recorded !== undefined && recorded !== options.keyField) {
      throw new StateStoreError(
        'STATE_KEY_FIELD_MISMATCH',
        path,
        `${path}: this state file holds keys of the field "${recorded}", but job "${options.job}" ` +
          `now uses the key field "${options.keyField}"; its keys would name other contacts. Start ` +
          `the job's state afresh with \`${resetCommand(options.job)}\` (the next run searches each ` +
          `key once), or set the job's \`state:\` to another path.`,
      );
    }
    const put = db.prepare<[string, string]>(
      'INSERT INTO meta (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value',
    );
    if (recorded === undefined) {
      put.run('key_field', options.keyField);
      put.run('created_at', String(now));
    }
    // A renamed job keeps its state; the file shows the name it was last opened under.
    if (meta.get('job') !== options.job) put.run('job', options.job);
  });
  bind.immediate();
}

/** The job's tags after a write: what it added joins them, what it removed leaves them; JSON, sorted. */
function nextJobTags(earlierJson: string | null, added: readonly string[] = [], removed: readonly string[] = []): string | null {
  if (earlierJson === null && added.length === 0) return null;
  const tags = new Set(earlierJson === null ? [] : parseTags(earlierJson));
  for (const tag of added) tags.add(tag);
  for (const tag of removed) tags.delete(tag);
  return JSON.stringify([...tags].sort());
}

function readMeta(db: Database.Database): Map<string, string> {
  const rows = db.prepare<[], { name: string; value: string }>('SELECT name, value FROM meta').all();
  return new Map(rows.map((row) => [row.name, row.value]));
}

function toStoredContact(row: ContactRow): StoredContact {
  return {
    key: row.key,
    contactId: row.contact_id,
    fields: parseFields(row.fields_json),
    tags: parseTags(row.tags_json),
    jobTags: row.job_tags_json === null ? null : parseTags(row.job_tags_json),
    draftHash: row.draft_hash,
    rowHash: row.row_hash,
    updatedAt: row.updated_at,
  };
}

type BriefRow = [key: string, contactId: string, draftHash: string | null, rowHash: string | null, departed: number];

function knownKeyRecord(brief: KnownKeyBrief, row: ContactRow | undefined): KnownKeyRecord {
  let contact: StoredContact | undefined;
  return { ...brief, contact: () => (row === undefined ? undefined : (contact ??= toStoredContact(row))) };
}

function* chunks<T>(items: readonly T[], size: number): Generator<T[]> {
  for (let start = 0; start < items.length; start += size) yield items.slice(start, start + size);
}

/** A row hash is only ever stored with the draft hash it stands for. */
function rowHashOf(write: { readonly draftHash: string | null; readonly rowHash?: string | null }): string | null {
  return write.draftHash === null ? null : (write.rowHash ?? null);
}

const RUN_STATUSES: ReadonlySet<string> = new Set(['completed', 'interrupted', 'aborted', 'deadline']);

function toRunRecord(row: RunRow): RunRecord {
  return {
    id: row.id,
    job: row.job,
    startedAt: row.started_at,
    argv: row.argv,
    full: row.full === 1,
    finished: row.finished_at !== null,
    finishedAt: row.finished_at,
    rows: row.rows_json === null ? null : parseCounts(row.rows_json),
    exitCode: row.exit_code,
    status: RUN_STATUSES.has(row.status ?? '') ? (row.status as RunStatus) : null,
  };
}

// The JSON columns are written only by this class; the parsers still keep only well-typed
// entries so a hand-edited file cannot put a non-string where a string is promised.
function parseFields(json: string): Record<string, string> {
  const value: unknown = JSON.parse(json);
  const fields: Record<string, string> = {};
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    for (const [name, field] of Object.entries(value)) if (typeof field === 'string') fields[name] = field;
  }
  return fields;
}

function parseTags(json: string): string[] {
  const value: unknown = JSON.parse(json);
  return Array.isArray(value) ? value.filter((tag): tag is string => typeof tag === 'string') : [];
}

function parseCounts(json: string): Record<string, number> {
  const value: unknown = JSON.parse(json);
  const counts: Record<string, number> = {};
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    for (const [name, count] of Object.entries(value)) if (typeof count === 'number') counts[name] = count;
  }
  return counts;
}

/**
 * What to do when a state file cannot be opened, by what went wrong. Starting afresh (`state
 * reset`) forgets which messages were sent: it is advised only for a damaged file, never for a
 * full disk or a file another process holds.
 */
function openFix(error: unknown, job: string): string {
  const raw: unknown = (error as { code?: unknown } | null)?.code;
  const code = typeof raw === 'string' ? raw : '';
  if (code === 'SQLITE_FULL' || code.startsWith('SQLITE_IOERR') || code === 'ENOSPC') {
    return 'The disk is full or failing: free space on it (or move the file elsewhere and set the job\'s `state:`), then run again; the state is kept.';
  }
  if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') {
    return 'Another process holds the file (another run of this job?): let it finish, then run again.';
  }
  if (code === 'SQLITE_READONLY' || code === 'SQLITE_CANTOPEN' || code === 'SQLITE_PERM' || code === 'SQLITE_AUTH' || code === 'EACCES' || code === 'EPERM') {
    return 'Check the file\'s and its folder\'s owner and permissions: this user must be able to write both.';
  }
  return (
    'If it is damaged or not a contact-sync state file, set the job\'s `state:` to another path, or start afresh with ' +
    `\`${resetCommand(job)}\` (it forgets which messages were sent unless you pass --keep-messages).`
  );
}

