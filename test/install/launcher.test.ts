/**
 * The launcher on a Node.js too old for contact-sync: in a checkout where `npm ci` fetched the
 * pinned runtime, the CLI runs on it, said once on stderr; a runtime whose bytes differ from the pin
 * is refused; without one, the message says what to do (exit 2: nothing was done).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
// @ts-expect-error: a plain JavaScript module of the launcher, with no type declarations
import { fetchedNode } from '../../bin/fetched-node.js';
// @ts-expect-error: a plain JavaScript module of the launcher, with no type declarations
import { isSupportedNode } from '../../bin/supported-node.js';
import { fakeCheckout, FAKE_NODE_VERSION, FAKE_RUNTIME, sha256, type FakeCheckout } from '../helpers/fake-checkout.js';

const root = new URL('../..', import.meta.url).pathname;
const supported = isSupportedNode as (version?: string) => boolean;
const TOO_OLD = `contact-sync needs Node.js >=99, and this is Node.js v${process.versions.node}: its state store's SQLite library does not run on it. Install a supported Node.js (24 is the active LTS release, 22 is also supported) and run again.`;

function launch(checkout: FakeCheckout, args: string[]) {
  return spawnSync(process.execPath, [join(checkout.root, 'bin', 'contact-sync.js'), ...args], { cwd: checkout.root, encoding: 'utf8' });
}

const posix = process.platform !== 'win32';
if (!posix) console.log('the launcher with a fetched runtime: skipped, the planted runtime is a shell script');

(posix ? describe : describe.skip)('the launcher on a Node.js too old for contact-sync', () => {
  it('runs the CLI on the runtime npm ci fetched into the checkout, says so once on stderr, and ends with its exit code', () => {
    const checkout = fakeCheckout({ pin: sha256(FAKE_RUNTIME), runtime: FAKE_RUNTIME });
    const result = launch(checkout, ['run', 'jobs.yaml', '--dry-run']);
    expect(result.stdout).toBe(`fake node ran: ${join(checkout.root, 'bin', 'contact-sync.js')} run jobs.yaml --dry-run\n`);
    expect(result.stderr).toBe(`contact-sync: Node.js ${process.versions.node} is too old; running on the Node.js ${FAKE_NODE_VERSION} that npm ci fetched into node_modules/.cache\n`);
    expect(result.status).toBe(7);
  });

  it('refuses a fetched runtime whose bytes are not the pinned ones, exit 2, without running it', () => {
    const checkout = fakeCheckout({ pin: sha256(FAKE_RUNTIME), runtime: FAKE_RUNTIME });
    expect(launch(checkout, ['--version']).status).toBe(7);
    writeFileSync(checkout.binary, `${FAKE_RUNTIME}# and a little more\n`);
    const result = launch(checkout, ['--version']);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      `error: ${checkout.binary} is not the ${checkout.spec} that package.json pins: its SHA-256 is ${sha256(`${FAKE_RUNTIME}# and a little more\n`)}, ` +
        `config.devNodeSha256 says ${sha256(FAKE_RUNTIME)}. It was not run. Remove ${checkout.folder} and run \`npm ci\` in ${checkout.root} to fetch it again; ` +
        'if the fetched one is refused too, the registry serves other bytes than the Node.js release the repository pinned: install Node.js >=99 instead.\n',
    );
    expect(result.status).toBe(2);
  });

  it('in a checkout without the runtime, says to install Node.js or run npm ci, exit 2', () => {
    const checkout = fakeCheckout({ pin: sha256(FAKE_RUNTIME) });
    const result = launch(checkout, ['--version']);
    expect(result.stderr).toBe(
      `error: ${TOO_OLD} Or run \`npm ci\` in ${checkout.root} on this Node.js: it fetches Node.js ${FAKE_NODE_VERSION} into node_modules/.cache, which \`npx contact-sync\` then runs on.\n`,
    );
    expect(result.status).toBe(2);
    expect(result.stdout).toBe('');
  });

  it.each([
    ['the installed package (no checkout to fetch into)', { pin: sha256(FAKE_RUNTIME), checkout: false }],
    ['a checkout on a platform the repository pins no runtime for', {}],
  ])('in %s, says to install Node.js, exit 2', (_, options) => {
    const result = launch(fakeCheckout(options), ['--version']);
    expect(result.stderr).toBe(`error: ${TOO_OLD}\n`);
    expect(result.status).toBe(2);
  });
});

// The real thing: this checkout's launcher under the machine's old Node.js (Node 20 is on the
// machines this was written on), on the runtime npm ci fetched here.
const olderNode = (process.env.PATH ?? '')
  .split(delimiter)
  .map((dir) => join(dir, 'node'))
  .find((node) => existsSync(node) && !supported(execFileSync(node, ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim()));
const runtime = (fetchedNode as () => { binary: string; version: string })();
const skipReason =
  olderNode === undefined ? 'no node older than the engines range on PATH' : !existsSync(runtime.binary) ? `${runtime.binary} is not there (npm ci ran on a supported Node.js)` : undefined;
if (skipReason !== undefined) console.log(`the launcher under an older Node.js on the fetched runtime: skipped, ${skipReason}`);

(skipReason === undefined ? it : it.skip)('this checkout\'s launcher under an older Node.js answers --version on the fetched runtime, saying so once', () => {
  const version = execFileSync(olderNode!, ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim();
  const result = spawnSync(olderNode!, [join(root, 'bin', 'contact-sync.js'), '--version'], { encoding: 'utf8' });
  expect(result.stderr).toBe(`contact-sync: Node.js ${version} is too old; running on the Node.js ${runtime.version} that npm ci fetched into node_modules/.cache\n`);
  expect(result.stdout).toBe(`${(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version}\n`);
  expect(result.status).toBe(0);
});
