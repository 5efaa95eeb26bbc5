/** A temporary directory per test for state files, removed after it. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface StateTestDir {
  readonly dir: string;
  /** A state file path inside a subfolder that does not exist yet. */
  statePath(name?: string): string;
  remove(): void;
}

export function makeStateTestDir(): StateTestDir {
  const dir = mkdtempSync(join(tmpdir(), 'contact-sync-state-'));
  return {
    dir,
    statePath: (name = 'job') => join(dir, '.contact-sync', `${name}.db`),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
