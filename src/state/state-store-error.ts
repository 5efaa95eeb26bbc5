/**
 * Failures of the state store that a user must act on. They abort the job before any row is
 * processed (exit 2), so each message names the file and the fix.
 */
import { ContactSyncError } from '../failure/contact-sync-error.js';

export type StateStoreErrorCode =
  /** The file was recorded for another key field: its keys would mean something else. */
  | 'STATE_KEY_FIELD_MISMATCH'
  /** The file was written by a newer contact-sync, with a schema this version does not know. */
  | 'STATE_SCHEMA_TOO_NEW'
  /**
   * The store cannot be opened or read: a file that is not SQLite, no permission, damaged, empty;
   * a PostgreSQL database unreachable, refusing the login, missing, or without the right to create
   * the schema (the message names host, port and database, never the password).
   */
  | 'STATE_UNREADABLE'
  /** Another process held the file for longer than the store waits (exit 75, as a held job lock: try later). */
  | 'STATE_BUSY';

export class StateStoreError extends ContactSyncError<StateStoreErrorCode> {
  override readonly name = 'StateStoreError';

  constructor(
    override readonly code: StateStoreErrorCode,
    /** The state file, as it was given to `StateStore.open`. */
    readonly path: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  get context(): Readonly<Record<string, unknown>> {
    return { path: this.path };
  }
}

/** How the PostgreSQL store failed mid-use: its connection lost, no answer in time, a statement refused. */
export type StoreFailureCode = 'STATE_PG_LOST' | 'STATE_PG_TIMEOUT' | 'STATE_PG_FAILED';

/**
 * The PostgreSQL store failed after it opened (the SQLite store's counterpart is better-sqlite3's
 * SqliteError). Once thrown, every later call of that store throws it again at once: nothing is
 * written after the loss. Recognised by its code (`STATE_PG_...`: `isPostgresFailure`), as
 * SqliteError is, since an error can come from another realm (jest's VM context).
 */
export class StoreFailure extends Error {
  override readonly name = 'StoreFailure';
  constructor(
    readonly code: StoreFailureCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The PostgreSQL store failed mid-use (`StoreFailure`, by its code). */
export function isPostgresFailure(error: unknown): boolean {
  return codeOf(error).startsWith('STATE_PG_');
}

/** The command that starts a job's state afresh, for the fix part of a message. */
export function resetCommand(job: string | undefined): string {
  return `contact-sync state reset <jobs.yaml> --job ${job ?? 'NAME'}`;
}

/** SQLite's (or the system's) code of a failure, '' when it has none. */
function codeOf(error: unknown): string {
  const raw: unknown = (error as { code?: unknown } | null)?.code;
  return typeof raw === 'string' ? raw : '';
}

/** SQLite found the file's pages damaged, or the file is not a database at all. */
export function isDamagedStore(error: unknown): boolean {
  const code = codeOf(error);
  return code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB';
}

/** Another connection held the file for longer than the store waits. */
export function isBusyStore(error: unknown): boolean {
  const code = codeOf(error);
  return code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED');
}

/**
 * What to do when SQLite failed on a state file, by what went wrong, wherever it happened (at
 * open, mid-run, in `state show`). Starting afresh (`state reset`) forgets which messages were
 * sent: it is advised only for a damaged file, never for a full disk or a file another process
 * holds.
 */
export function stateStoreFix(error: unknown, job: string | undefined): string {
  const code = codeOf(error);
  if (isPostgresFailure(error)) {
    return 'Check the database server and the network between this host and it, then run again: the next run resumes, and what was confirmed is kept.';
  }
  if (code === 'SQLITE_FULL' || code.startsWith('SQLITE_IOERR') || code === 'ENOSPC') {
    return 'The disk is full or failing: free space on it (or move the file elsewhere and set the job\'s `state:`), then run again; the state is kept.';
  }
  if (isBusyStore(error)) {
    return 'Another process holds the file (another run of this job, a sqlite3 shell or a backup tool that locks it): let it finish, then run again; the state is kept.';
  }
  if (code.startsWith('SQLITE_READONLY') || code.startsWith('SQLITE_CANTOPEN') || code === 'SQLITE_PERM' || code === 'SQLITE_AUTH' || code === 'EACCES' || code === 'EPERM') {
    return 'Check the file\'s and its folder\'s owner and permissions: this user must be able to write both.';
  }
  if (isDamagedStore(error)) {
    return (
      'The file is damaged (a disk fault, a copy of a file in use, an edit by another tool): restore it, with its -wal file if one was beside it, ' +
      `from a backup; or start afresh with \`${resetCommand(job)}\` (the next run searches every key again and no longer knows which messages were sent).`
    );
  }
  return (
    'If it is damaged or not a contact-sync state file, set the job\'s `state:` to another path, or start afresh with ' +
    `\`${resetCommand(job)}\` (it forgets which messages were sent unless you pass --keep-messages).`
  );
}
