/**
 * The launcher running the CLI on the fetched runtime (an old Node.js) is the process a supervisor
 * sees: a SIGTERM sent to it alone reaches the CLI, and the launcher ends as the CLI ends, with its
 * exit code or by its signal. Real signals mid-run, hence a timing test.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fakeCheckout, sha256 } from '../helpers/fake-checkout.js';

/** A "CLI" that says it is ready, then waits; on SIGTERM it either exits 143 itself or dies by it. */
function runtimeThat(onTerm: 'exits' | 'dies'): string {
  const trap = onTerm === 'exits' ? `trap 'echo "stopping on TERM"; exit 143' TERM` : 'trap - TERM';
  // Bounded (20 s), so that a launcher that failed to pass the signal on leaves nothing running for long.
  return `#!/bin/sh\n${trap}\necho ready\ni=0\nwhile [ $i -lt 400 ]; do sleep 0.05; i=$((i+1)); done\necho "never stopped"\n`;
}

async function terminatedWhileRunning(onTerm: 'exits' | 'dies'): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string }> {
  const runtime = runtimeThat(onTerm);
  const checkout = fakeCheckout({ pin: sha256(runtime), runtime });
  const launcher = spawn(process.execPath, [join(checkout.root, 'bin', 'contact-sync.js'), 'run', 'jobs.yaml'], { cwd: checkout.root, stdio: ['ignore', 'pipe', 'ignore'] });
  let stdout = '';
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => launcher.on('close', (code, signal) => resolve({ code, signal })));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the fake CLI said nothing in 20 s: ${stdout}`)), 20_000);
    launcher.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes('ready\n')) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  launcher.kill('SIGTERM');
  return { ...(await ended), stdout };
}

(process.platform === 'win32' ? describe.skip : describe)('the launcher on the fetched runtime, sent SIGTERM', () => {
  it('passes it to the CLI and exits with the CLI\'s exit code', async () => {
    expect(await terminatedWhileRunning('exits')).toEqual({ code: 143, signal: null, stdout: 'ready\nstopping on TERM\n' });
  });

  it('ends by the same signal when the CLI dies by it', async () => {
    expect(await terminatedWhileRunning('dies')).toEqual({ code: null, signal: 'SIGTERM', stdout: 'ready\n' });
  });
});
