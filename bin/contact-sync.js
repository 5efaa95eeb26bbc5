#!/usr/bin/env node
// Thin launcher: the compiled CLI lives in dist/ (built by `npm ci` through the prepare script).
// The Node.js version is checked before the CLI is loaded: on a Node too old for the state store's
// SQLite library the process would crash instead of saying why (exit 2: nothing was done).
import { isSupportedNode, unsupportedNodeMessage } from './supported-node.js';

if (!isSupportedNode()) {
  process.stderr.write(`error: ${unsupportedNodeMessage()}\n`);
  process.exit(2);
}

const { main } = await import('../dist/src/cli/main.js');
process.exitCode = await main(process.argv.slice(2));
