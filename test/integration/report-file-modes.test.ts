/**
 * The report files and `validate --problems` in a folder another account can write (issue 33):
 * owner-only whatever was there before, and nothing written through a link planted at the names
 * the writers use.
 */
import { chmodSync, mkdirSync, readFileSync, statSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { CUSTOMERS_JOB, TOKEN, customersCsv, jobsYaml, workspace } from '../helpers/cli-harness.js';
import { emulatorPerTest } from '../helpers/integration-fixtures.js';

describe('report files cannot be turned against the run', () => {
  const emulator = emulatorPerTest();

  it('a results.csv left 0644 by hand becomes 0600, and links at the old temporary names write nothing', async () => {
    const ws = workspace();
    ws.write('customers.csv', customersCsv(3));
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: CUSTOMERS_JOB }));
    const victim = ws.write('victim.txt', 'do not touch\n');
    // The folder exists, as a shared one would, with the names an earlier version wrote through.
    const reports = join(ws.dir, 'reports');
    mkdirSync(reports);
    ws.write('reports/import.results.csv', 'an earlier run\n');
    chmodSync(join(reports, 'import.results.csv'), 0o644);
    for (const name of ['import.summary.json.tmp', 'import.report.html.tmp']) symlinkSync(victim, join(reports, name));

    const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports']);

    expect(run.exitCode).toBe(0);
    expect(ws.summary('import').rows).toMatchObject({ total: 3, created: 3 });
    for (const name of ['import.results.csv', 'import.rejected.csv', 'import.summary.json', 'import.report.html']) {
      expect([name, statSync(join(reports, name)).mode & 0o777]).toEqual([name, 0o600]);
    }
    expect(readFileSync(victim, 'utf8')).toBe('do not touch\n');
  });

  it('a results.csv that is a link is refused (the job stops before any call), and its target is left as it was', async () => {
    const ws = workspace();
    ws.write('customers.csv', customersCsv(3));
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: CUSTOMERS_JOB }));
    const victim = ws.write('victim.txt', 'do not touch\n');
    mkdirSync(join(ws.dir, 'reports'));
    symlinkSync(victim, join(ws.dir, 'reports', 'import.results.csv'));

    const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports']);

    expect(run.exitCode).toBe(3);
    expect(run.stderr).toContain(`the report ${join(ws.dir, 'reports', 'import.results.csv')} could not be written (a symbolic link is at that name, not a file: remove it)`);
    // The fix is the link's, not a full disk's (issue 42).
    expect(run.stderr).toContain('remove what is at that name (a report is never written through a link or into a folder), or choose another folder with --report-dir, then run again');
    expect(run.stderr).not.toContain('free space');
    expect(readFileSync(victim, 'utf8')).toBe('do not touch\n');
    expect(emulator().contacts(TOKEN)).toEqual([]);
  });

  it('the metrics textfile is written 0644 through no link planted at its old temporary name (`.<name>.<pid>.tmp`)', async () => {
    const ws = workspace();
    ws.write('customers.csv', customersCsv(3));
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: CUSTOMERS_JOB }));
    const victim = ws.write('victim.txt', 'do not touch\n');
    mkdirSync(join(ws.dir, 'textfile'));
    // The CLI runs in this process here: its pid is the one an earlier version named the file by.
    symlinkSync(victim, join(ws.dir, 'textfile', `.contact_sync.prom.${process.pid}.tmp`));

    const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports', '--metrics-file', 'textfile/contact_sync.prom']);

    expect(run.exitCode).toBe(0);
    expect(readFileSync(victim, 'utf8')).toBe('do not touch\n');
    expect(readFileSync(join(ws.dir, 'textfile', 'contact_sync.prom'), 'utf8')).toContain('contact_sync_last_exit_code{sync_job="import"} 0');
    expect(statSync(join(ws.dir, 'textfile', 'contact_sync.prom')).mode & 0o777).toBe(0o644);
  });

  it('validate --problems writes an owner-only file, and refuses a link in its place (exit 2)', async () => {
    const ws = workspace();
    ws.write('customers.csv', customersCsv(3, (i, cells) => (i === 2 ? [...cells.slice(0, 3), 'not-an-email', ...cells.slice(4)] : cells)));
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: CUSTOMERS_JOB }));
    const old = ws.write('problems.csv', 'old\n');
    chmodSync(old, 0o644);
    const victim = ws.write('victim.txt', 'do not touch\n');
    symlinkSync(victim, join(ws.dir, 'linked.csv'));

    const checked = await ws.run(['validate', 'jobs.yaml', '--problems', 'problems.csv']);
    const refused = await ws.run(['validate', 'jobs.yaml', '--problems', 'linked.csv']);

    expect(checked.exitCode).toBe(1);
    expect(readFileSync(old, 'utf8')).toContain('INVALID_EMAIL');
    expect(statSync(old).mode & 0o777).toBe(0o600);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain(`--problems: ${join(ws.dir, 'linked.csv')} is a symbolic link, not a file; name a new or regular file`);
    expect(readFileSync(victim, 'utf8')).toBe('do not touch\n');
  });
});
