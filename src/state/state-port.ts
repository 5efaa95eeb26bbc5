/**
 * The state store as a port: one narrow role per user, each the whole of what that user may ask
 * of the store. A user depends on its role, never on an adapter; `StatePort` is every role at
 * once, what an adapter implements (`state-store.ts`, SQLite, the embedded default;
 * `postgres/postgres-store.ts`, PostgreSQL) and what only the wiring (the CLI, `run-job.ts`)
 * holds. The behaviour each role promises is one contract suite run against every adapter
 * (test/state/contract/).
 *
 * The port is synchronous: SQLite answers in-process, and the PostgreSQL adapter waits on a
 * worker thread that holds its connections (docs/decisions.md, "The PostgreSQL adapter: a
 * synchronous port over a worker").
 */
import type { AbsentRead } from './absent-reads.js';
import type { ChangeEntry, ChangeLine } from './change-journal.js';
import type { ConfirmedWrite, ObservedContact, ScannedKey, StoredContactBrief } from './contacts-table.js';
import type { DepartedRecord, Departure } from './departed-keys.js';
import type { KeptLimit } from './kept-limits.js';
import type { IdSurface, StoredContact } from './known-contact.js';
import type { MessageRecord, MessageStatus } from './message-journal.js';
import type { RunFinish, RunRecord, RunStart } from './run-journal.js';
import type { UncreatableRow } from './uncreatable-rows.js';

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
  /** Lines of the change journal, over every run kept. */
  readonly changes: number;
  /** The latest run, finished or not. */
  readonly lastRun: RunRecord | undefined;
  readonly lastFinishedRun: RunRecord | undefined;
}

/** What `pruneChanges` did: the runs whose lines it dropped, those lines, and the runs that created contacts it kept. */
export interface PrunedChanges {
  runs: number;
  lines: number;
  /** Ids of the runs not kept that created contacts: their lines stay unless `includeCreating`. */
  keptCreating: number[];
}

// --- the parts several roles share ---

/** What is known of one key now: its record, a create pending for it, a reconcile's read that found it absent. */
export interface KeyReads {
  get(key: string): StoredContact | undefined;
  isCreatePending(key: string): boolean;
  absentRead(key: string): AbsentRead | undefined;
}

/** The departed journal's record of a key, if `onMissing` acted on it and it has not come back. */
export interface DepartedReads {
  departedRecord(key: string): DepartedRecord | undefined;
}

/** Where each confirmed call is journalled, under the run the store started last (docs/undo.md). */
export interface ChangeJournalStore {
  journalChange(key: string, contactId: string, entry: ChangeEntry): void;
}

/** The journal of a message's sends (at most once: docs/reliability.md). */
export interface MessageStore {
  messageRecord(contactId: string, messageHash: string): MessageRecord | undefined;
  recordMessage(contactId: string, messageHash: string, status: MessageStatus, messageId?: string): void;
  forgetMessage(contactId: string, messageHash: string): void;
}

/** A contact read from the platform recorded, and a key whose contact is gone forgotten. */
export interface ObservedWrites {
  recordObserved(key: string, observed: ObservedContact): void;
  forget(key: string): void;
}

/** Every known key in key order, with whether it departed (`visit` must not call the store). */
export interface KeyScan {
  scanKeys(visit: (key: ScannedKey) => void): void;
}

// --- one role per user ---

/** The row lookahead: the known keys of a batch of rows, read ahead of them in one snapshot. */
export interface LookaheadStore {
  /**
   * How many rows' keys the store would rather be asked at once: a store across a network pays a
   * round trip per batch, one in-process none. @default the lookahead's own (64)
   */
  readonly aheadRows?: number;
  readAhead(keys: readonly string[], whole?: (brief: StoredContactBrief) => boolean): Map<string, StoredContactBrief>;
  pendingCreates(): string[];
  uncreatableAhead(keys: readonly string[]): Map<string, UncreatableRow>;
}

/**
 * A synced row (`row/sync-row.ts`): what is known of its key (read now when not read ahead), what
 * its confirmed writes or its reads leave known, its create-pending and message-due marks, the
 * change journal of its calls and the journal of its message's sends.
 */
export interface RowStore extends KeyReads, DepartedReads, ObservedWrites, ChangeJournalStore, MessageStore {
  isMessageDue(key: string): boolean;
  recordConfirmed(key: string, write: ConfirmedWrite): void;
  noteRowHash(key: string, draftHash: string, rowHash: string): void;
  clearDeparted(key: string): void;
  markCreatePending(key: string): void;
  recordUncreatable(key: string, row: UncreatableRow): void;
  markMessageDue(key: string): void;
  clearMessageDue(key: string): void;
}

/** A reconciled row (`row/reconcile-row.ts`): the key's state read; the contact observed and the key read absent or present written. */
export interface ReconcileStore extends KeyReads, DepartedReads, ChangeJournalStore {
  recordObserved(key: string, observed: ObservedContact): void;
  recordReconcileRead(key: string, absent: boolean): void;
}

/** The prefetch choice: how many keys are known, which on this surface, which a reconcile read absent. */
export interface PrefetchStore {
  summary(): StateSummary;
  knows(key: string, surface?: IdSurface): boolean;
  absentRead(key: string): AbsentRead | undefined;
}

/** The departed step: the known keys scanned, each departure recorded, a gone key forgotten, its calls journalled. */
export interface DepartedStore extends KeyScan, ObservedWrites, ChangeJournalStore {
  recordDeparture(key: string, departure: Departure): void;
}

