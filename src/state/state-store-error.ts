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
  /** The file cannot be opened or read as a state store (not SQLite, no permission, damaged). */
  | 'STATE_UNREADABLE';

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

/** The command that starts a job's state afresh, for the fix part of a message. */
export function resetCommand(job: string): string {
  return `contact-sync state reset <jobs.yaml> --job ${job}`;
}
