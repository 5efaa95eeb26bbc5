/**
 * The machine fails, not the platform (issue 12): a report disk that fills up, a state store disk
 * that fills up, a report folder that cannot be made. Each stops the job with its own code and
 * what it could write, never a stack trace or a half-written row; rejected.csv keeps the input's
 * values exactly so it can be fed back.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { StateStore } from '../../src/state/state-store.js';
import { CUSTOMERS_JOB, TOKEN, customersCsv, fastEmulator, jobsYaml, workspace } from '../helpers/cli-harness.js';
import { CAN_MOUNT_SMALL_DISK, SMALL_DISK_SKIP_REASON, smallDisk, type SmallDisk } from './support/small-disk.js';
import { REPORT_WRITE_FIX, RESULT_COLUMNS } from '../../src/pipeline/report/report.js';

const withSmallDisk = CAN_MOUNT_SMALL_DISK ? it : it.skip;
if (!CAN_MOUNT_SMALL_DISK) console.warn(`local-faults: the full-disk tests are skipped: ${SMALL_DISK_SKIP_REASON}`);

describe('local failures', () => {
  let emulator: RunningEmulator;
  let disk: SmallDisk | undefined;
  beforeEach(async () => {
    emulator = await fastEmulator();
  });
  afterEach(async () => {
    await emulator.close();
    disk?.unmount();
    disk = undefined;
  });

  withSmallDisk('a report disk that fills up: exit 3 REPORT_WRITE_FAILED naming the file, no stack trace, no half row; the re-run with the state store elsewhere finishes cheaply', async () => {
    disk = smallDisk(12)!;
    const ws = workspace();
    ws.write('customers.csv', customersCsv(300));
    ws.write('jobs.yaml', jobsYaml({ url: emulator.url, job: CUSTOMERS_JOB.replace('state: false', 'state: state/import.db') }));

    const run = await ws.run(['run', 'jobs.yaml', '--report-dir', disk.dir]);

    expect(run.exitCode).toBe(3);
    expect(run.stdout + run.stderr).toMatch(new RegExp(`REPORT_WRITE_FAILED.*the report ${disk.dir}/import\\.\\w+\\.\\w+ could not be written \\(ENOSPC\\)`));
    expect(run.stdout + run.stderr).toContain(`the rows after it were not taken: ${REPORT_WRITE_FIX}`);
    expect(run.stdout + run.stderr).not.toMatch(/^\s+at /m);
    // What is on the disk parses, and every row in it is whole.
    const results = parse(readFileSync(join(disk.dir, 'import.results.csv'), 'utf8'), { relaxColumnCount: true, columns: false });
    expect(results.length).toBeGreaterThan(1);
    expect(results.length).toBeLessThan(301);
    expect(results.filter((row) => row.length !== RESULT_COLUMNS.length)).toEqual([]);
    expect(results.slice(1).filter((row) => row[2] === 'created' && !/^\d+$/.test(row[3]!))).toEqual([]);
    // It stopped taking rows: far fewer contacts than rows.
    const created = emulator.contacts(TOKEN).length;
    expect(created).toBeLessThan(300);

    emulator.resetCounters(TOKEN);
    const rerun = await ws.run(['run', 'jobs.yaml', '--report-dir', 'second']);
    expect(rerun.exitCode).toBe(0);
    // Rows the state store confirmed cost no call: only the others are searched.
    expect(emulator.counters(TOKEN).byOperation.searchContacts.received).toBeLessThanOrEqual(300 - created + 32);
    expect(new Set(emulator.contacts(TOKEN).map((contact) => contact.custom_fields.customerid)).size).toBe(300);
    expect(emulator.contacts(TOKEN)).toHaveLength(300);
  }, 120_000);

  withSmallDisk('a state store disk that fills up: exit 3 STATE_WRITE_FAILED naming the state file; rows created are reported created', async () => {
    disk = smallDisk(256)!;
    const ws = workspace();
    ws.write('customers.csv', customersCsv(3000));
    ws.write('jobs.yaml', jobsYaml({ url: emulator.url, job: CUSTOMERS_JOB.replace('state: false', `state: ${join(disk.dir, 'import.db')}`) }));

    const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports']);

    const summaryFile = join(ws.dir, 'reports', 'import.summary.json');
    expect({ exitCode: run.exitCode, summary: existsSync(summaryFile), output: run.exitCode === 3 && existsSync(summaryFile) ? '' : run.stdout + run.stderr }).toEqual({ exitCode: 3, summary: true, output: '' });
    const summary = ws.summary('import');
    expect(summary.aborted).toMatchObject({ code: 'STATE_WRITE_FAILED' });
    expect((summary.aborted as { message: string }).message).toContain(join(disk.dir, 'import.db'));
    const results = ws.results('import');
    // Every contact on the platform is a row reported created (some carry the abort's code).
    const reportedCreated = new Set(results.filter((row) => row.outcome === 'created').map((row) => row.contact_id));
    expect(emulator.contacts(TOKEN).map((contact) => contact.id).filter((id) => !reportedCreated.has(id))).toEqual([]);
    expect(results.map((row) => row.error_code).filter((code) => code !== '' && code !== 'STATE_WRITE_FAILED' && code !== 'ABORTED')).toEqual([]);
  }, 120_000);

  withSmallDisk('a state store that cannot be opened on a full disk says so, and does not advise a reset (which would forget the messages sent)', () => {
    disk = smallDisk(64)!;
    writeFileSync(join(disk.dir, 'filler'), Buffer.alloc(60 * 1024));
    let message = '';
    try {
      StateStore.open(join(disk.dir, 'import.db'), { job: 'import', keyField: 'customerid' }).close();
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/cannot open the state store of job "import" \(database or disk is full\)\. The disk is full or failing: free space on it/);
    expect(message).not.toContain('state reset');
  });

  it('a report folder that cannot be made: exit 2 before any call, naming the folder and --report-dir; no run journalled', async () => {
    const ws = workspace();
    ws.write('customers.csv', customersCsv(3));
    ws.write('jobs.yaml', jobsYaml({ url: emulator.url, job: CUSTOMERS_JOB.replace('state: false', 'state: state/import.db') }));
    // A file where the folder should be: refused even to root.
    ws.write('taken', 'a file');

    const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'taken/reports']);

    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(/the report folder .*taken\/reports cannot be created or written \(ENOTDIR\); choose a folder this user can write with --report-dir; nothing was done/);
    expect(emulator.counters(TOKEN).total.received).toBe(0);
    const show = await ws.run(['state', 'show', 'jobs.yaml', '--job', 'import']);
    expect(show.stdout).toMatch(/no state yet|last run:\s+none/);
    // The refused run let go of the job's lock: the same job runs at once.
    expect(show.stdout).not.toContain('in progress');
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports'])).exitCode).toBe(0);
  });

  it('rejected.csv keeps the values as the input has them, so feeding it back writes them as they are', async () => {
    const ws = workspace();
    const tricky = ['@ann_tg', '-5 days', '=1+2', '+6591234567'];
    // Each tricky value in first_name; the email is invalid, so every row is rejected.
    ws.write('customers.csv', customersCsv(4, (i, cells) => [cells[0]!, tricky[i - 1]!, cells[2]!, 'not-an-email', ...cells.slice(4)]));
    ws.write('jobs.yaml', jobsYaml({ url: emulator.url, job: CUSTOMERS_JOB }));
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'first'])).exitCode).toBe(1);

    const rejected = ws.rejected('import', 'first');
    expect(rejected.map((row) => row.first_name)).toEqual(tricky);
    // results.csv is for people: its cells stay safe to open in a spreadsheet.
    expect(readFileSync(join(ws.dir, 'first', 'import.results.csv'), 'utf8')).not.toMatch(/^[=+\-@]/m);

    // Fix the emails in rejected.csv and feed it back as the input.
    const fixed = readFileSync(join(ws.dir, 'first', 'import.rejected.csv'), 'utf8').replace(/not-an-email/g, 'ok@example.com');
    writeFileSync(join(ws.dir, 'customers.csv'), fixed);
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'second'])).exitCode).toBe(0);
    expect(emulator.contacts(TOKEN).map((contact) => contact.custom_fields.firstName).sort()).toEqual([...tricky].sort());
  });
});
