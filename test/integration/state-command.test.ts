import { existsSync, linkSync, mkdirSync, readdirSync } from 'node:fs';
import { acquireJobLock } from '../../src/lock/job-lock.js';
import { stateInodeLockTarget, stateLockTarget } from '../../src/lock/lock-target.js';
import { join } from 'node:path';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { StateStore } from '../../src/state/state-store.js';
import { CUSTOMERS_JOB, TOKEN, customersCsv, fastEmulator, jobsYaml, workspace, type Workspace } from '../helpers/cli-harness.js';
import { STATE_FILE, STATE_JOB, contactIdOf, editOnPlatform } from '../helpers/state-fixtures.js';

describe('state show | reset <jobs.yaml> --job NAME', () => {
  let emulator: RunningEmulator;
  let ws: Workspace;

  beforeEach(async () => {
    emulator = await fastEmulator();
    ws = workspace();
    ws.write('customers.csv', customersCsv(5));
    ws.write('jobs.yaml', jobsYaml({ url: emulator.url, job: STATE_JOB }));
  });

  afterEach(async () => {
    await emulator.close();
  });

  it('reset refuses (75) while a run holds the state file through a hard link, and show names it', async () => {
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'first'])).exitCode).toBe(0);
    mkdirSync(join(ws.dir, 'other'));
    const linked = join(ws.dir, 'other', 'linked.db');
    linkSync(join(ws.dir, STATE_FILE), linked);
    // A run of another job on the hard link holds its locks: beside the link, and by the inode.
    const lockDir = join(ws.dir, '.contact-sync-locks');
    const inode = stateInodeLockTarget(linked, lockDir)!;
    const held = [stateLockTarget(linked), inode].map((target) => acquireJobLock({ jobsFile: 'other.yaml', job: 'import-linked', target }, { command: 'run other.yaml', pid: 4242, host: 'cron-1' }));
    try {
      const show = await ws.run(['state', 'show', 'jobs.yaml', '--job', 'import']);
      expect(show.stdout).toContain('job "import": a run is in progress: pid 4242 on cron-1');
      const reset = await ws.run(['state', 'reset', 'jobs.yaml', '--job', 'import', '--yes']);
      expect(reset.exitCode).toBe(75);
      expect(reset.stderr).toContain('cannot reset its state while it is already running');
      expect(existsSync(join(ws.dir, STATE_FILE))).toBe(true);
    } finally {
      for (const lock of held) lock.release();
    }
  });

  it('show before any run says there is no state yet and creates no file', async () => {
    const show = await ws.run(['state', 'show', 'jobs.yaml', '--job', 'import']);

    expect(show.exitCode).toBe(0);
    expect(show.stdout).toContain('no state yet');
    expect(show.stdout).toContain(join(ws.dir, STATE_FILE));
    expect(existsSync(join(ws.dir, 'state'))).toBe(false);
  });

  it('show prints the file, job, key field, counts, and the last runs with their row counts; --keys lists keys with contact ids', async () => {
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'first'])).exitCode).toBe(0);
    expect((await ws.run(['run', 'jobs.yaml', '--full', '--report-dir', 'second'])).exitCode).toBe(0);

    const show = await ws.run(['state', 'show', 'jobs.yaml', '--job', 'import', '--keys', '2']);

    expect(show.exitCode).toBe(0);
    const lines = show.stdout.split('\n');
    const value = (label: string) => lines.find((line) => line.startsWith(`${label}:`))?.slice(label.length + 1).trim();
    expect(value('state file')).toBe(join(ws.dir, STATE_FILE));
    expect(value('job')).toBe('import');
    expect(value('key field')).toBe('customerid');
    expect(value('keys')).toBe('5');
    expect(value('pending creates')).toBe('0');
    expect(value('departed keys')).toBe('0');
    expect(value('messages')).toBe('0');
    expect(value("last run")).toMatch(/\(--full\), completed, finished .*, exit 0: total 5, created 0, updated 0, unchanged 5, skipped 0, failed 0$/);
    expect(value('last finished run')).toBe(value('last run'));
    expect(show.stdout).toContain('keys (first 2 of 5):');
    expect(lines.filter((line) => /^ {2}C000[12] {2}\d+$/.test(line))).toEqual([
      `  C0001  ${contactIdOf(emulator, 'C0001')}`,
      `  C0002  ${contactIdOf(emulator, 'C0002')}`,
    ]);
    expect(show.stdout).not.toContain(TOKEN);
  });

  it('show labels a reconcile by its command and its keys\' figures, not as a --full run of unchanged rows (issue 34)', async () => {
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'first'])).exitCode).toBe(0);
    // An agent edits C0002 on the platform, and the export has a new customer, C0006: they differ on 2 keys.
    await editOnPlatform(emulator, 'PUT', `/v1/contact/${contactIdOf(emulator, 'C0002')}`, { custom_fields: [{ name: 'firstName', value: 'Edited' }] });
    ws.write('customers.csv', customersCsv(6));
    expect((await ws.run(['reconcile', 'jobs.yaml', '--report-dir', 'reconcile'])).exitCode).toBe(1);

    const show = await ws.run(['state', 'show', 'jobs.yaml', '--job', 'import']);

    const last = show.stdout.split('\n').find((line) => line.startsWith('last run:'));
    expect(last).toMatch(/^last run: +run 2 \(reconcile\), started \S+, completed, finished \S+, exit 1: keys in file 6, same 4, differs 1, missing 1, extra 0, duplicate 0, failed 0$/);
    expect(last).not.toContain('--full');
  });

  it('show tells a run that did not finish (killed) from the last finished one, and counts pending creates', async () => {
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'first'])).exitCode).toBe(0);
    // What a killed run leaves: a started run never finished, and a create journalled as pending.
    const store = StateStore.open(join(ws.dir, STATE_FILE), { job: 'import', keyField: 'customerid' });
    store.startRun({ job: 'import', argv: 'run jobs.yaml', full: false, surface: 'v1' });
    store.markCreatePending('C0009');
    store.close();

    const show = await ws.run(['state', 'show', 'jobs.yaml', '--job', 'import']);

    expect(show.exitCode).toBe(0);
    expect(show.stdout).toMatch(/^last run: +run \d+ \(run\), started .*, not finished \(still running, or killed\)$/m);
    expect(show.stdout).toMatch(/^last finished run: +run \d+ \(run\), started .*, finished .*, exit 0: total 5, created 5,/m);
    expect(show.stdout).toMatch(/^pending creates: +1$/m);
    expect(show.stdout).not.toContain('keys (first');
  });

  it('reset deletes the state file and its -wal/-shm companions and says which; the next run searches every key again', async () => {
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'first'])).exitCode).toBe(0);
    // A store left open (a reader) keeps the -wal and -shm files beside the database.
    const statePath = join(ws.dir, STATE_FILE);
    const reader = StateStore.open(statePath, { job: 'import', keyField: 'customerid' });
    // The run's lock on the state (src/lock/lock-target.ts) lies beside it, and is no part of the state.
    expect(readdirSync(join(ws.dir, 'state')).sort()).toEqual(['import.db', 'import.db-shm', 'import.db-wal', 'import.db.lock']);

    const reset = await ws.run(['state', 'reset', 'jobs.yaml', '--job', 'import', '--yes']);
    reader.close();

    expect(reset.exitCode).toBe(0);
    expect(reset.stdout).toContain(`  ${statePath}\n`);
    expect(reset.stdout).toContain(`  ${statePath}-wal\n`);
    expect(reset.stdout).toContain(`  ${statePath}-shm\n`);
    expect(readdirSync(join(ws.dir, 'state'))).toEqual(['import.db.lock']);

    const again = await ws.run(['state', 'reset', 'jobs.yaml', '--job', 'import', '--yes']);
    expect(again.exitCode).toBe(0);
    expect(again.stdout).toContain('nothing to delete');

    emulator.resetCounters(TOKEN);
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'after-reset'])).exitCode).toBe(0);
    expect(emulator.counters(TOKEN).byOperation.searchContacts.received).toBe(5);
    expect(emulator.counters(TOKEN).byOperation.createContact.received).toBe(0);
  });

  it('reset says what it forgets and asks: without --yes off a terminal nothing is changed (exit 2)', async () => {
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'first'])).exitCode).toBe(0);

    const refused = await ws.run(['state', 'reset', 'jobs.yaml', '--job', 'import']);

    expect(refused.exitCode).toBe(2);
    expect(refused.stdout).toMatch(/5 keys and their contact ids will be forgotten .*and the journal of 0 messages sent: the next run sends them again .*--keep-messages keeps the journal/);
    expect(refused.stderr).toContain('add --yes');
    expect(readdirSync(join(ws.dir, 'state'))).toContain('import.db');
  });

  it('reset --keep-messages forgets the keys and keeps the message journal', async () => {
    ws.write("jobs.yaml", jobsYaml({ url: emulator.url, job: `${STATE_JOB}\nmessage: { when: always, text: "Hi" }` }));
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'first'])).exitCode).toBe(0);
    expect(emulator.messages(TOKEN)).toHaveLength(5);

    const reset = await ws.run(['state', 'reset', 'jobs.yaml', '--job', 'import', '--yes', '--keep-messages']);
    expect(reset.exitCode).toBe(0);
    expect(reset.stdout).toContain('forgot 5 keys; kept the journal of 5 messages');

    // The contacts exist: the re-run searches each key again; the kept journal says each was greeted
    // (`when: always` sends once per contact unless `repeat`), so none is greeted twice.
    emulator.resetCounters(TOKEN);
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'after'])).exitCode).toBe(0);
    expect(emulator.counters(TOKEN).byOperation.searchContacts.received).toBe(5);
    expect(emulator.messages(TOKEN)).toHaveLength(5);
  });

  it('a job with state: false is a usage error (exit 2) that says how to keep a state', async () => {
    ws.write('jobs.yaml', jobsYaml({ url: emulator.url, job: CUSTOMERS_JOB }));

    for (const action of ['show', 'reset']) {
      const run = await ws.run(['state', action, 'jobs.yaml', '--job', 'import']);
      expect(run.exitCode).toBe(2);
      expect(run.stderr).toContain('job "import" has state: false');
      expect(run.stderr).toContain('set its state: to a file');
    }
  });

  it('a missing --job, an unknown job or an unknown action is a usage error (exit 2)', async () => {
    const noJob = await ws.run(['state', 'show', 'jobs.yaml']);
    expect(noJob.exitCode).toBe(2);
    expect(noJob.stderr).toContain('state: --job NAME is missing: it is required');

    const unknown = await ws.run(['state', 'show', 'jobs.yaml', '--job', 'nightly']);
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toContain('no job named "nightly"');

    const action = await ws.run(['state', 'drop', 'jobs.yaml', '--job', 'import']);
    expect(action.exitCode).toBe(2);
    expect(action.stderr).toContain('drop');
  });
});
