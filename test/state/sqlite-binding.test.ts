/**
 * A native binding of SQLite that is missing or cannot be loaded stops the job at start-up with
 * exit 2 and a message that names the cause and the fix, never an UNEXPECTED error listing paths.
 * better-sqlite3's `nativeBinding` option stands for a broken install: a path with no file, and a
 * file that is not a shared library.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describeFailure } from '../../src/cli/failure.js';
import { openSqliteDatabase, SqliteBindingError } from '../../src/state/sqlite-database.js';
import { tempDir } from '../helpers/temp-dir.js';

function openError(path: string, nativeBinding?: string): unknown {
  try {
    openSqliteDatabase(path, nativeBinding === undefined ? {} : { nativeBinding }).close();
  } catch (error) {
    return error;
  }
  throw new Error('the database opened');
}

describe('SQLite native binding at start-up', () => {
  it('a missing binding is SQLITE_BINDING_UNAVAILABLE, exit 2, naming the file and the reinstall', () => {
    const dir = tempDir();
    const error = openError(join(dir, 'state.db'), join(dir, 'gone', 'better_sqlite3.node'));
    expect(error).toBeInstanceOf(SqliteBindingError);
    const failure = describeFailure(error);
    expect(failure.exitCode).toBe(2);
    expect(failure.code).toBe('SQLITE_BINDING_UNAVAILABLE');
    expect(failure.message).toContain('cannot load SQLite, which the state store and the job lock need: its native binding is missing');
    expect(failure.message).toContain(join(dir, 'gone', 'better_sqlite3.node'));
    expect(failure.message).toContain('Reinstall the dependencies with "npm ci"');
    expect(failure.message).toContain('npm run build-release --prefix node_modules/better-sqlite3');
  });

  it('a binding the system cannot load (not a shared library) is the same failure, naming the loader\'s reason', () => {
    const dir = tempDir();
    const binding = join(dir, 'better_sqlite3.node');
    writeFileSync(binding, 'not an ELF file');
    const failure = describeFailure(openError(join(dir, 'state.db'), binding));
    expect(failure.exitCode).toBe(2);
    expect(failure.code).toBe('SQLITE_BINDING_UNAVAILABLE');
    expect(failure.message).toContain('its native binding cannot be loaded');
    expect(failure.message).toContain(binding);
  });

  it('a database that cannot be opened with a working binding is not a binding failure', () => {
    const dir = tempDir();
    const error = openError(join(dir, 'no-such-folder', 'state.db'));
    expect(error).not.toBeInstanceOf(SqliteBindingError);
    expect(error).toBeInstanceOf(TypeError);
  });
});
