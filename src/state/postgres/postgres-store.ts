/**
 * The PostgreSQL adapter of the state port (../state-port.ts): everything the SQLite store
 * (../state-store.ts) keeps, with the same meaning, in a schema of a database many hosts share
 * (pg-schema.ts), each job's rows under its job id. docs/state.md, "State in PostgreSQL".
 *
 * The port is synchronous: each method that needs the database makes one blocking request to a
 * worker thread that holds the `pg` clients (sync-bridge.ts; docs/decisions.md says why and what
 * it costs). What the SQLite store makes one transaction is one transaction here, committed
 * before the method returns: a create's pending mark, a message's mark, a journal line, a
 * confirmed write that settles a pending create with its journalled create, a departure,
 * `pruneChanges`, `forgetAllButMessages`. The hot path pays no round trip per row: `readAhead`
 * and `uncreatableAhead` read a batch of keys in one query each, row hash notes are held and
 * written with the next request, and a table this job has no row in (pending creates, messages
 * due, absent reads, uncreatable rows) is not asked about each key.
 *
 * A failure after open (the connection lost, no answer in time, a statement refused) throws a
 * `StoreFailure` (`STATE_PG_...`), and every later call throws it again at once: nothing is
 * written after the loss, and the pipeline stops the job as it does for a SQLite failure.
 */
import type { AbsentRead } from '../absent-reads.js';
import { journalJson, toChangeLine, type ChangeEntry, type ChangeLine, type ChangeRow, type FieldChange } from '../change-journal.js';
import {
  confirmedRow,
  contactOf,
  nextJobTags,
  observedRow,
  storedContactBrief,
  toStoredContact,
  type ConfirmedWrite,
  type ContactParams,
  type ContactRow,
  type ObservedContact,
  type ScannedKey,
  type StoredContactBrief,
} from '../contacts-table.js';
import type { DepartedRecord, Departure } from '../departed-keys.js';
import { parseFields, parseTags } from '../json-columns.js';
import type { KeptLimit } from '../kept-limits.js';
import { trustedOn, type IdSurface, type StoredContact } from '../known-contact.js';
import type { MessageRecord, MessageStatus } from '../message-journal.js';
import { toRunRecord, type RunFinish, type RunRecord, type RunRow, type RunStart } from '../run-journal.js';
import type { ErasedKey, ExpiredJournal, PersonalDataStore, PrunedChanges, StatePage, StatePort, StateSummary, StateTransfer } from '../state-port.js';
import { StateStoreError, StoreFailure, type StoreFailureCode } from '../state-store-error.js';
import type { UncreatableRow } from '../uncreatable-rows.js';
import { currentVersion, DEFAULT_PG_SCHEMA, migratePg, PG_SCHEMA_VERSION, quoted, validSchemaName } from './pg-schema.js';
import { bindIdentity, existingIdentity, hidePassword, openFailure, parseEndpoint, takeRunLock, type RunLockTaker } from './pg-open.js';
import { BridgeFailure, SyncBridge, type Row, type Statement } from './sync-bridge.js';
import { STATE_TABLES } from '../state-tables.js';

/** Where the state lives: `state: postgres://...` or `state: {url, schema}`. */
export interface PostgresTarget {
  readonly url: string;
  /** @default contact_sync */
  readonly schema: string;
}

export interface PostgresStoreOptions {
  /** The job's name: part of its identity in the database. */
  readonly job: string;
  /** The custom field whose values are the keys: part of the identity; another for the same name and platform is refused. */
  readonly keyField: string;
  /** The connection's platform identity, as the caller names it (`v2:<digest>`): part of the identity. */
  readonly platform: string;
  /** @default Date.now */
  readonly now?: () => number;
  /**
   * Take the job's run lock (an advisory lock, on a connection of its own, held until `close`),
   * naming this holder. Every command that writes the job's state (run, reconcile, undo) takes it:
   * a whole run's holder is the job's one writer; the shards of one count (`shardCount`) hold it
   * together, each a writer.
   */
  readonly runLock?: RunLockTaker;
  /** How long a request waits for the database's answer. @default 120 s */
  readonly timeoutMs?: number;
  /** How long the connection may take to open (then the database is unreachable). @default 10 s */
  readonly connectTimeoutMs?: number;
}

/** Rows read by one page of a scan or an export. */
const PAGE_ROWS = 5_000;
/** Row hash notes held before they are written on their own (they also go with the next request). */
const ROW_HASH_NOTES = 512;
/** The connect timeout: an unreachable database is told in seconds, not minutes. */
const CONNECT_TIMEOUT_MS = 10_000;

type ContactScanRow = ContactRow & { departed: boolean };

export class PostgresStateStore implements StatePort, StateTransfer, PersonalDataStore {
  /**
   * Rows read ahead per batch (`LookaheadStore.aheadRows`): each batch is a round trip to the
   * server, so a zero-call night reads 512 rows' keys at once where SQLite, in-process, reads 64.
   */
  readonly aheadRows = 512;
  readonly #bridge: SyncBridge;
  readonly #now: () => number;
  readonly #s: string;
  readonly #jobId: number;
  readonly #job: string;
  readonly #keyField: string;
  readonly #password: string;
  /** The run lock's holder, when this store took it; `alone`: a whole run's, the job's one writer (not a shard's). */
  readonly #lockHolder: { readonly lockPid: number; readonly alone: boolean } | undefined;
  #rowHashNotes: Array<{ key: string; draft_hash: string; row_hash: string }> = [];
  #failure: StoreFailure | undefined;
  #closed = false;
  /**
   * Whether the job may have rows there: a table it has none in is not asked about each key. Kept
   * only by the holder of the run lock (the job's one writer); without it, every table is asked.
   */
  #any: { pending: boolean; due: boolean; absent: boolean; uncreatable: boolean };
  #runId: number | undefined;

