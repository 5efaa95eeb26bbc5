#!/usr/bin/env node
// Thin launcher: the compiled CLI lives in dist/ (built by `npm ci` through the prepare script).
// The Node.js version is checked before the CLI is loaded: on a Node too old for the state store's
// SQLite library the process would crash instead of saying why (exit 2: nothing was done).
import { isSupportedNode, unsupportedNodeMessage } from './supported-node.js';

if (!isSupportedNode()) {
  process.stderr.write(`error: ${unsupportedNodeMessage()}\n`);
  process.exit(2);
}

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
