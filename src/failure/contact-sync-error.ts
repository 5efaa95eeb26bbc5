/**
 * The base of the failures contact-sync throws, after got's RequestError and csv-parse's
 * CsvError: a stable `code` a program switches on, the context as data (`context`: the file, the
 * YAML path, the operation, the holder of a lock...; never the token), the message rendered for a
 * person from it, and the `cause` kept. Each room keeps its own subclass and its own list of codes
 * (the API's, the config's, the input's...); the closed union of every code, and the exit code
 * each one means, are in `src/cli/failure.ts`, the top that sees every room. Row failures are not
 * exceptions but report lines (`pipeline/report/row-outcome.ts`).
 */
export abstract class ContactSyncError<Code extends string = string> extends Error {
  /** What went wrong, stable across versions: what scripts, JSON logs and the exit code go by. */
  abstract readonly code: Code;

  /** Where and on what it went wrong, as data (what the message says in words). */
  abstract get context(): Readonly<Record<string, unknown>>;
}
