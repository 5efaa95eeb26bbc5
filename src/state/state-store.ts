/**
 * The per-job memory of what the platform confirmed: key -> contact id, the field values and tags
 * last written, the hash of the last draft written in full, creates and messages whose outcome is
 * not known, and a journal of runs. It lets a nightly run skip unchanged rows with no API call and
 * update changed ones by id with no search.
 *
 * This class is the SQLite adapter of the state port (state-port.ts: its users each see their
 * role, never the class) and the one door to the file: one connection, its migrations
 * (schema.ts, the one list), the file's identity (table `meta`), the durable writes and the
 * transactions that span two concerns.
 * Each concern is a module of its own over the same connection, named after it:
 *
 * - contacts-table.ts: contacts (ids, fields, tags, the job's tags, draft and row hashes), pending
 *   creates, the lookahead's read-ahead, row hash notes;
 * - message-journal.ts: messages sent or maybe sent, and messages due;
 * - run-journal.ts: runs;
 * - departed-keys.ts: keys `onMissing` acted on;
 * - change-journal.ts: every write the platform confirmed, under its run;
 * - personal-data.ts: retention of the change journal and erasure of a key, over every table.
 *
 * Durability: the file is in WAL mode. A committed transaction is in the WAL (handed to the
 * kernel by write(2)) before the commit returns, so a kill of the process at any instant loses no
 * committed transaction and never leaves a half-written one: each method below is one
 * transaction. `synchronous = NORMAL` skips the fsync per commit; it only risks the last commits
 * on a power loss or kernel crash, and the file stays consistent even then. Losing a confirmed
 * write costs a search on the next run, nothing more, so NORMAL is enough for it. Losing a
 * "create pending" or a message mark could duplicate a contact or a message, so those records
 * commit with `synchronous = FULL` (fsync of the WAL before the call returns): `#durably` below,
 * the store's one such helper.
 */
import { statSync } from 'node:fs';
import { AbsentReads, type AbsentRead } from './absent-reads.js';
import { UncreatableRows, type UncreatableRow } from './uncreatable-rows.js';
import { KeptLimits, type KeptLimit } from './kept-limits.js';
import type Database from 'better-sqlite3';
import { ChangeJournal, type ChangeEntry, type ChangeLine, type FieldChange } from './change-journal.js';
import {
  ContactsTable,
  type ConfirmedWrite,
  type ObservedContact,
  type ScannedKey,
  type StoredContactBrief,
} from './contacts-table.js';
import { trustedOn, type IdSurface, type StoredContact } from './known-contact.js';
import { DepartedKeys, type DepartedRecord, type Departure } from './departed-keys.js';
import { MessageJournal, type MessageRecord, type MessageStatus } from './message-journal.js';
import { RunJournal, type RunFinish, type RunRecord, type RunStart } from './run-journal.js';
import { migrate, SCHEMA_VERSION } from './schema.js';
import { prepareStateFile, removeStateFiles, stateFilePaths } from './state-file.js';
import { isBusyStore, StateStoreError, resetCommand, stateStoreFix } from './state-store-error.js';
import { openSqliteDatabase, SqliteBindingError } from './sqlite-database.js';
import { PersonalData } from './personal-data.js';
import type { ErasedKey, ExpiredJournal, PrunedChanges, StatePage, StatePort, StateSummary } from './state-port.js';
import { STATE_TABLES } from './state-tables.js';

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

/**
 * The SQLite adapter of the state port (state-port.ts): the one that exists today, so the one the
 * CLI opens.
 */