  private constructor(
    /** The database as messages name it: `postgres://user@host:port/db#schema`, no password. */
    readonly path: string,
    init: {
      bridge: SyncBridge;
      now: () => number;
      schema: string;
      jobId: number;
      job: string;
      keyField: string;
      password: string;
      lockHolder: { readonly lockPid: number; readonly alone: boolean } | undefined;
    },
  ) {
    this.#bridge = init.bridge;
    this.#now = init.now;
    this.#s = quoted(init.schema);
    this.#jobId = init.jobId;
    this.#job = init.job;
    this.#keyField = init.keyField;
    this.#password = init.password;
    this.#lockHolder = init.lockHolder;
    // Only a whole run's holder of the run lock is the job's only writer: without it (a reader, or
    // a shard beside the other shards) every table is asked.
    if (this.#lockHolder?.alone !== true) {
      this.#any = { pending: true, due: true, absent: true, uncreatable: true };
      return;
    }
    const [pending, due, absent, uncreatable] = this.#q([
      this.#exists('pending_creates'),
      this.#exists('messages_due'),
      this.#exists('absent_reads'),
      this.#exists('uncreatable_rows'),
    ]).map((rows) => rows[0]?.present === true);
    this.#any = { pending: pending ?? true, due: due ?? true, absent: absent ?? true, uncreatable: uncreatable ?? true };
  }

  /**
   * Connects, migrates the schema, finds (or records) the job's identity and, with `runLock`,
   * takes the job's run lock.
   * @throws StateStoreError `STATE_UNREADABLE` (unreachable, login refused, no such database, no
   * right to create the schema, not a URL), `STATE_SCHEMA_TOO_NEW`, `STATE_KEY_FIELD_MISMATCH`
   * @throws LockHeldError when another run of the job holds its lock (exit 75)
   */
  static open(target: PostgresTarget, options: PostgresStoreOptions): PostgresStateStore {
    const store = PostgresStateStore.#open(target, options, 'create');
    if (store === undefined) throw new Error('internal: an opening that creates found nothing');
    return store;
  }

  /**
   * The job's store when the database already holds the job's identity, else undefined, having
   * written nothing: no schema is created and no identity recorded (a dry run, `history`, `state
   * show` on a database the job never ran against, also with a role that may only read). A schema
   * of an older version is migrated, as `open` does; with `runLock`, the job is held as `open` holds it.
   * @throws StateStoreError as `open`
   * @throws LockHeldError as `open`
   */
  static openExisting(target: PostgresTarget, options: PostgresStoreOptions): PostgresStateStore | undefined {
    return PostgresStateStore.#open(target, options, 'existing');
  }

  static #open(target: PostgresTarget, options: PostgresStoreOptions, mode: 'create' | 'existing'): PostgresStateStore | undefined {
    const schema = target.schema === '' ? DEFAULT_PG_SCHEMA : target.schema;
    const endpoint = parseEndpoint(target.url);
    const path = `postgres://${endpoint.user === '' ? '' : `${endpoint.user}@`}${endpoint.host}:${endpoint.port}/${endpoint.database}#${schema}`;
    if (!validSchemaName(schema)) {
      throw new StateStoreError('STATE_UNREADABLE', path, `${path}: "${schema}" is not a schema name contact-sync uses: give a lower-case name of letters, digits and _ (state: {url, schema}), or leave it out for "${DEFAULT_PG_SCHEMA}".`);
    }
    const now = options.now ?? Date.now;
    const bridge = SyncBridge.start(
      { connectionString: target.url, connectionTimeoutMillis: options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS, application_name: 'contact-sync' },
      options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs },
    );
    try {
      if (mode === 'existing' && currentVersion(bridge, schema) === 0) {
        bridge.close();
        return undefined;
      }
      migratePg(bridge, { where: path, schema, job: options.job }, now());
      const jobId = mode === 'create' ? bindIdentity(bridge, path, quoted(schema), options, now()) : existingIdentity(bridge, path, quoted(schema), options);
      if (jobId === undefined) {
        bridge.close();
        return undefined;
      }
      let lockHolder: { lockPid: number; alone: boolean } | undefined;
      if (options.runLock !== undefined) {
        const lockPid = takeRunLock(bridge, path, quoted(schema), schema, jobId, options.job, options.runLock, now());
        lockHolder = { lockPid, alone: options.runLock.shardCount === undefined };
      }
      return new PostgresStateStore(path, { bridge, now, schema, jobId, job: options.job, keyField: options.keyField, password: endpoint.password, lockHolder });
    } catch (error) {
      bridge.close();
      if (error instanceof BridgeFailure) throw openFailure(error, endpoint, path, options.job);
      throw error;
    }
  }

  /** Ends the connections (the run lock frees itself with its connection); held row hash notes are written first. Closing twice is harmless. */
  close(): void {
    if (this.#closed) return;
    try {
      if (this.#failure === undefined) {
        const statements: Statement[] = [];
        const notes = this.#takeNotes();
        if (notes !== undefined) statements.push(notes);
        if (this.#lockHolder !== undefined) {
          statements.push({ text: `DELETE FROM ${this.#s}.run_locks WHERE job_id = $1 AND lock_pid = $2`, values: [this.#jobId, this.#lockHolder.lockPid] });
        }
        if (statements.length > 0) this.#bridge.run(statements, { begin: true, commit: true, timeoutMs: 10_000 });
      }
    } catch {
      // Notes only save the next run some mapping; the holder's row is replaced by the next holder.
    } finally {
      this.#closed = true;
      this.#bridge.close();
    }
  }

  // --- contacts ---

  get(key: string): StoredContact | undefined {
    const row = this.#rows({ text: `SELECT * FROM ${this.#s}.contacts WHERE job_id = $1 AND key = $2`, values: [this.#jobId, key] })[0];
    return row === undefined ? undefined : toStoredContact(row as unknown as ContactRow);
  }

  /** The known keys among `keys`, in one query: the brief of each, and the whole record of those `whole` asks for. */
  readAhead(keys: readonly string[], whole: (brief: StoredContactBrief) => boolean = () => true): Map<string, StoredContactBrief> {
    const briefs = new Map<string, StoredContactBrief>();
    if (keys.length === 0) return briefs;
    // The briefs first (no fields or tags: on a night of unchanged rows they settle every row by
    // its row hash), then the whole rows of the keys that need them, as SQLite's readAhead does:
    // reading and handing over every contact's fields cost more than the rest of the night.
    // Whether a key departed as one hashed set of the batch's departed keys: a lookup of the departed
    // table for each contact (a join, or EXISTS) doubled the batch's time.
    const rows = this.#rows({
      text: `SELECT c.key, c.contact_id, c.surface, c.draft_hash, c.row_hash,
                    c.key IN (SELECT d.key FROM ${this.#s}.departed d WHERE d.job_id = $1 AND d.key = ANY($2::text[])) AS departed
             FROM ${this.#s}.contacts c WHERE c.job_id = $1 AND c.key = ANY($2::text[])`,
      values: [this.#jobId, keys],
    }) as unknown as Array<Pick<ContactScanRow, 'key' | 'contact_id' | 'surface' | 'draft_hash' | 'row_hash' | 'departed'>>;
    const wholeRows = new Map<string, ContactRow>();
    for (const row of rows) {
      briefs.set(row.key, storedContactBrief({ key: row.key, contactId: row.contact_id, surface: row.surface, draftHash: row.draft_hash, rowHash: row.row_hash, departed: row.departed }, wholeRows));
    }
    const wanted = [...briefs.values()].filter((brief) => whole(brief)).map((brief) => brief.key);
    if (wanted.length > 0) {
      const full = this.#rows({ text: `SELECT * FROM ${this.#s}.contacts WHERE job_id = $1 AND key = ANY($2::text[])`, values: [this.#jobId, wanted] }) as unknown as ContactRow[];
      for (const row of full) wholeRows.set(row.key, row);
    }
    return briefs;
  }

  /** Notes the row hash of a row found unchanged by its draft hash (held; written with the next request, at the latest on close). */
  noteRowHash(key: string, draftHash: string, rowHash: string): void {
    this.#live();
    this.#rowHashNotes.push({ key, draft_hash: draftHash, row_hash: rowHash });
    if (this.#rowHashNotes.length >= ROW_HASH_NOTES) this.#q([]);
  }

  recordConfirmed(key: string, write: ConfirmedWrite): void {
    this.#settle(key, write, write.fields ?? {}, (known) => [this.#upsertContact(...confirmedRow(key, known, write, this.#now()))]);
  }

  recordObserved(key: string, observed: ObservedContact): void {
    this.#settle(key, observed, observed.fields, (known) => {
      const now = this.#now();
      const statements = [this.#upsertContact(...observedRow(key, known, observed, now))];
      if (observed.unread !== true) {
        statements.push({ text: `UPDATE ${this.#s}.contacts SET verified_at = $2 WHERE job_id = $1 AND key = $3 AND contact_id = $4`, values: [this.#jobId, now, key, observed.contactId] });
      }
      return statements;
    });
  }

  /** Journals, committed before it returns, that a create for `key` is about to be sent by the current run. */
  markCreatePending(key: string): void {
    this.#write([
      {
        text: `INSERT INTO ${this.#s}.pending_creates (job_id, key, marked_at, run_id) VALUES ($1, $2, $3, $4)
               ON CONFLICT (job_id, key) DO UPDATE SET marked_at = excluded.marked_at, run_id = excluded.run_id`,
        values: [this.#jobId, key, this.#now(), this.#runId ?? null],
      },
    ], true);
    this.#any.pending = true;
  }

  clearCreatePending(key: string): void {
    if (this.#any.pending) this.#write([{ text: `DELETE FROM ${this.#s}.pending_creates WHERE job_id = $1 AND key = $2`, values: [this.#jobId, key] }]);
    else this.#live();
  }

  knows(key: string, surface?: IdSurface): boolean {
    const rows =
      surface === undefined
        ? this.#rows({ text: `SELECT 1 FROM ${this.#s}.contacts WHERE job_id = $1 AND key = $2`, values: [this.#jobId, key] })
        : this.#rows({ text: `SELECT 1 FROM ${this.#s}.contacts WHERE job_id = $1 AND key = $2 AND surface = $3`, values: [this.#jobId, key, surface] });
    return rows.length > 0;
  }

  isCreatePending(key: string): boolean {
    this.#live();
    if (!this.#any.pending) return false;
    return this.#rows({ text: `SELECT 1 FROM ${this.#s}.pending_creates WHERE job_id = $1 AND key = $2`, values: [this.#jobId, key] }).length > 0;
  }

  recordUncreatable(key: string, row: UncreatableRow): void {
    this.#write([
      {
        text: `INSERT INTO ${this.#s}.uncreatable_rows (job_id, key, row_hash, surface, code, message, recorded_at) VALUES ($1, $2, $3, $4, $5, $6, $7)
               ON CONFLICT (job_id, key) DO UPDATE SET row_hash = excluded.row_hash, surface = excluded.surface, code = excluded.code,
                 message = excluded.message, recorded_at = excluded.recorded_at`,
        values: [this.#jobId, key, row.rowHash, row.surface, row.code, row.message, this.#now()],
      },
    ]);
    this.#any.uncreatable = true;
  }

  /** The marks of `keys` that have one, in one query (none when the job has no mark at all). */
  uncreatableAhead(keys: readonly string[]): Map<string, UncreatableRow> {
    this.#live();
    const marks = new Map<string, UncreatableRow>();
    if (!this.#any.uncreatable || keys.length === 0) return marks;
    const rows = this.#rows({ text: `SELECT key, row_hash, surface, code, message FROM ${this.#s}.uncreatable_rows WHERE job_id = $1 AND key = ANY($2::text[])`, values: [this.#jobId, keys] });
    for (const row of rows) marks.set(String(row.key), { rowHash: String(row.row_hash), surface: row.surface as IdSurface, code: String(row.code), message: String(row.message) });
    return marks;
  }

  learntLimits(): KeptLimit[] {
    return this.#rows({ text: `SELECT budget, calls, period_ms FROM ${this.#s}.learnt_limits WHERE job_id = $1 ORDER BY budget`, values: [this.#jobId] }).map((row) => ({
      name: String(row.budget),
      rate: { limit: Number(row.calls), periodMs: Number(row.period_ms) },
    }));
  }

  keepLearntLimits(limits: readonly KeptLimit[]): void {
    const valid = limits.filter(({ rate }) => Number.isInteger(rate.limit) && rate.limit >= 1 && Number.isFinite(rate.periodMs) && rate.periodMs > 0);
    if (valid.length === 0) return;
    const at = this.#now();
    this.#write(
      valid.map(({ name, rate }) => ({
        text: `INSERT INTO ${this.#s}.learnt_limits (job_id, budget, calls, period_ms, learnt_at) VALUES ($1, $2, $3, $4, $5)
               ON CONFLICT (job_id, budget) DO UPDATE SET calls = excluded.calls, period_ms = excluded.period_ms, learnt_at = excluded.learnt_at`,
        values: [this.#jobId, name, rate.limit, rate.periodMs, at],
      })),
    );
  }

  pendingCreates(): string[] {
    this.#live();
    if (!this.#any.pending) return [];
    return this.#rows({ text: `SELECT key FROM ${this.#s}.pending_creates WHERE job_id = $1 ORDER BY key`, values: [this.#jobId] }).map((row) => String(row.key));
  }

  forget(key: string): void {
    this.#write([
      { text: `DELETE FROM ${this.#s}.contacts WHERE job_id = $1 AND key = $2`, values: [this.#jobId, key] },
      { text: `DELETE FROM ${this.#s}.departed WHERE job_id = $1 AND key = $2`, values: [this.#jobId, key] },
    ]);
  }

  recordReconcileRead(key: string, absent: boolean): void {
    if (!absent) {
      if (this.#any.absent) this.#write([{ text: `DELETE FROM ${this.#s}.absent_reads WHERE job_id = $1 AND key = $2`, values: [this.#jobId, key] }]);
      else this.#live();
      return;
    }
    // As the SQLite store: a known key is forgotten (its departure with it), and the read is noted under the current run.
    const statements: Statement[] = [
      {
        text: `DELETE FROM ${this.#s}.departed d WHERE d.job_id = $1 AND d.key = $2 AND EXISTS (SELECT 1 FROM ${this.#s}.contacts c WHERE c.job_id = $1 AND c.key = $2)`,
        values: [this.#jobId, key],
      },
      { text: `DELETE FROM ${this.#s}.contacts WHERE job_id = $1 AND key = $2`, values: [this.#jobId, key] },
    ];
    if (this.#runId !== undefined) {
      statements.push({
        text: `INSERT INTO ${this.#s}.absent_reads (job_id, key, run_id, read_at) VALUES ($1, $2, $3, $4)
               ON CONFLICT (job_id, key) DO UPDATE SET run_id = excluded.run_id, read_at = excluded.read_at`,
        values: [this.#jobId, key, this.#runId, this.#now()],
      });
    }
    this.#write(statements);
    if (this.#runId !== undefined) this.#any.absent = true;
  }

  absentRead(key: string): AbsentRead | undefined {
    this.#live();
    if (!this.#any.absent) return undefined;
    const row = this.#rows({ text: `SELECT run_id, read_at FROM ${this.#s}.absent_reads WHERE job_id = $1 AND key = $2`, values: [this.#jobId, key] })[0];
    return row === undefined ? undefined : { runId: Number(row.run_id), readAt: Number(row.read_at) };
  }

  listKeys(limit: number): StoredContact[] {
    const bound = Number.isFinite(limit) ? Math.max(0, Math.floor(limit)) : null;
    return this.#rows({ text: `SELECT * FROM ${this.#s}.contacts WHERE job_id = $1 ORDER BY key LIMIT $2`, values: [this.#jobId, bound] }).map((row) => toStoredContact(row as unknown as ContactRow));
  }

  /** Visits every known key in key order, a page of keys at a time, with whether `onMissing` already acted on it. */
  scanKeys(visit: (key: ScannedKey) => void): void {
    let after: string | null = null;
    for (;;) {
      const rows = this.#rows({
        text: `SELECT c.key, c.contact_id, c.fields_json, c.tags_json, c.surface,
                      EXISTS (SELECT 1 FROM ${this.#s}.departed d WHERE d.job_id = c.job_id AND d.key = c.key) AS departed
               FROM ${this.#s}.contacts c WHERE c.job_id = $1${after === null ? '' : ' AND c.key > $2'} ORDER BY c.key LIMIT ${PAGE_ROWS}`,
        values: after === null ? [this.#jobId] : [this.#jobId, after],
      }) as unknown as ContactScanRow[];
      for (const row of rows) visit({ key: row.key, surface: row.surface, contact: contactOf(row), departed: row.departed });
      if (rows.length < PAGE_ROWS) return;
      after = rows[rows.length - 1]?.key ?? null;
    }
  }

  /** Visits the known keys least recently verified first (never verified first, then by key), a page at a time, until `visit` returns false. */
  scanByVerified(visit: (key: ScannedKey & { readonly record: StoredContact }) => boolean): void {
    const departed = `EXISTS (SELECT 1 FROM ${this.#s}.departed d WHERE d.job_id = c.job_id AND d.key = c.key) AS departed`;
    const page = (rows: ContactScanRow[]): boolean => {
      for (const row of rows) {
        const record = toStoredContact(row);
        if (!visit({ key: row.key, surface: row.surface, contact: record.contact, departed: row.departed, record })) return false;
      }
      return true;
    };
    // The never verified, by key; then the verified, by (verified_at, key).
    let after: string | null = null;
    for (;;) {
      const rows = this.#rows({
        text: `SELECT c.*, ${departed} FROM ${this.#s}.contacts c
               WHERE c.job_id = $1 AND c.verified_at IS NULL${after === null ? '' : ' AND c.key > $2'} ORDER BY c.key LIMIT ${PAGE_ROWS}`,
        values: after === null ? [this.#jobId] : [this.#jobId, after],
      }) as unknown as ContactScanRow[];
      if (!page(rows)) return;
      if (rows.length < PAGE_ROWS) break;
      after = rows[rows.length - 1]?.key ?? null;
    }
    let at: [number, string] | null = null;
    for (;;) {
      const rows = this.#rows({
        text: `SELECT c.*, ${departed} FROM ${this.#s}.contacts c
               WHERE c.job_id = $1 AND c.verified_at IS NOT NULL${at === null ? '' : ' AND (c.verified_at, c.key) > ($2::bigint, $3::text)'}
               ORDER BY c.verified_at, c.key LIMIT ${PAGE_ROWS}`,
        values: at === null ? [this.#jobId] : [this.#jobId, at[0], at[1]],
      }) as unknown as ContactScanRow[];
      if (!page(rows) || rows.length < PAGE_ROWS) return;
      const last = rows[rows.length - 1];
      at = last === undefined || last.verified_at === null ? null : [last.verified_at, last.key];
    }
  }

  /** The keys' contacts (each while the key still names that contact) were read and agree: verified now, in one statement. */
  markVerified(keys: ReadonlyArray<readonly [key: string, contactId: string]>): void {
    if (keys.length === 0) return;
    this.#write([
      {
        text: `UPDATE ${this.#s}.contacts c SET verified_at = $2 FROM jsonb_to_recordset($3::jsonb) AS v(key text, contact_id text)
               WHERE c.job_id = $1 AND c.key = v.key AND c.contact_id = v.contact_id`,
        values: [this.#jobId, this.#now(), JSON.stringify(keys.map(([key, contactId]) => ({ key, contact_id: contactId })))],
      },
    ]);
  }

  verifyPages(): { readonly next: number; readonly known?: number } {
    const meta = this.#meta();
    const next = Number(meta.get('verify_next_page') ?? '1');
    const known = meta.get('verify_marker_pages');
    return { next: Number.isSafeInteger(next) && next >= 1 ? next : 1, ...(known === undefined ? {} : { known: Number(known) }) };
  }

  recordVerifyPages(next: number, known: number): void {
    this.#write([this.#putMeta('verify_next_page', String(next)), this.#putMeta('verify_marker_pages', String(known))]);
  }

  // --- messages ---

  messageSent(contactId: string, messageHash: string): boolean {
    return this.messageRecord(contactId, messageHash) !== undefined;
  }

  recordMessage(contactId: string, messageHash: string, status: MessageStatus, messageId?: string): void {
    this.#write([
      {
        text: `INSERT INTO ${this.#s}.state_messages (job_id, contact_id, message_hash, status, recorded_at, message_id) VALUES ($1, $2, $3, $4, $5, $6)
               ON CONFLICT (job_id, contact_id, message_hash) DO UPDATE SET status = excluded.status, recorded_at = excluded.recorded_at, message_id = excluded.message_id`,
        values: [this.#jobId, contactId, messageHash, status, this.#now(), messageId ?? null],
      },
    ], true);
  }

  messageRecord(contactId: string, messageHash: string): MessageRecord | undefined {
    const row = this.#rows({
      text: `SELECT status, recorded_at, message_id FROM ${this.#s}.state_messages WHERE job_id = $1 AND contact_id = $2 AND message_hash = $3`,
      values: [this.#jobId, contactId, messageHash],
    })[0];
    return row === undefined ? undefined : { status: row.status as MessageStatus, recordedAt: Number(row.recorded_at), messageId: row.message_id === null ? null : (row.message_id as string) };
  }

  markMessageDue(key: string): void {
    this.#write([
      {
        text: `INSERT INTO ${this.#s}.messages_due (job_id, key, recorded_at) VALUES ($1, $2, $3) ON CONFLICT (job_id, key) DO UPDATE SET recorded_at = excluded.recorded_at`,
        values: [this.#jobId, key, this.#now()],
      },
    ], true);
    this.#any.due = true;
  }

  isMessageDue(key: string): boolean {
    this.#live();
    if (!this.#any.due) return false;
    return this.#rows({ text: `SELECT 1 FROM ${this.#s}.messages_due WHERE job_id = $1 AND key = $2`, values: [this.#jobId, key] }).length > 0;
  }

  clearMessageDue(key: string): void {
    if (this.#any.due) this.#write([{ text: `DELETE FROM ${this.#s}.messages_due WHERE job_id = $1 AND key = $2`, values: [this.#jobId, key] }]);
    else this.#live();
  }

  forgetMessage(contactId: string, messageHash: string): void {
    this.#write([{ text: `DELETE FROM ${this.#s}.state_messages WHERE job_id = $1 AND contact_id = $2 AND message_hash = $3`, values: [this.#jobId, contactId, messageHash] }]);
  }

  // --- departed keys ---

  /** The contact follows the departure and the key joins the departed journal, in one transaction. */
  recordDeparture(key: string, departure: Departure): void {
    const [rows] = this.#q([{ text: `SELECT * FROM ${this.#s}.contacts WHERE job_id = $1 AND key = $2 FOR UPDATE`, values: [this.#jobId, key] }], { begin: true });
    const known = rows?.[0] as unknown as ContactRow | undefined;
    const statements: Statement[] = [];
    if (known !== undefined && known.contact_id === departure.contactId && trustedOn(known, departure.surface)) {
      const fields = { ...parseFields(known.fields_json), ...departure.fields };
      const tags = new Set(parseTags(known.tags_json));
      for (const tag of departure.tagsAdded ?? []) tags.add(tag);
      for (const tag of departure.tagsRemoved ?? []) tags.delete(tag);
      const jobTags = nextJobTags(known.job_tags_json, [], departure.tagsRemoved);
      statements.push(this.#upsertContact(key, known.contact_id, JSON.stringify(fields), JSON.stringify([...tags].sort()), null, this.#now(), jobTags, null, known.surface));
    }
    statements.push({
      text: `INSERT INTO ${this.#s}.departed (job_id, key, contact_id, surface, action, tags_json, departed_at) VALUES ($1, $2, $3, $4, $5, $6, $7)
             ON CONFLICT (job_id, key) DO UPDATE SET contact_id = excluded.contact_id, surface = excluded.surface, action = excluded.action,
               tags_json = excluded.tags_json, departed_at = excluded.departed_at`,
      values: [this.#jobId, key, departure.contactId, departure.surface, departure.action, JSON.stringify([...(departure.tagsAdded ?? [])].sort()), this.#now()],
    });
    this.#q(statements, { commit: true });
  }

  departedRecord(key: string): DepartedRecord | undefined {
    const row = this.#rows({ text: `SELECT contact_id, surface, action, tags_json, departed_at FROM ${this.#s}.departed WHERE job_id = $1 AND key = $2`, values: [this.#jobId, key] })[0];
    if (row === undefined) return undefined;
    return { contactId: String(row.contact_id), surface: row.surface as IdSurface, action: row.action as DepartedRecord['action'], tags: parseTags(String(row.tags_json)), departedAt: Number(row.departed_at) };
  }

  clearDeparted(key: string): void {
    this.#write([{ text: `DELETE FROM ${this.#s}.departed WHERE job_id = $1 AND key = $2`, values: [this.#jobId, key] }]);
  }

  // --- runs ---

  startRun(start: RunStart): number {
    const row = this.#write([
      {
        text: `WITH n AS (UPDATE ${this.#s}.jobs SET next_run_id = next_run_id + 1 WHERE id = $1 RETURNING next_run_id - 1 AS id)
               INSERT INTO ${this.#s}.state_runs (job_id, id, job, started_at, argv, "full", surface, report_dir) SELECT $1, n.id, $2, $3, $4, $5, $6, $7 FROM n RETURNING id`,
        values: [this.#jobId, start.job, start.startedAt ?? this.#now(), start.argv, start.full ? 1 : 0, start.surface, start.reportDir ?? null],
      },
    ])[0]?.[0];
    this.#runId = Number(row?.id);
    return this.#runId;
  }

  finishRun(runId: number, finish: RunFinish): void {
    this.#write([
      {
        text: `UPDATE ${this.#s}.state_runs SET finished_at = $3, rows_json = $4, exit_code = $5, status = $6 WHERE job_id = $1 AND id = $2`,
        values: [this.#jobId, runId, finish.finishedAt ?? this.#now(), JSON.stringify(finish.rows), finish.exitCode, finish.status],
      },
    ]);
  }

  get currentRunId(): number | undefined {
    return this.#runId;
  }

  run(runId: number): RunRecord | undefined {
    const row = this.#rows({ text: `SELECT * FROM ${this.#s}.state_runs WHERE job_id = $1 AND id = $2`, values: [this.#jobId, runId] })[0];
    return row === undefined ? undefined : toRunRecord(row as unknown as RunRow);
  }

  lastRuns(count: number): RunRecord[] {
    return this.#rows({ text: `SELECT * FROM ${this.#s}.state_runs WHERE job_id = $1 ORDER BY id DESC LIMIT $2`, values: [this.#jobId, Math.max(0, Math.floor(count))] }).map((row) =>
      toRunRecord(row as unknown as RunRow),
    );
  }

  lastRun(): RunRecord | undefined {
    return this.lastRuns(1)[0];
  }

  lastFinishedRun(): RunRecord | undefined {
    const row = this.#rows({ text: `SELECT * FROM ${this.#s}.state_runs WHERE job_id = $1 AND finished_at IS NOT NULL ORDER BY id DESC LIMIT 1`, values: [this.#jobId] })[0];
    return row === undefined ? undefined : toRunRecord(row as unknown as RunRow);
  }

  // --- the input's header (meta) ---

  lastHeader(): string[] | undefined {
    const text = this.#meta().get('last_header');
    if (text === undefined) return undefined;
    const parsed: unknown = JSON.parse(text);
    return Array.isArray(parsed) && parsed.every((name) => typeof name === 'string') ? parsed : undefined;
  }

  recordHeader(header: readonly string[]): void {
    this.#write([this.#putMeta('last_header', JSON.stringify(header))], true);
  }

  // --- the change journal ---

  /** Journals one confirmed call under the current run, committed before it returns; nothing when no run was started. */
  journalChange(key: string, contactId: string, entry: ChangeEntry): void {
    if (this.#runId === undefined) {
      this.#live();
      return;
    }
    this.#write([this.#insertChange(this.#runId, key, contactId, entry, this.#now())]);
  }

  changesOfRun(runId: number): ChangeLine[] {
    return this.#rows({ text: `SELECT * FROM ${this.#s}.state_changes WHERE job_id = $1 AND run_id = $2 ORDER BY id`, values: [this.#jobId, runId] }).map((row) =>
      toChangeLine(row as unknown as ChangeRow),
    );
  }

  changesOfKey(key: string): ChangeLine[] {
    return this.#rows({ text: `SELECT * FROM ${this.#s}.state_changes WHERE job_id = $1 AND key = $2 ORDER BY id`, values: [this.#jobId, key] }).map((row) =>
      toChangeLine(row as unknown as ChangeRow),
    );
  }

  changeCountOfRun(runId: number): number {
    return Number(this.#rows({ text: `SELECT count(*) AS n FROM ${this.#s}.state_changes WHERE job_id = $1 AND run_id = $2`, values: [this.#jobId, runId] })[0]?.n ?? 0);
  }

  runChangedKey(runId: number, key: string): boolean {
    return this.#rows({ text: `SELECT 1 FROM ${this.#s}.state_changes WHERE job_id = $1 AND run_id = $2 AND key = $3 LIMIT 1`, values: [this.#jobId, runId, key] }).length > 0;
  }

  /** As the SQLite store's, in one transaction: the lines of every run but the newest `keepRuns`, a creating run's kept unless asked. */
  pruneChanges(keepRuns: number, options: { readonly includeCreating?: boolean } = {}): PrunedChanges {
    if (!Number.isSafeInteger(keepRuns) || keepRuns < 0) throw new RangeError(`pruneChanges: keepRuns must be a whole number of 0 or more, not ${keepRuns}`);
    const [newest] = this.#q([{ text: `SELECT id FROM ${this.#s}.state_runs WHERE job_id = $1 ORDER BY id DESC LIMIT 1 OFFSET $2 FOR UPDATE`, values: [this.#jobId, keepRuns] }], { begin: true });
    const newestDropped = newest?.[0]?.id;
    const pruned: PrunedChanges = { runs: 0, lines: 0, keptCreating: [] };
    if (newestDropped === undefined) {
      this.#q([], { commit: true });
      return pruned;
    }
    const [runs] = this.#q([
      {
        text: `SELECT run_id, bool_or(operation = 'create') AS created, count(*) AS lines FROM ${this.#s}.state_changes
               WHERE job_id = $1 AND run_id <= $2 GROUP BY run_id ORDER BY run_id`,
        values: [this.#jobId, newestDropped],
      },
    ]);
    const dropped: number[] = [];
    for (const row of runs ?? []) {
      if (options.includeCreating !== true && row.created === true) {
        pruned.keptCreating.push(Number(row.run_id));
        continue;
      }
      dropped.push(Number(row.run_id));
      pruned.lines += Number(row.lines);
      pruned.runs++;
    }
    this.#q(
      [
        { text: `DELETE FROM ${this.#s}.state_changes WHERE job_id = $1 AND run_id = ANY($2::bigint[])`, values: [this.#jobId, dropped] },
        { text: `UPDATE ${this.#s}.state_runs SET pruned_at = $3 WHERE job_id = $1 AND id = ANY($2::bigint[])`, values: [this.#jobId, dropped, this.#now()] },
      ],
      { commit: true },
    );
    return pruned;
  }

  /**
   * PostgreSQL reuses the space of deleted rows itself (autovacuum), and gives a table's space back
   * only with VACUUM FULL, which locks every job's table: nothing heavy is run. Returns the size of
   * the job's rows (their bytes, as stored) before and after, the same.
   */
  reclaimSpace(): { readonly before: number; readonly after: number } {
    const parts = STATE_TABLES.map((table) => ({ text: `SELECT coalesce(sum(pg_column_size(t.*)), 0) AS bytes FROM ${this.#s}.${table.pg} t WHERE t.job_id = $1`, values: [this.#jobId] }));
    const bytes = this.#q(parts).reduce((sum, rows) => sum + Number(rows[0]?.bytes ?? 0), 0);
    return { before: bytes, after: bytes };
  }

  summary(): StateSummary {
    const count = (table: string): Statement => ({ text: `SELECT count(*) AS n FROM ${this.#s}.${table} WHERE job_id = $1`, values: [this.#jobId] });
    const [keys, pending, messages, departed, changes, last, lastFinished] = this.#q([
      count('contacts'),
      count('pending_creates'),
      count('state_messages'),
      count('departed'),
      count('state_changes'),
      { text: `SELECT * FROM ${this.#s}.state_runs WHERE job_id = $1 ORDER BY id DESC LIMIT 1`, values: [this.#jobId] },
      { text: `SELECT * FROM ${this.#s}.state_runs WHERE job_id = $1 AND finished_at IS NOT NULL ORDER BY id DESC LIMIT 1`, values: [this.#jobId] },
    ]);
    const n = (rows: Row[] | undefined): number => Number(rows?.[0]?.n ?? 0);
    const run = (rows: Row[] | undefined): RunRecord | undefined => (rows?.[0] === undefined ? undefined : toRunRecord(rows[0] as unknown as RunRow));
    return {
      path: this.path,
      job: this.#job,
      keyField: this.#keyField,
      schemaVersion: PG_SCHEMA_VERSION,
      keys: n(keys),
      pendingCreates: n(pending),
      messages: n(messages),
      departed: n(departed),
      changes: n(changes),
      lastRun: run(last),
      lastFinishedRun: run(lastFinished),
    };
  }

  /** As the SQLite store's: every table of the job but the message journal (and the meta, the limits, the messages due) emptied, in one transaction. */
  forgetAllButMessages(): { keys: number } {
    const keys = this.summary().keys;
    this.#write(
      ['contacts', 'pending_creates', 'state_runs', 'departed', 'state_changes', 'absent_reads', 'uncreatable_rows'].map((table) => ({
        text: `DELETE FROM ${this.#s}.${table} WHERE job_id = $1`,
        values: [this.#jobId],
      })),
    );
    if (this.#lockHolder?.alone === true) this.#any.pending = this.#any.absent = this.#any.uncreatable = false;
    return { keys };
  }

  // --- state copy (StateTransfer) ---

  holdsState(): boolean {
    const [row] = this.#rows({
      text: `SELECT EXISTS (SELECT 1 FROM ${this.#s}.contacts WHERE job_id = $1) OR EXISTS (SELECT 1 FROM ${this.#s}.state_runs WHERE job_id = $1) AS holds`,
      values: [this.#jobId],
    });
    return row?.holds === true;
  }

  /** The job's whole state, a page of one table at a time (SQLite's table and column names), each table in its key's order. */
  exportState(visit: (page: StatePage) => void): void {
    for (const table of STATE_TABLES) {
      const columns = table.columns.map(([name]) => `"${name}"`).join(', ');
      const order = table.key.join(', ');
      let after: unknown[] | null = null;
      for (;;) {
        const keyset: string = after === null ? '' : `AND (${order}) > (${table.key.map((_, index) => `$${index + 2}`).join(', ')})`;
        const rows = this.#rows({
          text: `SELECT ${columns} FROM ${this.#s}.${table.pg} WHERE job_id = $1 ${table.exportWhere ?? ''} ${keyset} ORDER BY ${order} LIMIT ${PAGE_ROWS}`,
          values: [this.#jobId, ...(after ?? [])],
        });
        if (rows.length > 0) visit({ table: table.sqlite, rows });
        if (rows.length < PAGE_ROWS) break;
        const last = rows[rows.length - 1] ?? {};
        after = table.key.map((name) => last[name]);
      }
    }
  }

  /** Replaces the job's whole state by the pages `source` visits, in one transaction; run and line ids are kept. */
  importState(source: (visit: (page: StatePage) => void) => void): void {
    this.#q(
      STATE_TABLES.map((table) => ({ text: `DELETE FROM ${this.#s}.${table.pg} WHERE job_id = $1`, values: [this.#jobId] })),
      { begin: true, durable: true },
    );
    try {
      source((page) => {
        const table = STATE_TABLES.find((candidate) => candidate.sqlite === page.table);
        if (table === undefined) throw new StateStoreError('STATE_UNREADABLE', this.path, `${this.path}: the state to import has a table "${page.table}" this contact-sync does not know: copy it with the same version on both sides.`);
        const rows = table.importFilter === undefined ? page.rows : page.rows.filter(table.importFilter);
        if (rows.length === 0) return;
        const names = table.columns.map(([name]) => `"${name}"`).join(', ');
        const types = table.columns.map(([name, type]) => `"${name}" ${type}`).join(', ');
        this.#q([
          {
            text: `INSERT INTO ${this.#s}.${table.pg} (job_id, ${names}) SELECT $1, ${names} FROM jsonb_to_recordset($2::jsonb) AS x(${types})`,
            values: [this.#jobId, JSON.stringify(rows)],
          },
        ]);
      });
    } catch (error) {
      if (this.#failure === undefined) this.#q([{ text: 'ROLLBACK' }]);
      throw error;
    }
    this.#q(
      [
        {
          text: `UPDATE ${this.#s}.jobs SET
                   next_run_id = greatest(next_run_id, coalesce((SELECT max(id) + 1 FROM ${this.#s}.state_runs WHERE job_id = $1), 1)),
                   next_change_id = greatest(next_change_id, coalesce((SELECT max(id) + 1 FROM ${this.#s}.state_changes WHERE job_id = $1), 1))
                 WHERE id = $1`,
          values: [this.#jobId],
        },
      ],
      { commit: true },
    );
    // The planner's statistics of tables that just grew by a whole job (a million keys): without
    // them the next run's batch reads are planned for an empty table until autovacuum comes by.
    this.#q(STATE_TABLES.map((table) => ({ text: `ANALYZE ${this.#s}.${table.pg}` })));
    this.#any = { pending: true, due: true, absent: true, uncreatable: true };
  }

  // --- personal data (PersonalDataStore) ---

  reportFolders(): string[] {
    return this.#rows({ text: `SELECT DISTINCT report_dir FROM ${this.#s}.state_runs WHERE job_id = $1 AND report_dir IS NOT NULL ORDER BY report_dir`, values: [this.#jobId] }).map((row) => String(row.report_dir));
  }

  /** Deletes the change lines of every run started before `before`; those runs stay, marked expired now. One transaction. */
  expireJournal(before: number): ExpiredJournal {
    const [deleted] = this.#write([
      {
        text: `WITH old AS (SELECT id FROM ${this.#s}.state_runs WHERE job_id = $1 AND started_at < $2),
                    gone AS (DELETE FROM ${this.#s}.state_changes c USING old WHERE c.job_id = $1 AND c.run_id = old.id RETURNING c.run_id),
                    counted AS (SELECT run_id, count(*) AS lines FROM gone GROUP BY run_id),
                    marked AS (UPDATE ${this.#s}.state_runs r SET journal_expired_at = $3 WHERE r.job_id = $1 AND r.started_at < $2 AND r.journal_expired_at IS NULL RETURNING r.id)
               SELECT (SELECT count(*) FROM counted) AS runs, coalesce((SELECT sum(lines) FROM counted), 0) AS lines, (SELECT count(*) FROM marked) AS marked`,
        values: [this.#jobId, before, this.#now()],
      },
    ]);
    return { runs: Number(deleted?.[0]?.runs ?? 0), lines: Number(deleted?.[0]?.lines ?? 0) };
  }

  /** Every value of each key leaves the store, in one transaction: one entry per key, in the order given (`dryRun`: counted, rolled back). */
  eraseKeys(keys: readonly string[], options: { readonly dryRun?: boolean } = {}): ErasedKey[] {
    if (keys.length === 0) return [];
    const erased: ErasedKey[] = [];
    this.#q([], { begin: true });
    try {
      for (const key of keys) {
        const del = (table: string, returning: string): Statement => ({ text: `DELETE FROM ${this.#s}.${table} WHERE job_id = $1 AND key = $2 RETURNING ${returning}`, values: [this.#jobId, key] });
        const [record, pending, lines, due, departure, absent, uncreatable] = this.#q([
          del('contacts', 'contact_id'),
          del('pending_creates', '1 AS one'),
          del('state_changes', 'run_id, contact_id'),
          del('messages_due', '1 AS one'),
          del('departed', 'contact_id'),
          del('absent_reads', '1 AS one'),
          del('uncreatable_rows', '1 AS one'),
        ]);
        const contactId = record?.[0]?.contact_id ?? departure?.[0]?.contact_id;
        const ids = new Set<string>([...(record ?? []), ...(departure ?? []), ...(lines ?? [])].map((row) => String(row.contact_id)));
        const [messages] = ids.size === 0 ? [[]] : this.#q([{ text: `DELETE FROM ${this.#s}.state_messages WHERE job_id = $1 AND contact_id = ANY($2::text[]) RETURNING 1 AS one`, values: [this.#jobId, [...ids]] }]);
        // Only the kinds that held something, as SQLite's erasure counts them.
        const removed: Record<string, number> = Object.fromEntries(
          Object.entries({
            record: record?.length ?? 0,
            pendingCreate: pending?.length ?? 0,
            messageDue: due?.length ?? 0,
            departure: departure?.length ?? 0,
            absentRead: absent?.length ?? 0,
            uncreatable: uncreatable?.length ?? 0,
            changeLines: lines?.length ?? 0,
            messages: messages?.length ?? 0,
          }).filter(([, count]) => count > 0),
        );
        const known = Object.keys(removed).length > 0;
        const runIds = [...new Set((lines ?? []).map((row) => Number(row.run_id)))].sort((a, b) => a - b);
        erased.push(known ? { key, known, ...(contactId === undefined ? {} : { contactId: contactId as string }), removed, runIds } : { key, known, removed: {}, runIds: [] });
      }
    } catch (error) {
      if (this.#failure === undefined) this.#q([{ text: 'ROLLBACK' }]);
      throw error;
    }
    // A dry run (`forget --dry-run`) counted what would leave, and leaves it.
    if (options.dryRun === true) this.#q([{ text: 'ROLLBACK' }]);
    else this.#q([], { commit: true });
    return erased;
  }

  // --- the requests ---

  /** A contact that settles a pending create is journalled as a create of the run that sent it, in the transaction that clears the mark (as SQLite's `settle`). */
  #settle(key: string, contact: { readonly contactId: string; readonly surface: IdSurface }, fields: Readonly<Record<string, string>>, record: (known: ContactRow | undefined) => Statement[]): void {
    const { contactId } = contact;
    const [knownRows, pendingRows, createdRows] = this.#q(
      [
        { text: `SELECT * FROM ${this.#s}.contacts WHERE job_id = $1 AND key = $2 FOR UPDATE`, values: [this.#jobId, key] },
        {
          text: `SELECT p.run_id, r.surface AS sender_surface, r.id AS sender, r.journal_expired_at AS sender_expired FROM ${this.#s}.pending_creates p
                 LEFT JOIN ${this.#s}.state_runs r ON r.job_id = p.job_id AND r.id = p.run_id WHERE p.job_id = $1 AND p.key = $2`,
          values: [this.#jobId, key],
        },
        { text: `SELECT 1 FROM ${this.#s}.state_changes WHERE job_id = $1 AND key = $2 AND contact_id = $3 AND operation = 'create' LIMIT 1`, values: [this.#jobId, key, contactId] },
      ],
      { begin: true },
    );
    const statements = record(knownRows?.[0] as unknown as ContactRow | undefined);
    statements.push({ text: `DELETE FROM ${this.#s}.pending_creates WHERE job_id = $1 AND key = $2`, values: [this.#jobId, key] });
    if (this.#any.uncreatable) statements.push({ text: `DELETE FROM ${this.#s}.uncreatable_rows WHERE job_id = $1 AND key = $2`, values: [this.#jobId, key] });
    const pending = pendingRows?.[0];
    if (pending !== undefined) {
      const pendingRunId = pending.run_id === null ? null : Number(pending.run_id);
      const sender = pending.sender === null ? undefined : { surface: pending.sender_surface as IdSurface };
      // A mark of a run on another surface, or of a run whose journal expired, is the settling run's create.
      const runId = sender !== undefined && (!trustedOn(sender, contact.surface) || pending.sender_expired !== null) ? this.#runId : (pendingRunId ?? this.#runId);
      if (runId !== undefined && (createdRows ?? []).length === 0) {
        const written = Object.fromEntries(Object.entries(fields).map(([name, value]): [string, FieldChange] => [name, [null, value]]));
        statements.push(this.#insertChange(runId, key, contactId, { operation: 'create', fields: written, beforeRead: true }, this.#now()));
      }
    }
    this.#q(statements, { commit: true });
  }

  #upsertContact(...[key, contactId, fieldsJson, tagsJson, draftHash, updatedAt, jobTagsJson, rowHash, surface]: ContactParams): Statement {
    return {
      text: `INSERT INTO ${this.#s}.contacts (job_id, key, contact_id, fields_json, tags_json, draft_hash, updated_at, job_tags_json, row_hash, surface)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
             ON CONFLICT (job_id, key) DO UPDATE SET contact_id = excluded.contact_id, fields_json = excluded.fields_json,
               tags_json = excluded.tags_json, draft_hash = excluded.draft_hash, updated_at = excluded.updated_at,
               job_tags_json = excluded.job_tags_json, row_hash = excluded.row_hash, surface = excluded.surface`,
      values: [this.#jobId, key, contactId, fieldsJson, tagsJson, draftHash, updatedAt, jobTagsJson, rowHash, surface],
    };
  }

  #insertChange(runId: number, key: string, contactId: string, entry: ChangeEntry, at: number): Statement {
    const changes = journalJson(entry);
    return {
      text: `WITH n AS (UPDATE ${this.#s}.jobs SET next_change_id = next_change_id + 1 WHERE id = $1 RETURNING next_change_id - 1 AS id)
             INSERT INTO ${this.#s}.state_changes (job_id, id, run_id, key, contact_id, operation, changes_json, recorded_at, before_read)
             SELECT $1, n.id, $2, $3, $4, $5, $6, $7, $8 FROM n`,
      values: [this.#jobId, runId, key, contactId, entry.operation, JSON.stringify(changes), at, entry.beforeRead ? 1 : 0],
    };
  }

  #exists(table: string): Statement {
    return { text: `SELECT EXISTS (SELECT 1 FROM ${this.#s}.${table} WHERE job_id = $1) AS present`, values: [this.#jobId] };
  }

  #meta(): Map<string, string> {
    return new Map(this.#rows({ text: `SELECT name, value FROM ${this.#s}.meta WHERE job_id = $1`, values: [this.#jobId] }).map((row) => [String(row.name), String(row.value)]));
  }

  #putMeta(name: string, value: string): Statement {
    return {
      text: `INSERT INTO ${this.#s}.meta (job_id, name, value) VALUES ($1, $2, $3) ON CONFLICT (job_id, name) DO UPDATE SET value = excluded.value`,
      values: [this.#jobId, name, value],
    };
  }

  /** The held row hash notes as one statement (the last note of a key and draft hash wins), or undefined when none is held. */
  #takeNotes(): Statement | undefined {
    if (this.#rowHashNotes.length === 0) return undefined;
    const notes = new Map(this.#rowHashNotes.map((note) => [`${note.key}\u0000${note.draft_hash}`, note]));
    this.#rowHashNotes = [];
    return {
      text: `UPDATE ${this.#s}.contacts c SET row_hash = n.row_hash FROM jsonb_to_recordset($2::jsonb) AS n(key text, draft_hash text, row_hash text)
             WHERE c.job_id = $1 AND c.key = n.key AND c.draft_hash = n.draft_hash`,
      values: [this.#jobId, JSON.stringify([...notes.values()])],
    };
  }

  /** Throws the failure that ended this store, if one did. */
  #live(): void {
    if (this.#failure !== undefined) throw this.#failure;
    if (this.#closed) throw new StoreFailure('STATE_PG_FAILED', `${this.path}: the state store of job "${this.#job}" was closed`);
  }

  /** One statement's rows. */
  #rows(statement: Statement): Row[] {
    return this.#q([statement])[0] ?? [];
  }

  /** Statements as one transaction, committed before this returns. */
  #write(statements: Statement[], durable = false): Row[][] {
    return this.#q(statements, { begin: true, commit: true, durable });
  }

  /**
   * One request: the held row hash notes first (a read sees them), then `statements`; their rows
   * in order. A failure ends the store: every later call throws it again.
   */
  #q(statements: readonly Statement[], options: { readonly begin?: boolean; readonly commit?: boolean; readonly durable?: boolean } = {}): Row[][] {
    this.#live();
    const notes = this.#takeNotes();
    const all = notes === undefined ? statements : [notes, ...statements];
    // One statement is a transaction of its own (autocommit): no BEGIN and COMMIT round trips.
    const alone = options.begin === true && options.commit === true && all.length === 1;
    try {
      const results = this.#bridge.run(all, alone ? { durable: options.durable === true } : options);
      return notes === undefined ? results : results.slice(1);
    } catch (error) {
      if (!(error instanceof BridgeFailure)) throw error;
      this.#failure = this.#storeFailure(error);
      throw this.#failure;
    }
  }

  #storeFailure(error: BridgeFailure): StoreFailure {
    const code: StoreFailureCode = error.code === 'ETIMEDOUT' ? 'STATE_PG_TIMEOUT' : isConnectionLoss(error.code) ? 'STATE_PG_LOST' : 'STATE_PG_FAILED';
    const what = code === 'STATE_PG_LOST' ? 'lost its connection to the database' : code === 'STATE_PG_TIMEOUT' ? 'got no answer from the database' : 'was refused by the database';
    const message = hidePassword(`${this.path}: the state store of job "${this.#job}" ${what} (${error.code}: ${error.message}); nothing more is written to it`, this.#password);
    return new StoreFailure(code, message);
  }
}

/** A SQLSTATE or Node code that says the connection is gone (the server ended it, the network failed). */
function isConnectionLoss(code: string): boolean {
  return code.startsWith('08') || code.startsWith('57P') || /^E[A-Z]+$/.test(code) || code === 'PG_FAILED';
}
