/**
 * The launcher running the CLI on the fetched runtime (an old Node.js) is the process a supervisor
 * sees: a signal sent to it alone (SIGTERM, SIGINT, SIGHUP) reaches the CLI, and the launcher ends
 * as the CLI ends, with its exit code or by its signal. Real signals mid-run, hence a timing test.
 * The launcher runs on the machine's own node when it has one (Node 20 here, the case of issue
 * 41: a `kill -INT` was ignored), else on this one; the fake checkout makes either too old.
 */
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { CUSTOMERS_JOB, TOKEN, customersCsv, fastEmulator, jobsYaml, workspace } from '../helpers/cli-harness.js';
import { REPO_ROOT } from '../helpers/cli-process.js';
import { fakeCheckout, sha256 } from '../helpers/fake-checkout.js';
import { waitFor } from '../helpers/integration-fixtures.js';

/** The exit code a CLI that stops on a signal gives (src/exit-codes.ts), by the shell's name of it. */
const CODES = { TERM: 143, INT: 130, HUP: 129 } as const;
type Sig = keyof typeof CODES;

/** The machine's node (`/usr/bin/node`), not the fetched one this test may run on; else this one. */
function machineNode(): string {
  const found = spawnSync('/bin/sh', ['-c', 'command -v /usr/bin/node /usr/local/bin/node | head -n 1'], { encoding: 'utf8' }).stdout.trim();
  return found === '' ? process.execPath : found;
}

/** A "CLI" that says it is ready, then waits; on the signal it either exits 128+n itself or dies by it. */
function runtimeThat(onTerm: 'exits' | 'dies', sig: Sig = 'TERM'): string {
  const trap = onTerm === 'exits' ? `trap 'echo "stopping on ${sig}"; exit ${CODES[sig]}' ${sig}` : `trap - ${sig}`;
  // Bounded (20 s), so that a launcher that failed to pass the signal on leaves nothing running for long.
  return `#!/bin/sh\n${trap}\necho ready\ni=0\nwhile [ $i -lt 400 ]; do sleep 0.05; i=$((i+1)); done\necho "never stopped"\n`;
}

async function terminatedWhileRunning(onTerm: 'exits' | 'dies', sig: Sig = 'TERM'): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string }> {
  const runtime = runtimeThat(onTerm, sig);
  const checkout = fakeCheckout({ pin: sha256(runtime), runtime });
  const launcher = spawn(machineNode(), [join(checkout.root, 'bin', 'contact-sync.js'), 'run', 'jobs.yaml'], { cwd: checkout.root, stdio: ['ignore', 'pipe', 'ignore'] });
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
  launcher.kill(`SIG${sig}`);
  return { ...(await ended), stdout };
}

(process.platform === 'win32' ? describe.skip : describe)('the launcher on the fetched runtime, sent SIGTERM', () => {
  it('passes it to the CLI and exits with the CLI\'s exit code', async () => {
    expect(await terminatedWhileRunning('exits')).toEqual({ code: 143, signal: null, stdout: 'ready\nstopping on TERM\n' });
  });

  it('ends by the same signal when the CLI dies by it', async () => {
    expect(await terminatedWhileRunning('dies')).toEqual({ code: null, signal: 'SIGTERM', stdout: 'ready\n' });
  });

  // No terminal is attached (stdin ignored, stdout a pipe): nothing but the launcher delivers it.
  it.each(['INT', 'HUP'] as const)('passes SIG%s sent to the launcher alone to the CLI, and exits with its code', async (sig) => {
    expect(await terminatedWhileRunning('exits', sig)).toEqual({ code: CODES[sig], signal: null, stdout: `ready\nstopping on ${sig}\n` });
  });
});

/**
 * Issue 41 item 15 end to end: the repository's own launcher, started by the machine's node (20
 * here: it runs the CLI on the Node.js 24 that npm ci fetched; on a supported node, directly), a
 * real run against the emulator, and a `kill -INT` sent to the launcher alone mid-run: the CLI
 * finishes the rows in flight, writes its reports and exits 130, and so does the launcher.
 */
describe('the repository launcher on the machine node, sent SIGINT mid-run', () => {
  let emulator: RunningEmulator | undefined;
  afterEach(async () => {
    await emulator?.close();
    emulator = undefined;
  });

  it('exits 130 with the reports written', async () => {
    // 20 ms a call, 2 rows at a time: 30 rows take well over a second.
    emulator = await fastEmulator({ faults: { latency: { minMs: 20, maxMs: 20 } } });
    const ws = workspace();
    ws.write('customers.csv', customersCsv(30));
    ws.write('jobs.yaml', jobsYaml({ url: emulator.url, job: `${CUSTOMERS_JOB}\nconcurrency: 2` }));
    const launcher = spawn(machineNode(), [join(REPO_ROOT, 'bin', 'contact-sync.js'), 'run', 'jobs.yaml', '--report-dir', 'reports'], {
      cwd: ws.dir,
      env: { PATH: process.env.PATH ?? '', HOME: ws.dir, CONTACT_SYNC_LOCK_DIR: join(ws.dir, '.contact-sync-locks'), LANG: 'C.UTF-8' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    launcher.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    launcher.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => launcher.on('close', (code, signal) => resolve({ code, signal })));
    try {
      await waitFor(() => emulator!.counters(TOKEN).byOperation.addTags.received >= 3, 'three rows done', 60_000);
    } catch (error) {
      launcher.kill('SIGKILL');
      throw new Error(`${(error as Error).message}\n${output}`);
    }
    launcher.kill('SIGINT');
    const exit = await ended;
    expect({ ...exit, output: exit.code === 130 ? '' : output }).toEqual({ code: 130, signal: null, output: '' });
    expect(ws.summary('import').interrupted).toBe('SIGINT');
    expect(ws.results('import').length).toBeLessThan(30);
  }, 120_000);
});
