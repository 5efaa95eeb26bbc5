/**
 * The state store's edges (issue 33): a damaged file and an empty one are said with their fix
 * before any call, a store another process holds is "try later" (exit 75), the mid-run fix is the
 * failure's own, and what `state prune` drops is gone from the file's bytes.
 */
import { closeSync, existsSync, openSync, readFileSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { stateWriteFailed } from '../../src/pipeline/job-abort.js';
import { TOKEN, customersCsv, fastEmulator, jobsYaml, workspace, type Workspace } from '../helpers/cli-harness.js';
import { STATE_FILE, STATE_JOB } from '../helpers/state-fixtures.js';

const PAGE = 4096;

let emulator: RunningEmulator;
beforeEach(async () => {
  emulator = await fastEmulator();
});
afterEach(async () => {
  await emulator.close();
});

/** A workspace whose job has a state store holding `rows` customers (a first run made it). */
async function withState(rows: number, csv = customersCsv(rows)): Promise<{ ws: Workspace; state: string }> {
  const ws = workspace();
  ws.write('customers.csv', csv);
  ws.write('jobs.yaml', jobsYaml({ url: emulator.url, job: STATE_JOB }));
  expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'first'])).exitCode).toBe(0);
  emulator.resetCounters(TOKEN);
  return { ws, state: join(ws.dir, STATE_FILE) };
}

describe('a state file that is damaged or empty', () => {
  it('damage in its middle pages is exit 2 before any call, naming the file and the fix; state reset then starts afresh', async () => {
    const { ws, state } = await withState(200);
    const pages = statSync(state).size / PAGE;
    const fd = openSync(state, 'r+');
    for (let page = Math.floor(pages / 2); page < pages; page++) writeSync(fd, Buffer.alloc(PAGE, 0x5a), 0, PAGE, page * PAGE);
    closeSync(fd);

    const damaged = await ws.run(['run', 'jobs.yaml', '--report-dir', 'second']);

    expect(damaged.exitCode).toBe(2);
    expect(damaged.stderr).toContain(`${state}: the state store of job "import" cannot be read (database disk image is malformed). The file is damaged`);
    expect(damaged.stderr).toContain('restore it, with its -wal file if one was beside it, from a backup; or start afresh with `contact-sync state reset <jobs.yaml> --job import`');
    expect(damaged.stderr).not.toContain('UNEXPECTED');
    expect(emulator.counters(TOKEN).total.received).toBe(0);

    const reset = await ws.run(['state', 'reset', 'jobs.yaml', '--job', 'import', '--yes']);
    expect(reset.exitCode).toBe(0);
    expect(reset.stdout).toContain('the file cannot be read (database disk image is malformed): it is deleted whole');
    expect(existsSync(state)).toBe(false);
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'afresh'])).exitCode).toBe(0);
  });

  it('an empty (0-byte) state file is refused (exit 2), not taken as a new store, and reset removes it', async () => {
    const { ws, state } = await withState(3);
    writeFileSync(state, '');

    const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'second']);

    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain(
      `${state}: the state file of job "import" is empty (0 bytes), so its contact ids, change journal and message history are not in it; restore it from a backup, or remove it (with \`contact-sync state reset <jobs.yaml> --job import\` or rm) to start afresh`,
    );
    expect(emulator.counters(TOKEN).total.received).toBe(0);
    expect(statSync(state).size).toBe(0);
    const reset = await ws.run(['state', 'reset', 'jobs.yaml', '--job', 'import', '--yes']);
    expect(reset.stdout).toContain('the file cannot be read (it is empty (0 bytes)): it is deleted whole');
    expect(existsSync(state)).toBe(false);
  });
});

describe('a state file another process holds', () => {
  it('at the start is exit 75 (try later), as a held job lock, with nothing done', async () => {
    const { ws, state } = await withState(3);
    const holder = new Database(state);
    holder.exec('BEGIN EXCLUSIVE');
    try {
      const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'second']);
      expect(run.exitCode).toBe(75);
      expect(run.stderr).toContain('(database is locked). Another process holds the file (another run of this job, a sqlite3 shell or a backup tool that locks it): let it finish, then run again');
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
    expect(emulator.counters(TOKEN).total.received).toBe(0);
  });

  it('mid-run is told so, not "free space": each failure of the store gets its own fix', () => {
    const failure = (code: string, message: string) => Object.assign(new Error(message), { code });
    expect(stateWriteFailed('s.db', 'at line 7', failure('SQLITE_BUSY', 'database is locked')).message).toBe(
      'the state store s.db could not be used at line 7 (database is locked). Another process holds the file (another run of this job, a sqlite3 shell or a backup tool that locks it): let it finish, then run again; the state is kept.',
    );
    expect(stateWriteFailed('s.db', 'at line 7', failure('SQLITE_CORRUPT', 'database disk image is malformed')).message).toMatch(
      /^the state store s\.db could not be used at line 7 \(database disk image is malformed\)\. The file is damaged .*restore it/,
    );
    expect(stateWriteFailed('s.db', 'at line 7', failure('SQLITE_FULL', 'database or disk is full')).message).toBe(
      'the state store s.db could not be written at line 7 (database or disk is full); free space or fix its permissions, then run again: what was confirmed is kept',
    );
  });
});

describe('state prune', () => {
  it('leaves no pruned value in the file\'s bytes', async () => {
    const { ws, state } = await withState(5, customersCsv(5, (i, cells) => (i === 2 ? [cells[0]!, 'Prunedname7q', ...cells.slice(2)] : cells)));
    // The second run changes the name: the journal keeps the old one as the value before.
    ws.write('customers.csv', customersCsv(5));
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'second'])).exitCode).toBe(0);
    expect(readFileSync(state).includes('Prunedname7q')).toBe(true);

    // The first run created the contacts: its journal is kept unless asked (undo tags them from it).
    const prune = await ws.run(['state', 'prune', 'jobs.yaml', '--job', 'import', '--keep-runs', '0', '--include-creating-runs']);

    expect(prune.exitCode).toBe(0);
    expect(prune.stdout).toMatch(/dropped \d+ change journal lines of 2 runs/);
    // Compacted, and said (issue 41 item 18; test/state/state-store-changes.test.ts shows a big journal shrink).
    const [, before, after] = /the file went from (\d+) KB to (\d+) KB/.exec(prune.stdout) ?? [];
    expect(Number(after)).toBeLessThanOrEqual(Number(before));
    expect(statSync(state).size).toBeLessThanOrEqual(Number(after) * 1024);
    for (const file of [state, `${state}-wal`]) {
      if (existsSync(file)) expect([file, readFileSync(file).includes('Prunedname7q')]).toEqual([file, false]);
    }
  });
});
