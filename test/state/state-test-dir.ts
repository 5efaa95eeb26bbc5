/** A temporary directory per test for state files, removed after it. */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../helpers/temp-dir.js';

export interface StateTestDir {
  readonly dir: string;
  /** A state file path inside a subfolder that does not exist yet. */
  statePath(name?: string): string;
  remove(): void;
}

export function makeStateTestDir(): StateTestDir {
  // Removed by remove(), or after the test file when a test does not get that far.
  const dir = tempDir('contact-sync-state-');
  return {
    dir,
    statePath: (name = 'job') => join(dir, '.contact-sync', `${name}.db`),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