export class StateStore implements StatePort {
  readonly #db: Database.Database;
  readonly #now: () => number;
  readonly #contacts: ContactsTable;
  readonly #messages: MessageJournal;
  readonly #runs: RunJournal;
  readonly #departed: DepartedKeys;
  readonly #changes: ChangeJournal;
  readonly #absent: AbsentReads;
  readonly #uncreatable: UncreatableRows;
  readonly #keptLimits: KeptLimits;
  readonly #syncFull: Database.Statement<[]>;
  readonly #syncNormal: Database.Statement<[]>;
  readonly #recordDeparture: (key: string, departure: Departure) => void;
  readonly #forgetAllButMessages: () => void;
  readonly #pruneChanges: (keepRuns: number, includeCreating: boolean) => PrunedChanges;
  readonly #expireJournal: (before: number) => ExpiredJournal;
  readonly #eraseKeys: (keys: readonly string[], dryRun: boolean) => ErasedKey[];
  readonly #settle: (key: string, contact: { readonly contactId: string; readonly surface: IdSurface }, fields: Readonly<Record<string, string>>, record: () => void) => void;
  /** The run this store started last (`startRun`): the run `journalChange` files its lines under. */
  #runId: number | undefined;

  private constructor(
    /** The file, as given to `open`. */
    readonly path: string,
    db: Database.Database,
    now: () => number,
  ) {
    this.#db = db;
    this.#now = now;
    this.#contacts = new ContactsTable(db, now);
    this.#messages = new MessageJournal(db, now);
    this.#runs = new RunJournal(db, now);
    this.#departed = new DepartedKeys(db, now);
    this.#changes = new ChangeJournal(db);
    this.#absent = new AbsentReads(db, now);
    this.#uncreatable = new UncreatableRows(db, now);
    this.#keptLimits = new KeptLimits(db, now);
    this.#syncFull = db.prepare('PRAGMA synchronous = FULL');
    this.#syncNormal = db.prepare('PRAGMA synchronous = NORMAL');

    // The transactions that span two concerns.
    const recordDeparture = db.transaction((key: string, departure: Departure): void => {
      this.#contacts.applyDeparture(key, departure);
      this.#departed.record(key, departure);
    });
    this.#recordDeparture = (key, departure) => recordDeparture.immediate(key, departure);

    // The change lines go with the runs they are filed under.
    this.#forgetAllButMessages = db.transaction((): void => {
      this.#contacts.deleteAll();
      this.#runs.deleteAll();
      this.#departed.deleteAll();
      this.#changes.deleteAll();
      this.#absent.deleteAll();
      this.#uncreatable.deleteAll();
    });

    const pruneChanges = db.transaction((keepRuns: number, includeCreating: boolean): PrunedChanges => {
      // The newest run not kept: its lines and those of every run before it go, but a run that
      // created contacts (a migration) keeps its own unless asked: its undo is what tags them.
      const newestDropped = this.#runs.idFromNewest(keepRuns);
      const pruned: PrunedChanges = { runs: 0, lines: 0, keptCreating: [] };
      if (newestDropped === undefined) return pruned;
      const at = this.#now();
      for (const runId of this.#changes.runIdsBefore(newestDropped + 1)) {
        if (!includeCreating && this.#changes.created(runId)) {
          pruned.keptCreating.push(runId);
          continue;
        }
        pruned.lines += this.#changes.pruneRun(runId);
        pruned.runs++;
        this.#runs.markPruned(runId, at);
      }
      return pruned;
    });
    this.#pruneChanges = (keepRuns, includeCreating) => pruneChanges.immediate(keepRuns, includeCreating);

    // Retention and erasure: one transaction each, the runs marked with the lines they lost.
    const personal = new PersonalData(db);
    const expireJournal = db.transaction((before: number): ExpiredJournal => {
      const expired = personal.expireBefore(before);
      this.#runs.markExpiredBefore(before, this.#now());
      return expired;
    });
    this.#expireJournal = (before) => expireJournal.immediate(before);
    const eraseKeys = db.transaction((keys: readonly string[], dryRun: boolean): ErasedKey[] => {
      const erased = keys.map((key): ErasedKey => {
        const { contactId, removed, runIds } = personal.erase(key);
        const known = Object.keys(removed).length > 0;
        return { key, known, ...(contactId === undefined ? {} : { contactId }), removed, runIds };
      });
      // A dry run's count leaves nothing: a throw is how better-sqlite3 ends a transaction without its commit.
      if (dryRun) throw new RolledBack(erased);
      return erased;
    });
    this.#eraseKeys = (keys, dryRun) => {
      try {
        return eraseKeys.immediate(keys, dryRun);
      } catch (error) {
        if (error instanceof RolledBack) return error.erased;
        throw error;
      }
    };

    // A contact that settles a pending create is the contact that create made: journalled as a
    // create of the run that sent it, in the transaction that clears the mark, so no instant
    // leaves it neither pending nor journalled (docs/undo.md, "Creates whose answer was lost").
    const settle = db.transaction((key: string, contact: { readonly contactId: string; readonly surface: IdSurface }, fields: Readonly<Record<string, string>>, record: () => void): void => {
      const { contactId } = contact;
      const pending = this.#contacts.pendingCreate(key);
      record();
      // A contact holds the key now: a row of it is no longer one the surface could not create.
      this.#uncreatable.delete(key);
      if (pending === undefined) return;
      // A mark from before schema version 7 names no run: the run settling it owns the create. So
      // does a mark of a run on another surface: that run's undo never writes to this id.
      const sender = pending.runId === null ? undefined : this.#runs.get(pending.runId);
      // So does a mark of a run whose journal expired: no line is filed under it again.
      const runId = sender !== undefined && (!trustedOn(sender, contact.surface) || sender.journalExpiredAt !== null) ? this.#runId : (pending.runId ?? this.#runId);
      // The run that sent the create journalled it itself when it learnt the answer.
      if (runId === undefined || this.#changes.hasCreate(key, contactId)) return;
      const written = Object.fromEntries(Object.entries(fields).map(([name, value]): [string, FieldChange] => [name, [null, value]]));
      // A create had no value before: nothing unread to vouch for.
      this.#changes.record(runId, key, contactId, { operation: 'create', fields: written, beforeRead: true }, this.#now());
    });
    this.#settle = (key, contact, fields, record) => settle.immediate(key, contact, fields, record);
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
      refuseEmptyStateFile(path, options.job);
      prepareStateFile(path);
      db = openSqliteDatabase(path);
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      // What is deleted (a pruned change journal, forgotten keys) holds personal values: zeroed
      // where it was, not left in free pages of the file (issue 33; docs/state.md).
      db.pragma('secure_delete = ON');
      migrate(db, path, options.job, now());
      bindIdentity(db, path, options, now());
      return new StateStore(path, db, now);
    } catch (error) {
      db?.close();
      if (error instanceof StateStoreError || error instanceof SqliteBindingError) throw error;
      const reason = typeof error === 'object' && error !== null && 'message' in error ? String(error.message) : String(error);
      // Held past the wait: the file is fine and a later run gets it, as a held job lock (exit 75).
      const code = isBusyStore(error) ? 'STATE_BUSY' : 'STATE_UNREADABLE';
      throw new StateStoreError(code, path, `${path}: cannot open the state store of job "${options.job}" (${reason}). ${stateStoreFix(error, options.job)}`, { cause: error });
    }
  }

  /**
   * Forgets the contacts, pending creates, runs, departures and the change journal's lines (they
   * are filed under the runs), and keeps the message journal (`state reset --keep-messages`): the
   * next run searches each key again, and still sends no message twice.
   */
  forgetAllButMessages(): { keys: number } {
    const keys = this.summary().keys;
    this.#forgetAllButMessages();
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
      this.#contacts.flushRowHashNotes();
    } catch {
      // Notes only save the next run some mapping: a store that cannot take them loses nothing.
    }
    this.#db.close();
  }

  // --- contacts (contacts-table.ts) ---

  get(key: string): StoredContact | undefined {
    return this.#contacts.get(key);
  }

  /**
   * The known keys among `keys`, from one snapshot, a few dozen keys a statement: the brief of
   * each, and the whole record (parsed only when asked) of those `whole` asks for (it is asked
   * before any whole record is read). For the row lookahead, where most rows of a re-run need
   * nothing but the brief.
   */
  readAhead(keys: readonly string[], whole: (brief: StoredContactBrief) => boolean = () => true): Map<string, StoredContactBrief> {
    return this.#contacts.readAhead(keys, whole);
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
    this.#contacts.noteRowHash(key, draftHash, rowHash);
  }

  /**
   * Records a write the platform confirmed, in one transaction: fields merge over those known for
   * the same contact (a different contact id starts afresh), tags added join the known set and
   * tags removed leave it, and a create pending for the key is settled (see `recordObserved`).
   */
  recordConfirmed(key: string, write: ConfirmedWrite): void {
    this.#settle(key, write, write.fields ?? {}, () => this.#contacts.recordConfirmed(key, write));
  }

  /**
   * Records a contact as read from the platform, replacing what is known of the key (used by
   * `--full` and after a search), and settles a create pending for the key in the same
   * transaction: the mark is cleared, and the contact is journalled as a create of the run that
   * sent it (of this run, for a mark that names none) unless that run journalled it already.
   */
  recordObserved(key: string, observed: ObservedContact): void {
    this.#settle(key, observed, observed.fields, () => this.#contacts.recordObserved(key, observed));
  }

  /**
   * Records that a create for `key` is about to be sent, by the current run. Call it before
   * sending: it is on disk (fsynced) when this returns, so after a crash the next run searches the
   * key before creating, and journals the contact it finds as this run's create.
   */
  markCreatePending(key: string): void {
    this.#durably(() => this.#contacts.markPending(key, this.#runId ?? null));
  }

  /** The create for `key` is settled otherwise (surely not created, or found by a search). */
  clearCreatePending(key: string): void {
    this.#contacts.clearPending(key);
  }

  /**
   * Whether the store holds a contact for `key`; with `surface`, one whose id came from that
   * surface (a run on it matches the key without a search; an id of another surface is matched
   * again by its key field).
   */
  knows(key: string, surface?: IdSurface): boolean {
    return this.#contacts.knows(key, surface);
  }

  isCreatePending(key: string): boolean {
    return this.#contacts.isPending(key);
  }

  /**
   * The row of `key` (no contact holds it) failed before any call because the surface cannot
   * create its contact: the next run's row with the same row hash, on the same surface, fails
   * again with no call (uncreatable-rows.ts).
   */
  recordUncreatable(key: string, row: UncreatableRow): void {
    this.#uncreatable.record(key, row);
  }

  /** The marks of `keys` that have one (`recordUncreatable`), for the row lookahead. */
  uncreatableAhead(keys: readonly string[]): Map<string, UncreatableRow> {
    return this.#uncreatable.readAhead(keys);
  }

  // --- limits learnt (kept-limits.ts) ---

  /** The limits earlier runs learnt, by budget (API v2: per endpoint): a run's estimates start from them. */
  learntLimits(): KeptLimit[] {
    return this.#keptLimits.all();
  }

  /** Keeps the limits this run learnt (a budget it did not learn keeps its earlier one). */
  keepLearntLimits(limits: readonly KeptLimit[]): void {
    this.#keptLimits.keep(limits);
  }

  /** Keys whose create was sent without a confirmed answer, sorted. */
  pendingCreates(): string[] {
    return this.#contacts.pending();
  }

  /** The key's contact no longer exists on the platform ("no such contact"). */
  forget(key: string): void {
    this.#contacts.delete(key);
    this.clearDeparted(key);
  }

  /**
   * A reconcile read `key` on the platform: `absent` when no contact holds it (then the store
   * forgets any contact it knew for it, and notes the read under the current run), present
   * otherwise (an earlier absent read is dropped). A store on which no run was started notes none.
   */
  recordReconcileRead(key: string, absent: boolean): void {
    if (!absent) {
      this.#absent.delete(key);
      return;
    }
    if (this.knows(key)) this.forget(key);
    if (this.#runId !== undefined) this.#absent.record(key, this.#runId);
  }

  /** The reconcile's read that found no contact for `key`, if one did (absent-reads.ts). */
  absentRead(key: string): AbsentRead | undefined {
    return this.#absent.get(key);
  }

  /** The first `limit` known contacts in key order (`Infinity`: all). */
  listKeys(limit: number): StoredContact[] {
    return this.#contacts.list(limit);
  }

  /**
   * Visits every known key in key order, from one snapshot, with whether `onMissing` already acted
   * on it. `visit` must not call the store (the read holds the connection).
   */
  scanKeys(visit: (key: ScannedKey) => void): void {
    this.#contacts.scan(visit);
  }

  // --- verification (verify.share, pipeline/verify/) ---

  /**
   * Visits the known keys least recently verified first (never verified first), from one snapshot,
   * each with its whole record and whether it departed, until `visit` returns false. `visit` must
   * not call the store (the read holds the connection).
   */
  scanByVerified(visit: (key: ScannedKey & { readonly record: StoredContact }) => boolean): void {
    this.#contacts.scanByVerified(visit);
  }

  /** The keys' contacts (each while the key still names that contact) were read and agree with the store now: verified now. */
  markVerified(keys: ReadonlyArray<readonly [key: string, contactId: string]>): void {
    this.#contacts.markVerified(keys, this.#now());
  }

  /** Where the next verification by the marker's pages starts: the page, and the pages the marker had when last read. */
  verifyPages(): { readonly next: number; readonly known?: number } {
    const meta = readMeta(this.#db);
    const next = Number(meta.get('verify_next_page') ?? '1');
    const known = meta.get('verify_marker_pages');
    return { next: Number.isSafeInteger(next) && next >= 1 ? next : 1, ...(known === undefined ? {} : { known: Number(known) }) };
  }

  /** Keeps where the next verification by pages starts, and the pages the marker has. */
  recordVerifyPages(next: number, known: number): void {
    const put = this.#db.prepare<[string, string]>('INSERT INTO meta (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value');
    this.#db.transaction(() => {
      put.run('verify_next_page', String(next));
      put.run('verify_marker_pages', String(known));
    }).immediate();
  }

  // --- messages (message-journal.ts) ---

  /**
   * True when this message was recorded for this contact, as `sent` or `unknown` (at most once:
   * a message that may have been delivered is not sent again unless the job says `repeat`).
   */
  messageSent(contactId: string, messageHash: string): boolean {
    return this.#messages.sent(contactId, messageHash);
  }

  /**
   * Records a message to a contact, fsynced before it returns. For at-most-once across a kill,
   * record `unknown` before sending and `sent` once the platform accepted it; if the send surely
   * failed (429, refused connection, rejected request), `forgetMessage` lets a later run send it.
   * A `sent` record keeps the platform's `messageId` when the surface answers one (API v2).
   */
  recordMessage(contactId: string, messageHash: string, status: MessageStatus, messageId?: string): void {
    this.#durably(() => this.#messages.record(contactId, messageHash, status, messageId));
  }

  /**
   * The journal's record of this message to this contact: `sent`, or `unknown` (it left and no
   * answer was recorded: a kill while it was on the wire, or an unknown outcome), when, and the
   * platform's messageId of a `sent` one on API v2.
   */
  messageRecord(contactId: string, messageHash: string): MessageRecord | undefined {
    return this.#messages.recordOf(contactId, messageHash);
  }

  /**
   * Journals, fsynced, that the row of `key` owes a message: before its writes, so a run killed
   * between a write and the send leaves the key marked and the re-run sends it (docs/reliability.md,
   * "Messages journalled when they leave").
   */
  markMessageDue(key: string): void {
    this.#durably(() => this.#messages.markDue(key));
  }

  /** True when the row of `key` owes a message an earlier run did not send. */
  isMessageDue(key: string): boolean {
    return this.#messages.isDue(key);
  }

  /** The row's message left (or was settled): the key owes none. */
  clearMessageDue(key: string): void {
    this.#messages.clearDue(key);
  }

  /** Removes the record of a message that surely was not delivered. */
  forgetMessage(contactId: string, messageHash: string): void {
    this.#messages.forget(contactId, messageHash);
  }

  // --- departed keys (departed-keys.ts) ---

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
    return this.#departed.get(key);
  }

  /** The key came back (its row was synced): a later departure acts again. */
  clearDeparted(key: string): void {
    this.#departed.clear(key);
  }

  // --- runs (run-journal.ts) ---

  /**
   * Journals the start of a run; returns its id for `finishRun`. The store keeps it as its current
   * run (`currentRunId`): `journalChange` files its lines under it, until another run is started.
   */
  startRun(start: RunStart): number {
    this.#runId = this.#runs.start(start);
    return this.#runId;
  }

  finishRun(runId: number, finish: RunFinish): void {
    this.#contacts.flushRowHashNotes();
    this.#runs.finish(runId, finish);
  }

  /** The run `startRun` last started on this store; undefined when none was (then `journalChange` journals nothing). */
  get currentRunId(): number | undefined {
    return this.#runId;
  }

  /** One run by its id, finished or not. */
  run(runId: number): RunRecord | undefined {
    return this.#runs.get(runId);
  }

  /** The latest `count` runs, newest first, finished or not. */
  lastRuns(count: number): RunRecord[] {
    return this.#runs.last(count);
  }

  /** The latest run, finished or not (a killed run stays unfinished). */
  lastRun(): RunRecord | undefined {
    return this.#runs.lastOne();
  }

  lastFinishedRun(): RunRecord | undefined {
    return this.#runs.lastFinished();
  }

  // --- the input's header (meta) ---

  /** The header of the input of the last run that wrote (`recordHeader`); undefined before one. */
  lastHeader(): string[] | undefined {
    const text = readMeta(this.#db).get('last_header');
    if (text === undefined) return undefined;
    const parsed: unknown = JSON.parse(text);
    return Array.isArray(parsed) && parsed.every((name) => typeof name === 'string') ? parsed : undefined;
  }

  /** Keeps the header of this run's input, so the next run can name a column renamed upstream. */
  recordHeader(header: readonly string[]): void {
    this.#durably(() => {
      this.#db
        .prepare<[string, string]>('INSERT INTO meta (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value')
        .run('last_header', JSON.stringify(header));
    });
  }

  // --- the change journal (change-journal.ts) ---

  /**
   * Journals one call the platform confirmed for `key`'s contact under the current run (the one
   * `startRun` last started on this store), durably, in a transaction of its own: call it as soon
   * as the call is confirmed, before the next leaves. A store on which no run was started (a
   * `state` command, a test) journals nothing.
   */
  journalChange(key: string, contactId: string, entry: ChangeEntry): void {
    if (this.#runId === undefined) return;
    this.#changes.record(this.#runId, key, contactId, entry, this.#now());
  }

  /** The change lines of one run, in the order their calls were confirmed. */
  changesOfRun(runId: number): ChangeLine[] {
    return this.#changes.forRun(runId);
  }

  /** The change lines of one key, over every run kept, oldest first. */
  changesOfKey(key: string): ChangeLine[] {
    return this.#changes.forKey(key);
  }

  /**
   * Drops the change lines of every run but the newest `keepRuns` (by id, finished or not, with
   * lines or none), in one transaction; returns how many runs had lines dropped and how many lines.
   * The runs themselves stay in the runs journal, marked pruned (`RunRecord.prunedAt`). A run
   * that created contacts keeps its lines unless `includeCreating` (`keptCreating` lists them).
   * `keepRuns` 0 drops every other line.
   * @throws RangeError when `keepRuns` is not a whole number of 0 or more
   */
  pruneChanges(keepRuns: number, options: { readonly includeCreating?: boolean } = {}): PrunedChanges {
    if (!Number.isSafeInteger(keepRuns) || keepRuns < 0) throw new RangeError(`pruneChanges: keepRuns must be a whole number of 0 or more, not ${keepRuns}`);
    return this.#pruneChanges(keepRuns, options.includeCreating === true);
  }

  /**
   * Gives the space of what was deleted (a pruned change journal) back to the file system: VACUUM
   * rebuilds the file without its free pages (it needs free disk space about the file's size, and
   * no other process writing), then the WAL is checkpointed and truncated. Returns the file's size
   * (its pages) before and after, in bytes. docs/state.md, "The change journal's size".
   * @throws SqliteError when the file cannot be rebuilt now (busy, a full disk): nothing is lost,
   * the free pages stay and are reused by later writes.
   */
  reclaimSpace(): { readonly before: number; readonly after: number } {
    const size = (): number => Number(this.#db.pragma('page_count', { simple: true })) * Number(this.#db.pragma('page_size', { simple: true }));
    const before = size();
    this.#db.exec('VACUUM');
    this.#db.pragma('wal_checkpoint(TRUNCATE)');
    return { before, after: size() };
  }

  // --- personal data (personal-data.ts; docs/personal-data.md) ---

  reportFolders(): string[] {
    return this.#runs.reportFolders();
  }

  /**
   * Deletes the change lines (values before and after) of every run started before `before` (ms
   * since the epoch), in one transaction, and marks those runs' journal expired now
   * (`RunRecord.journalExpiredAt`); the runs and their counts stay. Then the WAL is checkpointed
   * and truncated: `secure_delete` zeroed the deleted cells, and no older copy of their pages is
   * left in the -wal (docs/decisions.md, "Personal data leaves the file").
   */
  expireJournal(before: number): ExpiredJournal {
    const expired = this.#expireJournal(before);
    if (expired.lines > 0) this.#scrubWal();
    return expired;
  }

  /**
   * Every value of each key leaves the store, in one transaction: its record, pending create,
   * message due, departure, absent read, uncreatable row, change lines, and the message records of
   * its contact ids; then the WAL is checkpointed and truncated, as `expireJournal`. One entry per
   * key, in the order given; `known: false` for a key the store held nothing of. `dryRun`: the
   * same entries, counted in a transaction rolled back (`forget --dry-run`): nothing leaves.
   */
  eraseKeys(keys: readonly string[], options: { readonly dryRun?: boolean } = {}): ErasedKey[] {
    const dryRun = options.dryRun === true;
    const erased = this.#eraseKeys(keys, dryRun);
    if (!dryRun && erased.some((entry) => entry.known)) this.#scrubWal();
    return erased;
  }

  /**
   * Copies the WAL into the file and truncates it to 0 bytes: the pages that held deleted values
   * before `secure_delete` zeroed them stay in the -wal otherwise, until the last connection
   * closes. A reader holding an older snapshot (a `sqlite3` shell, a backup) keeps the checkpoint
   * from finishing: then the close of the last connection does it.
   */
  #scrubWal(): void {
    this.#db.pragma('wal_checkpoint(TRUNCATE)');
  }

  /** How many change lines run `runId` journalled (kept: not pruned). */
  changeCountOfRun(runId: number): number {
    return this.#changes.countForRun(runId);
  }

  /** Whether run `runId` journalled a change of key `key` (`undo --key`). */
  runChangedKey(runId: number, key: string): boolean {
    return this.#changes.changedKey(runId, key);
  }

  // --- the file ---

  summary(): StateSummary {
    const meta = readMeta(this.#db);
    return {
      path: this.path,
      job: meta.get('job') ?? '',
      keyField: meta.get('key_field') ?? '',
      schemaVersion: SCHEMA_VERSION,
      keys: this.#contacts.count(),
      pendingCreates: this.#contacts.pendingCount(),
      messages: this.#messages.count(),
      departed: this.#departed.count(),
      changes: this.#changes.count(),
      lastRun: this.lastRun(),
      lastFinishedRun: this.lastFinishedRun(),
    };
  }

  // --- state copy (StateTransfer, issue 44) ---

  /** Whether the file holds any state of the job: a known key or a run. */
  holdsState(): boolean {
    const row = this.#db.prepare<[], { holds: number }>('SELECT EXISTS (SELECT 1 FROM contacts) OR EXISTS (SELECT 1 FROM runs) AS holds').get();
    return row?.holds === 1;
  }

  /**
   * The job's whole state, a page of one table at a time (state-tables.ts: the tables in order,
   * each in its key's order, every column as this file has it), from one read transaction. The
   * file's identity (meta's job, key field, creation) is not state: it is not exported.
   */
  exportState(visit: (page: StatePage) => void): void {
    this.#contacts.flushRowHashNotes();
    const read = this.#db.transaction(() => {
      for (const table of STATE_TABLES) {
        const order = table.key.map((name) => `"${name}"`).join(', ');
        let after: unknown[] | null = null;
        for (;;) {
          const keyset: string = after === null ? '' : `AND (${order}) > (${table.key.map(() => '?').join(', ')})`;
          const rows = this.#db
            .prepare<unknown[], Record<string, unknown>>(`SELECT * FROM "${table.sqlite}" WHERE 1 ${table.exportWhere ?? ''} ${keyset} ORDER BY ${order} LIMIT ${EXPORT_PAGE_ROWS}`)
            .all(...(after ?? []));
          if (rows.length > 0) visit({ table: table.sqlite, rows });
          if (rows.length < EXPORT_PAGE_ROWS) break;
          const last = rows[rows.length - 1] ?? {};
          after = table.key.map((name) => last[name]);
        }
      }
    });
    read.deferred();
  }

  /**
   * Replaces the job's whole state by the pages `source` visits (another store's `exportState`),
   * in one transaction: every table of the state emptied, then each page's rows inserted with
   * the columns this file has (a column of a newer or other store's that it lacks is left out),
   * run and line ids kept. The file's identity stays its own.
   */
  importState(source: (visit: (page: StatePage) => void) => void): void {
    this.#contacts.flushRowHashNotes();
    const columnsOf = new Map<string, Set<string>>();
    const load = this.#db.transaction(() => {
      for (const table of STATE_TABLES) this.#db.prepare(`DELETE FROM "${table.sqlite}" WHERE 1 ${table.exportWhere ?? ''}`).run();
      source((page) => {
        const table = STATE_TABLES.find((candidate) => candidate.sqlite === page.table);
        if (table === undefined) {
          throw new StateStoreError('STATE_UNREADABLE', this.path, `${this.path}: the state to import has a table "${page.table}" this contact-sync does not know: copy it with the same version on both sides.`);
        }
        let known = columnsOf.get(table.sqlite);
        if (known === undefined) {
          known = new Set(this.#db.prepare<[], { name: string }>(`SELECT name FROM pragma_table_info('${table.sqlite}')`).all().map((column) => column.name));
          columnsOf.set(table.sqlite, known);
        }
        for (const row of table.importFilter === undefined ? page.rows : page.rows.filter(table.importFilter)) {
          const names = Object.keys(row).filter((name) => known.has(name));
          this.#db
            .prepare(`INSERT INTO "${table.sqlite}" (${names.map((name) => `"${name}"`).join(', ')}) VALUES (${names.map(() => '?').join(', ')})`)
            .run(...names.map((name) => row[name]));
        }
      });
    });
    this.#durably(() => load.immediate());
    this.#uncreatable.recount();
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

