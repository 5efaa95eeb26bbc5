/**
 * Install anywhere: every runtime dependency supports the Node range the package declares (npm ci
 * once warned that cookie@2 wants Node 22, when Node 20 was the floor), and `npm pack` ships what `npm install -g` needs to run
 * from any folder (compiled code, the launcher, the emulator, the example jobs) and nothing of the
 * tests.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const root = new URL('../..', import.meta.url).pathname;
const require = createRequire(import.meta.url);
const semver = require('semver') as { satisfies(version: string, range: string): boolean; minVersion(range: string): { version: string } | null };

interface LockPackage {
  version?: string;
  dev?: boolean;
  optional?: boolean;
  engines?: Record<string, string> | string[];
}

const manifest = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync(`${root}package-lock.json`, 'utf8')) as { packages: Record<string, LockPackage> };

describe('the package', () => {
  it('every runtime dependency in the lock file supports the lowest Node the engines range allows', () => {
    const lowest = semver.minVersion(manifest.engines.node)?.version;
    expect(lowest).toBe('22.12.0');
    const refusing = Object.entries(lock.packages)
      .filter(([path, entry]) => path !== '' && entry.dev !== true && !Array.isArray(entry.engines) && entry.engines?.node !== undefined)
      .filter(([, entry]) => !semver.satisfies(lowest!, (entry.engines as Record<string, string>).node!))
      .map(([path, entry]) => `${path.replace(/^.*node_modules\//, '')}@${entry.version} wants node ${(entry.engines as Record<string, string>).node}`);
    expect(refusing).toEqual([]);
  });

  it('npm pack ships the compiled CLI, the emulator and the example jobs, and no test or TypeScript source', () => {
    const output = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    const files = (JSON.parse(output) as Array<{ files: Array<{ path: string }> }>)[0]!.files.map((file) => file.path);
    for (const needed of ['bin/contact-sync.js', 'dist/src/cli/main.js', 'dist/src/emulator/index.js', 'dist/src/state/state-store.js', 'jobs.example.yaml', 'package.json']) {
      expect(files).toContain(needed);
    }
    expect(files.filter((path) => path.startsWith('test/') || path.startsWith('src/') || path.startsWith('dist/test/') || path.startsWith('bench/') || path.startsWith('dist/bench/'))).toEqual([]);
  });
});
