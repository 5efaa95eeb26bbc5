/** A mistake in how a command was called: exit 2 with the message. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
  readonly code = 'USAGE';
}

/** yargs refused the arguments (unknown option, missing command): exit 2 with the usage. */
export class UsageErrorFromYargs extends Error {
  override readonly name = 'UsageErrorFromYargs';
  readonly code = 'USAGE';
}
