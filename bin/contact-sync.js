#!/usr/bin/env node
// Thin launcher: the compiled CLI lives in dist/ (built by `npm ci` through the prepare script).
// The Node.js version is checked before the CLI is loaded: on a Node too old for the state store's
// SQLite library the process would crash instead of saying why (exit 2: nothing was done). In a
// checkout where `npm ci` fetched a supported Node.js (scripts/dev-node.mjs), the CLI runs on that
// one instead, once its bytes are checked against the repository's pin (bin/fetched-node.js).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { fetchedNode, mismatchMessage, verifyRuntime } from './fetched-node.js';
import { runOnNode } from './run-on-node.js';
import { isSupportedNode, unsupportedNodeMessage } from './supported-node.js';

if (isSupportedNode()) {
  const args = process.argv.slice(2);
  // The version alone is answered without loading the CLI's modules (a cold start is paid by every
  // short command: docs/decisions.md, "The limiter's edges").
  const { asksForVersion, packageVersion } = await import('../dist/src/cli/package-version.js');
  if (asksForVersion(args)) {
    process.stdout.write(`${packageVersion()}\n`);
  } else {
    const { main } = await import('../dist/src/cli/main.js');
    process.exitCode = await main(args);
  }
} else {
  const runtime = fetchedNode();
  // A pin for a supported version is what keeps this from starting itself again and again.
  if (runtime.sha256 !== undefined && existsSync(runtime.binary) && isSupportedNode(runtime.version)) {
    const check = verifyRuntime(runtime.binary, runtime.sha256, runtime.marker);
    if (!check.ok) {
      process.stderr.write(`error: ${mismatchMessage(runtime, check.actual)}\n`);
      process.exit(2);
    }
    process.stderr.write(`contact-sync: Node.js ${process.versions.node} is too old; running on the Node.js ${runtime.version} that npm ci fetched into node_modules/.cache\n`);
    runOnNode(runtime.binary, [fileURLToPath(import.meta.url), ...process.argv.slice(2)], 2);
  } else {
    const fetchHint =
      runtime.inCheckout && runtime.sha256 !== undefined
        ? ` Or run \`npm ci\` in ${runtime.root} on this Node.js: it fetches Node.js ${runtime.version} into node_modules/.cache, which \`npx contact-sync\` then runs on.`
        : '';
    process.stderr.write(`error: ${unsupportedNodeMessage()}${fetchHint}\n`);
    process.exit(2);
  }
}