/** Rows of one page of `exportState`. */
const EXPORT_PAGE_ROWS = 5_000;

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

function readMeta(db: Database.Database): Map<string, string> {
  const rows = db.prepare<[], { name: string; value: string }>('SELECT name, value FROM meta').all();
  return new Map(rows.map((row) => [row.name, row.value]));
}

/**
 * A state file of 0 bytes is refused, not taken as a new store: SQLite would read it so, and the
 * run would go on with no journal and no message history. A store this program wrote is never
 * empty (prepareStateFile's empty file gets its header at once), so it was cut: a full disk, a
 * copy that failed, a `> file` by mistake.
 */
function refuseEmptyStateFile(path: string, job: string): void {
  const sizes = stateFilePaths(path).slice(0, 2).map((file) => statSync(file, { throwIfNoEntry: false })?.size);
  const [main, wal] = sizes;
  if (main !== 0 || (wal ?? 0) > 0) return;
  throw new StateStoreError(
    'STATE_UNREADABLE',
    path,
    `${path}: the state file of job "${job}" is empty (0 bytes), so its contact ids, change journal and message history are not in it; ` +
      `restore it from a backup, or remove it (with \`${resetCommand(job)}\` or rm) to start afresh: the next run then searches every key again and no longer knows which messages were sent`,
  );
}

/** A dry run's erasure, counted and rolled back (`eraseKeys` with `dryRun`). */
class RolledBack extends Error {
  constructor(readonly erased: ErasedKey[]) {
    super('rolled back: a dry run of eraseKeys');
  }
}
