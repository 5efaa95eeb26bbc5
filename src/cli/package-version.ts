/** The version in the package's own package.json, found from this file (src/ or dist/src/). */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Whether the command line asks only for the version (`--version` anywhere, or `-V` alone). The
 * launcher answers it before loading the CLI (a few milliseconds instead of every command's
 * modules: issue 24), and `main` the same way for in-process callers.
 */
export function asksForVersion(argv: readonly string[]): boolean {
  return argv.includes('--version') || (argv.length === 1 && argv[0] === '-V');
}

export function packageVersion(from: string = fileURLToPath(import.meta.url)): string {
  for (let dir = dirname(from); ; dir = dirname(dir)) {
    try {
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (manifest.name === 'contact-sync' && manifest.version !== undefined) return manifest.version;
    } catch {
      // No package.json here: look one folder up.
    }
    if (dirname(dir) === dir) return 'unknown';
  }
}
