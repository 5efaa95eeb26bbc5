/**
 * Personal data against the emulator (issue 45; docs/personal-data.md): `retention.journal`
 * expires the change journal by a run and by `state prune`, leaving no expired value in the state
 * file's bytes; undo of an expired run exits 2 saying when and by which setting; `forget` erases
 * keys (no byte of them left), lists the report files that still hold them, and the next run looks
 * a forgotten key up instead of creating it again; `check` says once that no retention is set.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { acquireJobLock } from '../../src/lock/job-lock.js';
import { stateLockTarget } from '../../src/lock/lock-target.js';
import { StateStore } from '../../src/state/state-store.js';
import { TOKEN, customersCsv, jobsYaml, workspace, type Workspace } from '../helpers/cli-harness.js';
import { STATE_FILE, STATE_JOB, contactsByKey } from '../helpers/state-fixtures.js';
import { emulatorPerTest } from '../helpers/integration-fixtures.js';

const DAY = 86_400_000;
const EMAIL = 'erase-me-7731@example.com';
const NAME = 'Quillonette';
const RETAINED_JOB = `${STATE_JOB}\nretention: { journal: 90d }`;

const emulator = emulatorPerTest();

/** Whether the state file or its -wal holds `value`'s bytes. */
function inState(ws: Workspace, value: string): boolean {
  const path = join(ws.dir, STATE_FILE);
  const bytes = Buffer.from(value, 'utf8');
  return [path, `${path}-wal`].some((file) => existsSync(file) && readFileSync(file).includes(bytes));
}

/** Customer 2 with EMAIL and NAME, or with the email `email`. */
const withPerson = (email = EMAIL) => customersCsv(3, (i, cells) => (i === 2 ? [cells[0] ?? '', NAME, cells[2] ?? '', email, ...cells.slice(4)] : cells));

/** A workspace whose job has run twice: customer 2 created with EMAIL, then moved to another email (the journal alone holds EMAIL). */
async function twoRuns(job: string, top = ''): Promise<Workspace> {
  const ws = workspace();
  ws.write('jobs.yaml', `${top}${jobsYaml({ url: emulator().url, job })}`);
  ws.write('customers.csv', withPerson());
  expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'first'])).exitCode).toBe(0);
  ws.write('customers.csv', withPerson('moved-2@example.com'));
  expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'second'])).exitCode).toBe(0);
  return ws;
}

/** Moves the start of every run so far `days` into the past, as if they ran then. */
function ageRuns(ws: Workspace, days: number): void {
  const raw = new Database(join(ws.dir, STATE_FILE));
  try {
    raw.prepare('UPDATE runs SET started_at = started_at - ?').run(days * DAY);
  } finally {
    raw.close();
  }
}

function runsOf(ws: Workspace): ReturnType<StateStore['lastRuns']> {
  const store = StateStore.open(join(ws.dir, STATE_FILE), { job: 'import', keyField: 'customerid' });
  try {
    return store.lastRuns(10);
  } finally {
    store.close();
  }
}