/** Verification: the keys least recently verified first (or the marker's pages round robin), marked verified, repaired, forgotten when gone. */
export interface VerifyStore extends KeyScan, DepartedReads, ChangeJournalStore {
  get(key: string): StoredContact | undefined;
  forget(key: string): void;
  scanByVerified(visit: (key: ScannedKey & { readonly record: StoredContact }) => boolean): void;
  markVerified(keys: ReadonlyArray<readonly [key: string, contactId: string]>): void;
  verifyPages(): { readonly next: number; readonly known?: number };
  recordVerifyPages(next: number, known: number): void;
}

/** The journal of runs, as a run keeps its line: started (with the input's header), finished. */
export interface RunJournalStore {
  startRun(start: RunStart): number;
  finishRun(runId: number, finish: RunFinish): void;
  recordHeader(header: readonly string[]): void;
}

/** Undo: the undone run's change lines, the keys' records, the contacts it reads back, its own run's line and calls. */
export interface UndoStore extends ObservedWrites, ChangeJournalStore, RunJournalStore {
  get(key: string): StoredContact | undefined;
  changesOfRun(runId: number): ChangeLine[];
}

/** What the wiring of a run reads before its rows: the last run and header, the limits earlier runs learnt. */
export interface RunWiringStore {
  lastRun(): RunRecord | undefined;
  lastHeader(): string[] | undefined;
  learntLimits(): KeptLimit[];
  keepLearntLimits(limits: readonly KeptLimit[]): void;
}

/** The CLI's reads and upkeep: `state show/reset/prune`, `history`, `undo`'s choice of a run. */
export interface StateAdmin {
  readonly path: string;
  summary(): StateSummary;
  listKeys(limit: number): StoredContact[];
  run(runId: number): RunRecord | undefined;
  lastRuns(count: number): RunRecord[];
  lastFinishedRun(): RunRecord | undefined;
  changesOfRun(runId: number): ChangeLine[];
  changesOfKey(key: string): ChangeLine[];
  changeCountOfRun(runId: number): number;
  runChangedKey(runId: number, key: string): boolean;
  forgetAllButMessages(): { keys: number };
  pruneChanges(keepRuns: number, options?: { readonly includeCreating?: boolean }): PrunedChanges;
  reclaimSpace(): { readonly before: number; readonly after: number };
  close(): void;
}

// --- personal data (issue 45, docs/personal-data.md) ---

/** What `expireJournal` dropped: the runs whose journal lines expired, and those lines. */
export interface ExpiredJournal {
  readonly runs: number;
  /** Change lines deleted. */
  readonly lines: number;
}

/** What `eraseKeys` removed of one key. */
export interface ErasedKey {
  readonly key: string;
  /** False when the store held nothing of the key (then nothing else is set). */
  readonly known: boolean;
  /** The contact id the store knew for the key (for `forget --platform`), if it knew one. */
  readonly contactId?: string;
  /** Counts of what left the store, by what it was: `record`, `pendingCreate`, `changeLines`, `messages`, `messageDue`, `departure`, `absentRead`, `uncreatable`. */
  readonly removed: Readonly<Record<string, number>>;
  /** The runs whose change lines named the key (their report folders may hold it). */
  readonly runIds: readonly number[];
}

/**
 * Retention and erasure: the journal's values past `retention.journal`, and every value of a key
 * (an erasure request). Neither leaves a deleted value readable in the store's files (SQLite:
 * secure_delete and a checkpoint of the WAL; PostgreSQL: the rows are deleted).
 */
export interface PersonalDataStore {
  /** Deletes the change lines (values before and after) of every run started before `before` (ms since the epoch); run lines and counts stay, each marked expired at now. */
  expireJournal(before: number): ExpiredJournal;
  /**
   * Every value of each key leaves the store: its record, marks, journal lines, message records, departure, reads. One entry per key, in the order given.
   * `dryRun` (`forget --dry-run`): the same entries, counted in a transaction rolled back: nothing leaves.
   */
  eraseKeys(keys: readonly string[], options?: { readonly dryRun?: boolean }): ErasedKey[];
  /** Every folder the job's runs wrote their reports to (as each run named it, absolute), each once: where `forget` looks for the keys' copies. */
  reportFolders(): string[];
}

// --- state copy (issue 44) ---

/** A page of one table's rows of the job: columns as the SQLite schema names them (state/schema.ts, the reference format). */
export interface StatePage {
  readonly table: string;
  readonly rows: ReadonlyArray<Readonly<Record<string, unknown>>>;
}

/** `state copy`: a job's whole state out of one store and into another, either way. */
export interface StateTransfer {
  /** Whether the store holds any state of the job (a key or a run). */
  holdsState(): boolean;
  /** The job's whole state (keys, runs, both journals, marks, departures, verification, reads, limits), a page of one table at a time. */
  exportState(visit: (page: StatePage) => void): void;
  /** Replaces the job's whole state by the pages `source` visits (another store's `exportState`), in one transaction; run ids are kept. */
  importState(source: (visit: (page: StatePage) => void) => void): void;
}

/** Every role at once: what an adapter implements and only the wiring holds. */
export interface StatePort
  extends RowStore,
    LookaheadStore,
    ReconcileStore,
    PrefetchStore,
    DepartedStore,
    VerifyStore,
    RunJournalStore,
    UndoStore,
    RunWiringStore,
    StateAdmin,
    PersonalDataStore,
    StateTransfer {}
