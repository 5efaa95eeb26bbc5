/**
 * The state store on disk: the SQLite file and the files SQLite keeps beside it. It holds contact
 * ids and field values of real people, so it is owner-only.
 */
import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** Owner read/write only. SQLite gives its -wal and -shm files the mode of the database file. */
export const STATE_FILE_MODE = 0o600;
/** Mode of directories created for a state file (owner only). */
export const STATE_DIR_MODE = 0o700;

/** The database file and its companions: write-ahead log, shared-memory index, rollback journal. */
export function stateFilePaths(path: string): string[] {
  return [path, `${path}-wal`, `${path}-shm`, `${path}-journal`];
}

/**
 * Creates the parent directories and an empty file of mode 0600 if there is none (SQLite reads an
 * empty file as an empty database), and sets 0600 on the files that already exist.
 */
export function prepareStateFile(path: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: STATE_DIR_MODE });
  // Only a new file is opened here. Opening and closing an existing one would drop the POSIX
  // locks another connection of this process holds on it (a known SQLite hazard); chmod opens
  // nothing.
  try {
    writeFileSync(path, '', { flag: 'wx', mode: STATE_FILE_MODE });
  } catch (error) {
    if (!hasCode(error, 'EEXIST')) throw error;
  }
  for (const file of stateFilePaths(path)) {
    try {
      chmodSync(file, STATE_FILE_MODE);
    } catch (error) {
      if (!hasCode(error, 'ENOENT')) throw error;
    }
  }
}

/** Deletes the state file and its companions; returns the files that existed. */
export function removeStateFiles(path: string): string[] {
  const removed: string[] = [];
  for (const file of stateFilePaths(path)) {
    try {
      rmSync(file);
      removed.push(file);
    } catch (error) {
      if (!hasCode(error, 'ENOENT')) throw error;
    }
  }
  return removed;
}

// Duck-typed: errors of node:fs may come from another realm (vm contexts), where instanceof fails.
function hasCode(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && error.code === code;
}