describe('retention.journal', () => {
  it("a run expires the journal of the runs started before it: their values leave the state file's bytes, their counts stay, and undo of them exits 2 saying when and by which setting", async () => {
    const ws = await twoRuns(RETAINED_JOB);
    // Nothing past 90 days yet: the journal keeps EMAIL (the create's after, the update's before).
    expect([inState(ws, EMAIL), inState(ws, NAME)]).toEqual([true, true]);
    ageRuns(ws, 100);

    const third = await ws.run(['run', 'jobs.yaml', '--report-dir', 'third']);

    expect(third.exitCode).toBe(0);
    expect(third.stderr).toMatch(/retention\.journal 90d \(jobs\[0\]\.retention\.journal\): 7 change journal lines of 2 runs started before \d{4}-\d\d-\d\dT[\d:.]+Z expired/);
    expect(inState(ws, EMAIL)).toBe(false);
    // The name is still the contact's: the state's record of it is not the journal.
    expect(inState(ws, NAME)).toBe(true);
    const [latest, second, first] = runsOf(ws);
    expect(latest?.journalExpiredAt).toBeNull();
    expect([first?.rows, second?.rows]).toEqual([expect.objectContaining({ created: 3 }), expect.objectContaining({ updated: 1 })]);
    expect(typeof first?.journalExpiredAt).toBe('number');

    const undo = await ws.run(['undo', 'jobs.yaml', '--job', 'import', '--run', String(first?.id), '--report-dir', 'undo']);
    expect(undo.exitCode).toBe(2);
    expect(undo.stderr).toContain(`the change journal of run ${first?.id} expired on ${new Date(first?.journalExpiredAt ?? 0).toISOString()} by retention.journal 90d (jobs[0].retention.journal)`);
    expect(undo.stderr).toContain('it cannot be undone');
    const show = await ws.run(['state', 'show', 'jobs.yaml', '--job', 'import']);
    expect(show.stdout).toContain('change journal expired');
    const history = await ws.run(['history', 'jobs.yaml', '--job', 'import', '--run', String(first?.id)]);
    expect(history.stdout).toBe(`job "import": no change of run ${first?.id} is journalled: its journal expired on ${new Date(first?.journalExpiredAt ?? 0).toISOString()} (retention.journal)\n`);
  });

  it('without it nothing expires, however old the runs', async () => {
    const ws = await twoRuns(STATE_JOB);
    ageRuns(ws, 1000);
    const third = await ws.run(['run', 'jobs.yaml', '--report-dir', 'third']);
    expect(third.exitCode).toBe(0);
    expect(third.stderr).not.toContain('retention');
    expect(inState(ws, EMAIL)).toBe(true);
  });

  it('state prune without --keep-runs expires by the retention at the top of the file; without either it exits 2', async () => {
    const ws = await twoRuns(STATE_JOB, 'retention: { journal: 30d }\n');
    ageRuns(ws, 40);
    expect(inState(ws, EMAIL)).toBe(true);

    const prune = await ws.run(['state', 'prune', 'jobs.yaml', '--job', 'import']);

    expect(prune.exitCode).toBe(0);
    expect(prune.stdout).toMatch(/job "import": retention\.journal 30d \(retention\.journal\): 7 change journal lines of 2 runs started before .* expired/);
    expect(prune.stdout).toContain('the file went from');
    expect(inState(ws, EMAIL)).toBe(false);

    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: STATE_JOB }));
    const refused = await ws.run(['state', 'prune', 'jobs.yaml', '--job', 'import']);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain('--keep-runs N');
    expect(refused.stderr).toContain('retention: {journal: 90d}');
  });

  it('a value that is not a duration is refused (exit 2) naming its YAML path and the accepted form', async () => {
    const ws = workspace();
    ws.write('customers.csv', customersCsv(1));
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: `${STATE_JOB}\nretention: { journal: 90 days }` }));
    const run = await ws.run(['validate', 'jobs.yaml']);
    expect(run.exitCode).toBe(2);
    expect(run.stdout + run.stderr).toContain('jobs[0].retention.journal');
    expect(run.stdout + run.stderr).toContain('90d, 12h, 30s');
  });

  it('check says once, for every job at once, that the journal is kept for ever', async () => {
    const ws = workspace();
    ws.write('customers.csv', customersCsv(1));
    const yaml = jobsYaml({ url: emulator().url, job: STATE_JOB });
    ws.write('jobs.yaml', `${yaml}  - name: second\n    connection: main\n${STATE_JOB.replace('state/import.db', 'state/second.db').replace(/^/gm, '    ')}\n`);
    const check = await ws.run(['check', 'jobs.yaml']);
    expect(check.exitCode).toBe(0);
    expect(check.stdout.split('\n').filter((line) => line.startsWith('retention:'))).toEqual([
      'retention: jobs import, second keep the change journal (people\'s values before and after each write) for ever, as no retention.journal is set; a nightly job should set one, e.g. retention: {journal: 90d} (docs/personal-data.md)',
    ]);

    ws.write('jobs.yaml', `retention: { journal: 90d }\n${yaml}`);
    expect((await ws.run(['check', 'jobs.yaml'])).stdout).not.toContain('retention');
  });
});

