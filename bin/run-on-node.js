// Runs a script on another node binary as if it were this process: the same terminal, standard
// streams and environment (with that node's folder first on PATH, so that anything the script
// starts as `node` is the same one), its exit code or signal passed back. Used by
// scripts/dev-node.mjs and by the launcher, bin/contact-sync.js, on an old Node.js.
import { spawn } from 'node:child_process';
import { delimiter, dirname } from 'node:path';
import { isatty } from 'node:tty';

/**
 * Starts `node` on `args` and ends this process the way the child ends.
 * @param {string} node the node binary
 * @param {string[]} args the script and its arguments
 * @param {number} [cannotStart] the exit code when `node` cannot be started at all
 */
export function runOnNode(node, args, cannotStart = 1) {
  const env = { ...process.env, PATH: [dirname(node), process.env.PATH ?? ''].join(delimiter) };
  // This process stands for the script: a signal sent to it (a supervisor's SIGTERM, a `kill -INT`,
  // a SIGHUP) is passed on, and this process then ends as the script ends. One exception: where a
  // terminal is attached, its Ctrl-C reaches the whole process group, the script included, so
  // passing SIGINT on too would be a second one, which stops a run at once
  // (src/cli/run-interrupt.ts): there this process only waits for the script to finish its way.
  // The handlers are in place before the child starts: a signal that came between the two would
  // otherwise end this process by default and leave the child running, orphaned.
  /** @type {import('node:child_process').ChildProcess | undefined} */
  let child;
  const terminal = [0, 1, 2].some((fd) => isatty(fd));
  for (const signal of forwardedSignals()) {
    process.on(signal, () => {
      if (terminal && signal === 'SIGINT') return;
      child?.kill(signal);
    });
  }
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

/**
 * The signals a supervisor or a person sends that this process can catch (SIGKILL and SIGSTOP
 * cannot be; SIGUSR1 is Node's debugger's).
 * @returns {NodeJS.Signals[]}
 */
function forwardedSignals() {
  return process.platform === 'win32' ? ['SIGINT', 'SIGTERM', 'SIGBREAK'] : ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT', 'SIGUSR2'];
}
