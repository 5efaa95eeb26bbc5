/**
 * A signal while an input that can be read once is saved (issue 33): the copy holds personal data
 * and is removed, and the command ends with the signal's exit code, also when the named pipe's
 * writer never came (the old read of a FIFO as a file could not be ended by SIGTERM).
 */
import { execFileSync, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { CUSTOMERS_JOB, customersCsv, jobsYaml, workspace } from '../helpers/cli-harness.js';
import { buildCli, REPO_ROOT, waitUntil } from '../helpers/cli-process.js';

const WAIT_MS = 15_000;

interface Child {
  readonly process: ChildProcessWithoutNullStreams;
  readonly exited: Promise<number | null>;
  stderr(): string;
}

const running = new Set<Child>();

beforeAll(buildCli);

afterEach(() => {
  for (const child of running) child.process.kill('SIGKILL');
  running.clear();
});

/** `contact-sync <argv>` as a child with a pipe for stdin and its own temporary folder. */
function start(argv: readonly string[], cwd: string, temporary: string): Child {
  const child = spawn(process.execPath, [join(REPO_ROOT, 'bin', 'contact-sync.js'), ...argv], {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOME: cwd, CONTACT_SYNC_LOCK_DIR: join(cwd, '.contact-sync-locks'), LANG: 'C.UTF-8', TMPDIR: temporary },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      // Its pipes would keep jest waiting.
      child.stdin.destroy();
      child.stdout.destroy();
      child.stderr.destroy();
      resolve(code);
    }),
  );
  const started: Child = { process: child, exited, stderr: () => stderr };
  running.add(started);
  void exited.then(() => running.delete(started));
  return started;
}

/** The child's exit code, or 'still running' after `ms`. */
async function exitedWithin(child: Child, ms: number): Promise<number | null | 'still running'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'still running'>((resolve) => (timer = setTimeout(() => resolve('still running'), ms)));
  return Promise.race([child.exited, late]).finally(() => clearTimeout(timer));
}

/** The bytes saved so far of `--input -` in `temporary` (0 when no copy is there yet). */
function savedBytes(temporary: string): number {
  for (const name of readdirSync(temporary)) {
    if (!name.startsWith('contact-sync-input-')) continue;
    try {
      return statSync(join(temporary, name, 'input')).size;
    } catch {
      return 0;
    }
  }
  return 0;
}

describe('a signal while the input is saved removes the copy', () => {
  it.each([
    { signal: 'SIGTERM', code: 143 },
    { signal: 'SIGINT', code: 130 },
  ] as const)('$signal while a slow pipe is copied: exit $code, no copy left, nothing run', async ({ signal, code }) => {
    const ws = workspace();
    ws.write('jobs.yaml', jobsYaml({ url: 'http://127.0.0.1:9', job: CUSTOMERS_JOB }));
    const temporary = join(ws.dir, 'tmp');
    execFileSync('mkdir', [temporary]);
    const cli = start(['run', 'jobs.yaml', '--report-dir', 'reports', '--input', '-'], ws.dir, temporary);
    // The export arrives slowly and has not ended: a few rows, then nothing.
    const rows = customersCsv(5);
    cli.process.stdin.write(rows);

    await waitUntil(() => savedBytes(temporary) === Buffer.byteLength(rows), 'the rows written so far are saved', WAIT_MS);
    cli.process.kill(signal);
    const exitCode = await exitedWithin(cli, WAIT_MS);

    expect({ exitCode, stderr: exitCode === code ? '' : cli.stderr() }).toEqual({ exitCode: code, stderr: '' });
    expect(cli.stderr()).toContain(`interrupted (${signal}) while the input was being saved; its copy was removed and nothing was done`);
    expect(readdirSync(temporary)).toEqual([]);
    expect(readdirSync(ws.dir).sort()).toEqual(['jobs.yaml', 'tmp']);
  });

  it('SIGTERM while a named pipe waits for its writer ends the command (exit 143), where it used to hang', async () => {
    const ws = workspace();
    ws.write('jobs.yaml', jobsYaml({ url: 'http://127.0.0.1:9', job: CUSTOMERS_JOB }));
    const temporary = join(ws.dir, 'tmp');
    execFileSync('mkdir', [temporary]);
    execFileSync('mkfifo', [join(ws.dir, 'export.fifo')]);
    const cli = start(['run', 'jobs.yaml', '--report-dir', 'reports', '--input', 'export.fifo'], ws.dir, temporary);

    // The copy's folder is made before the pipe is opened: once it is there, the open is waiting.
    await waitUntil(() => readdirSync(temporary).length > 0, 'the input is being saved', WAIT_MS);
    cli.process.kill('SIGTERM');
    const exitCode = await exitedWithin(cli, WAIT_MS);

    expect({ exitCode, stderr: exitCode === 143 ? '' : cli.stderr() }).toEqual({ exitCode: 143, stderr: '' });
    expect(readdirSync(temporary)).toEqual([]);
  });
});