describe('contact-sync forget', () => {
  it("erases a key from the store with no byte left, lists the report files that hold it, journals itself without it; the next run looks the key up and creates no second contact", async () => {
    const ws = workspace();
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: STATE_JOB }));
    ws.write('customers.csv', withPerson());
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports/night-1'])).exitCode).toBe(0);
    expect([inState(ws, EMAIL), inState(ws, 'C0002')]).toEqual([true, true]);

    const forget = await ws.run(['forget', 'jobs.yaml', '--job', 'import', '--key', 'C0002']);

    expect(forget.exitCode).toBe(0);
    const [line, ...rest] = forget.stdout.trimEnd().split('\n');
    expect(rest).toEqual([]);
    expect(line).toMatch(/^C0002: erased from the state store: 1 record, 2 change journal lines \(of run 1\); still in \d+ report files \(yours to delete or edit\): /);
    expect(line).toContain(join('reports', 'night-1', 'import.results.csv'));
    expect(line).toContain(join('reports', 'night-1', 'import.changes.csv'));
    expect([inState(ws, EMAIL), inState(ws, NAME), inState(ws, 'C0002')]).toEqual([false, false, false]);
    // Journalled as a run that keeps no key.
    const [erasure] = runsOf(ws);
    expect(erasure).toMatchObject({ argv: 'forget jobs.yaml --keys 1', rows: { total: 1, erased: 1, unknown: 0 }, exitCode: 0 });

    emulator().resetCounters(TOKEN);
    const next = await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports/night-2']);
    expect(next.exitCode).toBe(0);
    const results = new Map(ws.results('import', 'reports/night-2').map((row) => [row.key, row]));
    expect(results.get('C0002')).toMatchObject({ outcome: 'unchanged' });
    expect([results.get('C0001')?.api_calls, results.get('C0002')?.api_calls]).toEqual(['0', '1']);
    expect(emulator().counters(TOKEN).byOperation.searchContacts?.received).toBe(1);
    expect(emulator().counters(TOKEN).byOperation.createContact?.received ?? 0).toBe(0);
    expect(contactsByKey(emulator()).get('C0002')).toHaveLength(1);
  });

  it('a key the store does not know is said on its line and exits 1; the others are erased still', async () => {
    const ws = workspace();
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: STATE_JOB }));
    ws.write('customers.csv', customersCsv(2));
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'first'])).exitCode).toBe(0);

    const forget = await ws.run(['forget', 'jobs.yaml', '--job', 'import', '--key', 'NOPE-4242', '--key', 'C0001', '--report-dir', 'first']);

    expect(forget.exitCode).toBe(1);
    const lines = forget.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toBe('NOPE-4242: not in the state store of job "import": nothing erased; no report file found holds it');
    expect(lines[1]).toMatch(/^C0001: erased from the state store: 1 record, 2 change journal lines \(of run 1\); still in \d+ report files/);
    expect(inState(ws, 'C0001')).toBe(false);
    expect(inState(ws, 'C0002')).toBe(true);
    expect(runsOf(ws)[0]).toMatchObject({ argv: 'forget jobs.yaml --keys 2', rows: { total: 2, erased: 1, unknown: 1 }, exitCode: 1 });
  });

  it('finds the key in the report folders the job\'s runs recorded, wherever they were (a folder outside reports/, one outside the working folder), with no --report-dir', async () => {
    const ws = workspace();
    const outside = workspace();
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: STATE_JOB }));
    ws.write('customers.csv', customersCsv(2));
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'nightly/2026-11-27'])).exitCode).toBe(0);
    ws.write('customers.csv', customersCsv(2, (i, cells) => (i === 1 ? [cells[0] ?? '', 'Renamed', ...cells.slice(2)] : cells)));
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', join(outside.dir, 'night-2')])).exitCode).toBe(0);

    const forget = await ws.run(['forget', 'jobs.yaml', '--job', 'import', '--key', 'C0001']);

    expect(forget.exitCode).toBe(0);
    const [line] = forget.stdout.trimEnd().split('\n');
    // Both runs' results name the key; the second's changes too. Under the working folder relative, outside it in full.
    for (const file of [join('nightly', '2026-11-27', 'import.results.csv'), join(outside.dir, 'night-2', 'import.results.csv'), join(outside.dir, 'night-2', 'import.changes.csv')]) expect(line).toContain(file);
    expect(line).not.toContain('..');
  });

  it('in mode: create, which creates a key its state never saw without a search, says to run once with --full', async () => {
    const ws = workspace();
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: `${STATE_JOB}\nmode: create` }));
    ws.write('customers.csv', customersCsv(2));
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'first'])).exitCode).toBe(0);
    const forget = await ws.run(['forget', 'jobs.yaml', '--job', 'import', '--key', 'C0001']);
    expect(forget.exitCode).toBe(0);
    expect(forget.stdout.split('\n')[1]).toBe('  job "import" is in mode: create, which creates a key its state never saw without a search: run it once with --full next, so the forgotten keys are searched, not created again');
    emulator().resetCounters(TOKEN);
    expect((await ws.run(['run', 'jobs.yaml', '--full', '--report-dir', 'second'])).exitCode).toBe(0);
    expect(contactsByKey(emulator()).get('C0001')).toHaveLength(1);
  });

  it('refuses (75) while a run holds the job\'s state, erasing nothing', async () => {
    const ws = workspace();
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: STATE_JOB }));
    ws.write('customers.csv', customersCsv(1));
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'first'])).exitCode).toBe(0);
    const held = acquireJobLock({ jobsFile: 'jobs.yaml', job: 'import', target: stateLockTarget(join(ws.dir, STATE_FILE)) }, { command: 'run jobs.yaml', pid: 4242, host: 'cron-1' });
    try {
      const forget = await ws.run(['forget', 'jobs.yaml', '--job', 'import', '--key', 'C0001']);
      expect(forget.exitCode).toBe(75);
      expect(forget.stderr).toContain('cannot forget keys in its state while it is already running');
    } finally {
      held.release();
    }
    expect(inState(ws, 'C0001')).toBe(true);
  });

  it('--keys-file takes one key a line, blank lines ignored; a missing file, or no key at all, exits 2 naming it', async () => {
    const ws = workspace();
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: STATE_JOB }));
    ws.write('customers.csv', customersCsv(3));
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'first'])).exitCode).toBe(0);
    ws.write('keys.txt', 'C0001\n\n  \r\nC0003\r\n');

    const forget = await ws.run(['forget', 'jobs.yaml', '--job', 'import', '--keys-file', 'keys.txt']);
    expect(forget.exitCode).toBe(0);
    expect(forget.stdout.trimEnd().split('\n').map((line) => line.split(':')[0])).toEqual(['C0001', 'C0003']);
    expect([inState(ws, 'C0001'), inState(ws, 'C0002'), inState(ws, 'C0003')]).toEqual([false, true, false]);

    const missing = await ws.run(['forget', 'jobs.yaml', '--job', 'import', '--keys-file', 'no-such-keys.txt']);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain('--keys-file no-such-keys.txt: cannot read it (ENOENT)');
    const neither = await ws.run(['forget', 'jobs.yaml', '--job', 'import']);
    expect(neither.exitCode).toBe(2);
    expect(neither.stderr).toContain('--key KEY');
    expect(inState(ws, 'C0002')).toBe(true);
  });
});
