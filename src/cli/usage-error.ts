import { ContactSyncError } from '../failure/contact-sync-error.js';

/** A mistake in how a command was called: exit 2 with the message. */
export class UsageError extends ContactSyncError<'USAGE'> {
  override readonly name = 'UsageError';
  readonly code = 'USAGE';

  get context(): Readonly<Record<string, unknown>> {
    return {};
  }
}

/** yargs refused the arguments (unknown option, missing command): exit 2 with the usage. */
export class UsageErrorFromYargs extends ContactSyncError<'USAGE'> {
  override readonly name = 'UsageErrorFromYargs';
  readonly code = 'USAGE';

  get context(): Readonly<Record<string, unknown>> {
    return {};
  }
}
