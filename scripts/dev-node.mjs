/**
 * The Node.js that the repository's npm scripts (`npm start`, `npm test`, `npm run bench`) run on.
 *
 * contact-sync needs the Node.js of package.json's `engines`. On a machine whose Node.js is older
 * (Node 20 reached its end of life in April 2026 and is still what some machines have), `npm ci`
 * fetches Node.js `config.devNode` from the npm registry into node_modules/.cache (the `prepare`
 * script calls `--ensure`), and the npm scripts run on it; the machine's Node.js still runs npm,
 * the build and the lint. On a supported Node.js nothing is fetched and the scripts run on it.
 *
 * The fetched node binary is run only when its SHA-256 is the one package.json
 * `config.devNodeSha256` pins for its package, checked after the fetch and before every use
 * (bin/fetched-node.js). A download that does not match is removed; a runtime already there that
 * does not match is refused, and `--ensure` (which `npm ci` runs) fetches it again.
 *
 *   node scripts/dev-node.mjs --ensure            fetch the runtime when this Node.js is too old
 *   node scripts/dev-node.mjs SCRIPT [ARGS...]    run SCRIPT on a supported Node.js
 *
 * The launcher, bin/contact-sync.js, runs on the same fetched runtime in a checkout on an old
 * Node.js (`npx contact-sync`); the installed package (`npm install -g`) fetches nothing, and its
 * launcher refuses an old Node.js with a message (bin/supported-node.js). See docs/decisions.md.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { fetchedNode, mismatchMessage, unpinnedMessage, verifyRuntime } from '../bin/fetched-node.js';
import { runOnNode } from '../bin/run-on-node.js';
import { isSupportedNode, NODE_RANGE } from '../bin/supported-node.js';

const runtime = fetchedNode();

function say(line) {
  process.stderr.write(`dev-node: ${line}\n`);
}

/** Installs the runtime package into its own prefix with the npm that runs us (or the PATH's). */
function fetchRuntime() {
  say(`Node.js ${process.versions.node} is older than contact-sync needs (${NODE_RANGE}); fetching ${runtime.spec} from the npm registry for the repository's scripts`);
  const npmArgs = ['install', '--prefix', runtime.folder, '--no-save', '--no-package-lock', '--no-audit', '--no-fund', '--loglevel=error', runtime.spec];
  // npm's own output ("added 1 package") goes to stderr: stdout is the script's (`npm run schema > jobs.schema.json`).
  const npmStdio = ['inherit', 2, 2];
  const npmCli = process.env.npm_execpath;
  const result = npmCli !== undefined && npmCli.endsWith('.js')
    ? spawnSync(process.execPath, [npmCli, ...npmArgs], { stdio: npmStdio })
    : spawnSync('npm', npmArgs, { stdio: npmStdio, shell: process.platform === 'win32' });
  if (result.status !== 0 || !existsSync(runtime.binary)) {
    say(`could not fetch ${runtime.spec}: install Node.js ${NODE_RANGE} (24 is the active LTS release) and run again`);
    return false;
  }
  return true;
}

/**
 * The node binary to run the scripts with, fetching it when needed; undefined when none can be had.
 * @param {boolean} replace whether a runtime already there that does not match its pin is removed
 *   and fetched again (`--ensure`) rather than refused
 */
function supportedNode(replace) {
  if (isSupportedNode()) return process.execPath;
  if (runtime.sha256 === undefined) {
    say(unpinnedMessage(runtime));
    return undefined;
  }
  let fetched = false;
  if (!existsSync(runtime.binary)) {
    if (!fetchRuntime()) return undefined;
    fetched = true;
  }
  let check = verifyRuntime(runtime.binary, runtime.sha256, runtime.marker);
  if (!check.ok && !fetched && replace) {
    say(`${runtime.binary} is not the ${runtime.spec} that package.json pins (its SHA-256 is ${check.actual}): removing ${runtime.folder} and fetching it again`);
    rmSync(runtime.folder, { recursive: true, force: true });
    if (!fetchRuntime()) return undefined;
    fetched = true;
    check = verifyRuntime(runtime.binary, runtime.sha256, runtime.marker);
  }
  if (!check.ok) {
    say(mismatchMessage(runtime, check.actual));
    // Bytes just fetched that are not the pinned ones are not kept where a later run would find them.
    if (fetched) {
      rmSync(runtime.folder, { recursive: true, force: true });
      say(`removed ${runtime.folder}`);
    }
    return undefined;
  }
  return runtime.binary;
}

const [first, ...rest] = process.argv.slice(2);
if (first === undefined) {
  say('usage: node scripts/dev-node.mjs --ensure | SCRIPT [ARGS...]');
  process.exit(2);
}
const node = supportedNode(first === '--ensure');
if (first === '--ensure') process.exit(node === undefined ? 1 : 0);
if (node === undefined) process.exit(1);
runOnNode(node, [first, ...rest]);
