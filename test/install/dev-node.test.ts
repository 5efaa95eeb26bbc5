/**
 * scripts/dev-node.mjs on a Node.js too old for contact-sync: it fetches the pinned runtime, checks
 * its bytes after the fetch and before every use, and never runs one that differs from the pin.
 * Against a fake checkout (test/helpers/fake-checkout.ts) and a registry of one package that this
 * test serves on 127.0.0.1, so that `npm install` really runs and no 126 MB binary is involved.
 */
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fakeCheckout, FAKE_NODE_VERSION, FAKE_RUNTIME, sha256, type FakeCheckout } from '../helpers/fake-checkout.js';
import { tempDir } from '../helpers/temp-dir.js';

const TAMPERED = `${FAKE_RUNTIME}# and a little more\n`;

interface Result {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** A registry that serves one version of this platform's runtime package, with `bytes` as its node binary. */
async function registry(bytes: string): Promise<{ url: string; requests: string[]; close(): Promise<void> }> {
  const packageName = `node-${process.platform}-${process.arch}`;
  const stage = tempDir('contact-sync-registry-');
  mkdirSync(join(stage, 'package', 'bin'), { recursive: true });
  writeFileSync(join(stage, 'package', 'package.json'), JSON.stringify({ name: packageName, version: FAKE_NODE_VERSION, bin: { node: 'bin/node' } }));
  writeFileSync(join(stage, 'package', 'bin', 'node'), bytes, { mode: 0o755 });
  execFileSync('tar', ['-czf', join(stage, 'package.tgz'), '-C', stage, 'package']);
  const tarball = readFileSync(join(stage, 'package.tgz'));
  const integrity = `sha512-${createHash('sha512').update(tarball).digest('base64')}`;
  const requests: string[] = [];
  const server: Server = createServer((request, response) => {
    requests.push(request.url ?? '');
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    if (request.url === `/${packageName}`) {
      const version = { name: packageName, version: FAKE_NODE_VERSION, bin: { node: 'bin/node' }, dist: { tarball: `${base}/package.tgz`, integrity } };
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ name: packageName, 'dist-tags': { latest: FAKE_NODE_VERSION }, versions: { [FAKE_NODE_VERSION]: version } }));
    } else if (request.url === '/package.tgz') {
      response.writeHead(200, { 'content-type': 'application/octet-stream' }).end(tarball);
    } else {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Runs the fake checkout's dev-node.mjs, with npm pointed at `registryUrl` and a cache of its own. */
function devNode(checkout: FakeCheckout, args: string[], registryUrl = 'http://127.0.0.1:9/'): Promise<Result> {
  const env = { ...process.env, npm_config_registry: registryUrl, npm_config_cache: join(checkout.root, 'npm-cache'), npm_config_update_notifier: 'false' };
  const child = spawn(process.execPath, [join(checkout.root, 'scripts', 'dev-node.mjs'), ...args], { cwd: checkout.root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('close', (status) => resolve({ status, stdout, stderr })));
}

function mismatch(checkout: FakeCheckout, actual: string, pinned: string): string {
  return (
    `${checkout.binary} is not the ${checkout.spec} that package.json pins: its SHA-256 is ${actual}, config.devNodeSha256 says ${pinned}. ` +
    `It was not run. Remove ${checkout.folder} and run \`npm ci\` in ${checkout.root} to fetch it again; if the fetched one is refused too, ` +
    'the registry serves other bytes than the Node.js release the repository pinned: install Node.js >=99 instead.'
  );
}

const posix = process.platform !== 'win32';
if (!posix) console.log('scripts/dev-node.mjs with a fetched runtime: skipped, the planted runtime is a shell script');
const describeOnPosix = posix ? describe : describe.skip;

describeOnPosix('dev-node on a Node.js too old for contact-sync', () => {
  it('runs the script on the pinned runtime, with its arguments, and ends with its exit code', async () => {
    const checkout = fakeCheckout({ pin: sha256(FAKE_RUNTIME), runtime: FAKE_RUNTIME });
    const result = await devNode(checkout, ['script.mjs', '--flag', 'value']);
    expect(result).toEqual({ status: 7, stdout: 'fake node ran: script.mjs --flag value\n', stderr: '' });
  });

  it('refuses a runtime whose bytes changed after it was checked, and does not run it', async () => {
    const checkout = fakeCheckout({ pin: sha256(FAKE_RUNTIME), runtime: FAKE_RUNTIME });
    expect((await devNode(checkout, ['script.mjs'])).status).toBe(7);
    writeFileSync(checkout.binary, TAMPERED);
    const result = await devNode(checkout, ['script.mjs']);
    expect(result).toEqual({ status: 1, stdout: '', stderr: `dev-node: ${mismatch(checkout, sha256(TAMPERED), sha256(FAKE_RUNTIME))}\n` });
    expect(existsSync(checkout.binary)).toBe(true);
  });

  it('on a platform the repository pins nothing for, fetches nothing and says what to do', async () => {
    const served = await registry(FAKE_RUNTIME);
    try {
      const checkout = fakeCheckout({});
      const result = await devNode(checkout, ['--ensure'], served.url);
      expect(result.status).toBe(1);
      expect(result.stderr).toBe(
        `dev-node: package.json pins no ${checkout.spec} (config.devNodeSha256 pins none), so no Node.js is fetched for this platform: ` +
          'install Node.js >=99 (24 is the active LTS release) and run again. A maintainer adds the pin as docs/decisions.md ("The Node.js the repository fetches") says.\n',
      );
      expect(served.requests).toEqual([]);
      expect(existsSync(checkout.folder)).toBe(false);
    } finally {
      await served.close();
    }
  }, 90_000);

  it('fetches the runtime when it is missing and runs the script on it once its bytes are the pinned ones', async () => {
    const served = await registry(FAKE_RUNTIME);
    try {
      const checkout = fakeCheckout({ pin: sha256(FAKE_RUNTIME) });
      const result = await devNode(checkout, ['script.mjs'], served.url);
      expect(result.status).toBe(7);
      expect(result.stdout).toBe('fake node ran: script.mjs\n');
      expect(sha256(readFileSync(checkout.binary))).toBe(sha256(FAKE_RUNTIME));
    } finally {
      await served.close();
    }
  }, 90_000);

  it('removes a fetched runtime whose bytes are not the pinned ones, and runs nothing', async () => {
    const served = await registry(TAMPERED);
    try {
      const checkout = fakeCheckout({ pin: sha256(FAKE_RUNTIME) });
      const result = await devNode(checkout, ['script.mjs'], served.url);
      expect(result.status).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain(`dev-node: ${mismatch(checkout, sha256(TAMPERED), sha256(FAKE_RUNTIME))}\ndev-node: removed ${checkout.folder}\n`);
      expect(existsSync(checkout.folder)).toBe(false);
    } finally {
      await served.close();
    }
  }, 90_000);

  it('--ensure (npm ci) replaces a runtime already there whose bytes differ from the pin', async () => {
    const served = await registry(FAKE_RUNTIME);
    try {
      const checkout = fakeCheckout({ pin: sha256(FAKE_RUNTIME), runtime: TAMPERED });
      const result = await devNode(checkout, ['--ensure'], served.url);
      expect(result.status).toBe(0);
      expect(result.stderr).toContain(`is not the ${checkout.spec} that package.json pins (its SHA-256 is ${sha256(TAMPERED)}): removing ${checkout.folder} and fetching it again`);
      expect(sha256(readFileSync(checkout.binary))).toBe(sha256(FAKE_RUNTIME));
    } finally {
      await served.close();
    }
  }, 90_000);
});
