/**
 * Temporary folders that a test file makes, removed after its last test (test/setup/remove-temp-dirs.ts
 * registers the `afterAll`), so that no test leaves a folder behind whatever it asserts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made = new Set<string>();

/** A new folder under the system's temporary folder, removed after the test file. */
export function tempDir(prefix = 'contact-sync-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.add(dir);
  return dir;
}

/** Removes every folder tempDir made in this test file. */
export function removeTempDirs(): void {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
  made.clear();
}
