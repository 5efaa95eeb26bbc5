// Which Node.js contact-sync runs on: the range of package.json's `engines`, read here so that it
// is written once. The state store's SQLite library (better-sqlite3 13) does not fail on an older
// Node with an error, it crashes the process, so the launcher asks this before it loads anything
// (docs/decisions.md, "The state store's SQLite and the Node.js it needs").
import { readFileSync } from 'node:fs';

const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

/** package.json's `engines.node`, which must read `>=MAJOR[.MINOR[.PATCH]]`. */
export const NODE_RANGE = manifest.engines.node;

const match = /^>=(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(NODE_RANGE);
if (match === null) throw new Error(`package.json: engines.node is "${NODE_RANGE}"; bin/supported-node.js reads only ">=MAJOR[.MINOR[.PATCH]]"`);

/** The lowest Node.js version contact-sync runs on, as [major, minor, patch]. */
export const MINIMUM_NODE = [Number(match[1]), Number(match[2] ?? 0), Number(match[3] ?? 0)];

/** Whether a Node.js version (`process.versions.node`, no leading v) is one contact-sync runs on. */
export function isSupportedNode(version = process.versions.node) {
  const parts = version.split('.').map((part) => Number.parseInt(part, 10));
  for (let i = 0; i < 3; i++) {
    const have = parts[i] ?? 0;
    if (have !== MINIMUM_NODE[i]) return have > MINIMUM_NODE[i];
  }
  return true;
}

/** What a user reads when their Node.js is too old: the need, what they have, the fix. */
export function unsupportedNodeMessage(version = process.versions.node) {
  return (
    `contact-sync needs Node.js ${NODE_RANGE}, and this is Node.js v${version}: its state store's ` +
    `SQLite library does not run on it. Install a supported Node.js (24 is the active LTS release, 22 ` +
    `is also supported) and run again.`
  );
}
