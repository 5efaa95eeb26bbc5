// Runs a script on another node binary as if it were this process: the same terminal, standard
// streams and environment (with that node's folder first on PATH, so that anything the script
// starts as `node` is the same one), its exit code or signal passed back. Used by
// scripts/dev-node.mjs and by the launcher, bin/contact-sync.js, on an old Node.js.
import { spawn } from 'node:child_process';
import { delimiter, dirname } from 'node:path';

/**
 * Starts `node` on `args` and ends this process the way the child ends.
 * @param {string} node the node binary
 * @param {string[]} args the script and its arguments
 * @param {number} [cannotStart] the exit code when `node` cannot be started at all
 */
export function runOnNode(node, args, cannotStart = 1) {
  const env = { ...process.env, PATH: [dirname(node), process.env.PATH ?? ''].join(delimiter) };
  // A terminal's Ctrl-C reaches the whole process group, the script included: this process only
  // waits for the script to finish its own way. A SIGTERM sent to this process alone is passed on.
  // The handlers are in place before the child starts: a SIGTERM that came between the two would
  // otherwise end this process by default and leave the child running, orphaned.
  /** @type {import('node:child_process').ChildProcess | undefined} */
  let child;
  process.on('SIGINT', () => {});
  process.on('SIGTERM', () => child?.kill('SIGTERM'));
  child = spawn(node, args, { stdio: 'inherit', env });
  child.on('error', (error) => {
    process.stderr.write(`could not start ${node}: ${error.message}\n`);
    process.exit(cannotStart);
  });
  child.on('exit', (code, signal) => {
    if (signal !== null) {
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
    }
    process.exit(code ?? 1);
  });
}
