/**
 * Inputs that are not regular files (issue 33): a named pipe and a process substitution are read
 * as `--input -` is (saved first, the same results as the file), a device is refused before any
 * call (exit 2), and an endless run of NUL bytes on a pipe ends with exit 2 instead of filling
 * the disk.
 */
import { execFileSync, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NUL_PROBE_BYTES } from '../../src/cli/saved-input.js';
import { CUSTOMERS_JOB, TOKEN, customersCsv, jobsYaml, workspace, type Workspace } from '../helpers/cli-harness.js';
import { buildCli, REPO_ROOT } from '../helpers/cli-process.js';
import { emulatorPerTest } from '../helpers/integration-fixtures.js';

const emulator = emulatorPerTest();

function setUp(job = CUSTOMERS_JOB): { ws: Workspace; csv: string } {
  const csv = customersCsv(12, (i, cells) => (i === 3 ? [...cells.slice(0, 3), 'not-an-email', ...cells.slice(4)] : cells));
  const ws = workspace();
  ws.write('customers.csv', csv);
  ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job }));
  return { ws, csv };
}

/** results.csv's lines in line order. */
function resultLines(ws: Workspace, dir: string): string[] {
  const [header, ...lines] = readFileSync(join(ws.dir, dir, 'import.results.csv'), 'utf8').trimEnd().split('\n');
  return [header!, ...lines.sort((a, b) => Number.parseInt(a, 10) - Number.parseInt(b, 10))];
}

const savedInputs = (dir = tmpdir()): string[] => readdirSync(dir).filter((name) => name.startsWith('contact-sync-input-'));

describe('a named pipe is read as --input - is read', () => {
  beforeAll(buildCli);

  it('--input naming a FIFO, and a FIFO as input.path, give the file\'s results and leave no copy', async () => {
    const { ws, csv } = setUp();
    const fifo = join(ws.dir, 'export.fifo');
    execFileSync('mkfifo', [fifo]);
    ws.write('fifo-jobs.yaml', readFileSync(join(ws.dir, 'jobs.yaml'), 'utf8').replace('input: customers.csv', 'input: export.fifo'));

    const plain = await ws.run(['run', 'jobs.yaml', '--dry-run', '--report-dir', 'plain']);
    const writer = writeFile(fifo, csv);
    const flag = await ws.run(['run', 'jobs.yaml', '--dry-run', '--report-dir', 'flag', '--input', 'export.fifo']);
    await writer;
    const again = writeFile(fifo, csv);
    const configured = await ws.run(['run', 'fifo-jobs.yaml', '--dry-run', '--report-dir', 'configured']);
    await again;

    expect([plain.exitCode, flag.exitCode, configured.exitCode]).toEqual([1, 1, 1]);
    expect(ws.summary('import', 'plain').rows).toMatchObject({ total: 12, created: 11, failed: 1 });
    expect(resultLines(ws, 'flag')).toEqual(resultLines(ws, 'plain'));
    expect(resultLines(ws, 'configured')).toEqual(resultLines(ws, 'plain'));
    // The rows are named by the pipe's name, as the file's by the file's.
    expect(ws.rejected('import', 'flag')).toHaveLength(1);
    expect(savedInputs()).toEqual([]);
  });

  it('a process substitution (--input <(...)) is read, not refused with ESPIPE', async () => {
    const { ws } = setUp();
    const plain = await ws.run(['run', 'jobs.yaml', '--dry-run', '--report-dir', 'plain']);
    const own = join(ws.dir, 'tmp');
    execFileSync('mkdir', [own]);

    const shell = spawn('bash', ['-c', `exec "${process.execPath}" "${join(REPO_ROOT, 'bin', 'contact-sync.js')}" run jobs.yaml --dry-run --report-dir subst --input <(cat customers.csv)`], {
      cwd: ws.dir,
      env: { PATH: process.env.PATH ?? '', HOME: ws.dir, CONTACT_SYNC_LOCK_DIR: join(ws.dir, '.contact-sync-locks'), LANG: 'C.UTF-8', TMPDIR: own },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    shell.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    // A hang (the old ESPIPE path read a pipe as a file) fails the test instead of outliving it.
    const hang = setTimeout(() => shell.kill('SIGKILL'), 20_000);
    const exitCode = await new Promise<number | null>((resolve) => shell.on('exit', resolve)).finally(() => clearTimeout(hang));

    expect({ exitCode, output: exitCode === 1 ? '' : output }).toEqual({ exitCode: 1, output: '' });
    expect(resultLines(ws, 'subst')).toEqual(resultLines(ws, 'plain'));
    expect(plain.exitCode).toBe(1);
    expect(savedInputs(own)).toEqual([]);
  });
});

describe('what is no export ends at once, exit 2, before any call', () => {
  it('a device as --input or as input.path is refused, naming it and the way to pipe', async () => {
    const { ws } = setUp();
    ws.write('zero-jobs.yaml', readFileSync(join(ws.dir, 'jobs.yaml'), 'utf8').replace('input: customers.csv', 'input: /dev/zero'));

    const flag = await ws.run(['run', 'jobs.yaml', '--input', '/dev/zero']);
    const configured = await ws.run(['run', 'zero-jobs.yaml']);

    expect(flag.exitCode).toBe(2);
    expect(flag.stderr).toContain('--input /dev/zero: /dev/zero is a device, not a file, and no CSV export; give the export file, or pipe it in with --input - (e.g. producer | contact-sync run jobs.yaml --job import --input -); nothing was done');
    expect(configured.exitCode).toBe(2);
    expect(configured.stderr).toContain('job import: input.path /dev/zero: /dev/zero is a device, not a file');
    expect(emulator().counters(TOKEN).total.received).toBe(0);
  });

  it(`a pipe that starts with ${NUL_PROBE_BYTES / 1024} KiB of NUL bytes (cat /dev/zero |) is refused, and its copy removed`, async () => {
    const { ws } = setUp();

    const run = await ws.run(['run', 'jobs.yaml', '--input', '-'], { stdin: Buffer.alloc(NUL_PROBE_BYTES + 1) });

    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain('--input -: the input starts with 64 KiB of NUL bytes, so it is not a CSV export (is it /dev/zero or a disk image?); give the export itself; nothing was done');
    expect(emulator().counters(TOKEN).total.received).toBe(0);
    expect(savedInputs()).toEqual([]);
  });
});
