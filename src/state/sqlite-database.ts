/**
 * Opens a SQLite database through better-sqlite3, the one place the state store and the job lock
 * do so. better-sqlite3 loads its native binding on the first open: a binding that is missing (a
 * platform without a prebuilt binary, an install that skipped or lost it) or that cannot be loaded
 * (another platform's file, a damaged one) is a set-up problem, told as one with its fix, instead
 * of an UNEXPECTED error naming a list of paths. See docs/decisions.md, "The state store's SQLite".
 */
import Database from 'better-sqlite3';
import { ContactSyncError } from '../failure/contact-sync-error.js';

/** The state store and the job lock cannot run: SQLite's native binding did not load. */
export class SqliteBindingError extends ContactSyncError<'SQLITE_BINDING_UNAVAILABLE'> {
  override readonly name = 'SqliteBindingError';
  readonly code = 'SQLITE_BINDING_UNAVAILABLE';

  get context(): Readonly<Record<string, unknown>> {
    return {};
  }
}

export interface OpenSqliteOptions extends Database.Options {
  /**
   * The binding file to load instead of better-sqlite3's own (better-sqlite3's `nativeBinding`);
   * tests use it to stand for a missing or broken binding.
   * @default better-sqlite3's prebuilt binary for this platform
   */
  nativeBinding?: string;
}

/**
 * `new Database(path, options)`, with a binding that does not load reported as SqliteBindingError.
 * @throws SqliteBindingError when the native binding is missing or cannot be loaded
 */
export function openSqliteDatabase(path: string, options: OpenSqliteOptions = {}): Database.Database {
  try {
    return new Database(path, options);
  } catch (error) {
    const reason = bindingFailure(error);
    if (reason === undefined) throw error;
    throw new SqliteBindingError(
      `cannot load SQLite, which the state store and the job lock need: ${reason}. ` +
        `Reinstall the dependencies with "npm ci" (or "npm install better-sqlite3"); better-sqlite3 ships ` +
        `binaries for Linux (glibc and musl), macOS and Windows on x64 and arm64. On another platform, ` +
        `build it: "npm run build-release --prefix node_modules/better-sqlite3" (needs python3, make and a C++ compiler)`,
      { cause: error },
    );
  }
}

/** Why the native binding did not load, or undefined when the error is about the database itself. */
function bindingFailure(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = 'code' in error ? error.code : undefined;
  const message = 'message' in error ? String(error.message) : '';
  // A .node file that is not there (require's MODULE_NOT_FOUND for the binding's path).
  if (code === 'MODULE_NOT_FOUND' && /\.node\b/.test(message)) return `its native binding is missing (${firstLine(message)})`;
  // A .node file that the system loader refuses: another platform's, damaged, a missing symbol.
  if (code === 'ERR_DLOPEN_FAILED') return `its native binding cannot be loaded (${firstLine(message)})`;
  return undefined;
}

function firstLine(text: string): string {
  return text.split('\n', 1)[0] ?? text;
}
