/**
 * Every package the lock file names carries the registry's `integrity`, including the optional
 * binaries of other platforms that npm never downloads here (issue 42: 17 such entries had none,
 * so a tampered tarball of one would install unchecked wherever it is the platform's).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

interface LockEntry {
  version?: string;
  integrity?: string;
  link?: boolean;
}

const lock = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };

it('names no package without the registry\'s sha512 integrity', () => {
  const without = Object.entries(lock.packages)
    .filter(([path, entry]) => path !== '' && entry.link !== true && !/^sha512-[A-Za-z0-9+/]+={0,2}$/.test(entry.integrity ?? ''))
    .map(([path]) => path);
  expect(without).toEqual([]);
});
