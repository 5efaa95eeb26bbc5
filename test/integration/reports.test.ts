import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { CUSTOMERS_JOB, TOKEN, customersCsv, jobsYaml, workspace } from '../helpers/cli-harness.js';
import { byLine, contactWithKey, csvLines, emulatorPerTest, reportText } from '../helpers/integration-fixtures.js';

const RESULT_COLUMNS = ['line', 'key', 'outcome', 'contact_id', 'fields_changed', 'tags_added', 'tags_removed', 'api_calls', 'error_code', 'error_message'];

describe('run: report files', () => {
  const emulator = emulatorPerTest();

  it('results.csv starts with exactly the contract columns, in order, and has one row per data row', async () => {
    const ws = workspace();
    ws.write('customers.csv', customersCsv(3, (i, cells) => (i === 3 ? [cells[0]!, cells[1]!, cells[2]!, 'bad', ...cells.slice(4)] : cells)));
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: CUSTOMERS_JOB }));

    await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports']);

    // The report contract (docs/reports.md): "at least the columns ..."; columns a later feature adds come after them.
    const header = reportText(ws, 'import', 'results.csv').split('\n')[0]!.split(',');
    expect(header.slice(0, RESULT_COLUMNS.length)).toEqual(RESULT_COLUMNS);
    expect(ws.results('import')).toHaveLength(3);
    const created = byLine(ws.results('import'))[0]!;
    expect(created).toMatchObject({
      line: '2',
      key: 'C0001',
      outcome: 'created',
      contact_id: contactWithKey(emulator(), 'C0001').id,
      fields_changed: 'customerid;firstName;lastName;email;plan',
      tags_added: 'newsletter;crm',
      tags_removed: '',
      api_calls: '3',
      error_code: '',
      error_message: '',
    });
  });

  it('summary.json holds the contract keys and matches the results', async () => {
    const ws = workspace();
    ws.write('customers.csv', customersCsv(4, (i, cells) => (i === 3 ? [cells[0]!, cells[1]!, cells[2]!, 'bad', ...cells.slice(4)] : cells)));
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: CUSTOMERS_JOB }));

    await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports']);

    const summary = ws.summary('import');
    for (const key of ['job', 'dryRun', 'startedAt', 'finishedAt', 'durationMs', 'rows', 'apiCalls', 'retries', 'rateLimited']) expect(summary).toHaveProperty(key);
    expect(summary).toMatchObject({ job: 'import', dryRun: false, retries: 0, rateLimited: 0 });
    expect(summary.rows).toEqual({ total: 4, created: 3, updated: 0, unchanged: 0, skipped: 0, failed: 1, notReached: 0 });
    expect(summary.apiCalls.total).toBe(9);
    expect(summary.apiCalls.total).toBe(emulator().counters(TOKEN).total.received);
    expect(summary.apiCalls.total).toBe(ws.results('import').reduce((sum, r) => sum + Number(r.api_calls), 0));
    expect(Date.parse(String(summary.finishedAt))).toBeGreaterThanOrEqual(Date.parse(String(summary.startedAt)));
  });

  it('a value starting with = is written with a leading quote in results.csv, kept as it is in rejected.csv (fed back as input), and stored as it is', async () => {
    const ws = workspace();
    ws.write(
      'customers.csv',
      csvLines([
        'customer_id,first_name,last_name,email,plan,segments',
        '=K1,"=HYPERLINK(""http://evil"")",Lee,ann@example.com,basic,a',
        '=K2,@SUM(A1),Ray,=bad,basic,a',
        '-5,Plain,Number,num@example.com,basic,a',
      ]),
    );
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: CUSTOMERS_JOB }));

    const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports']);

    expect(run.exitCode).toBe(1);
    // The platform gets the real values.
    expect(contactWithKey(emulator(), '=K1').custom_fields.firstName).toBe('=HYPERLINK("http://evil")');
    const results = byLine(ws.results('import'));
    expect(results.map((r) => [r.key, r.outcome])).toEqual([
      ["'=K1", 'created'],
      ["'=K2", 'failed'],
      ['-5', 'created'],
    ]);
    const [rejected] = ws.rejected('import');
    expect(rejected).toMatchObject({ customer_id: '=K2', first_name: '@SUM(A1)', email: '=bad', error_code: 'INVALID_EMAIL' });
    expect(reportText(ws, 'import', 'results.csv')).not.toMatch(/(^|,|")[=@][A-Z]/m);
  });

  it('rejected.csv has the input header plus error_code and error_message, and once fixed it runs as input', async () => {
    const ws = workspace();
    ws.write('customers.csv', customersCsv(5, (i, cells) => (i === 2 || i === 4 ? [cells[0]!, `"Name, ${i}"`, cells[2]!, `broken-${i}`, ...cells.slice(4)] : cells)));
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: CUSTOMERS_JOB }));
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports'])).exitCode).toBe(1);

    const rejectedText = reportText(ws, 'import', 'rejected.csv');
    expect(rejectedText.split('\n')[0]).toBe('customer_id,first_name,last_name,email,plan,segments,error_code,error_message');
    expect(ws.rejected('import').map((r) => [r.customer_id, r.first_name, r.email, r.error_code])).toEqual([
      ['C0002', 'Name, 2', 'broken-2', 'INVALID_EMAIL'],
      ['C0004', 'Name, 4', 'broken-4', 'INVALID_EMAIL'],
    ]);

    ws.write('fixed.csv', rejectedText.replace(/broken-(\d)/g, 'fixed$1@example.com'));
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: CUSTOMERS_JOB.replace('customers.csv', 'fixed.csv') }));
    const rerun = await ws.run(['run', 'jobs.yaml', '--report-dir', 'fixed']);

    expect(rerun.exitCode).toBe(0);
    expect(ws.results('import', 'fixed').map((r) => [r.key, r.outcome])).toEqual([
      ['C0002', 'created'],
      ['C0004', 'created'],
    ]);
    expect(contactWithKey(emulator(), 'C0002').custom_fields).toMatchObject({ firstName: 'Name, 2', email: 'fixed2@example.com' });
    expect(emulator().contacts(TOKEN)).toHaveLength(5);
  });

  it('report files are readable by their owner only (mode 0600)', async () => {
    const ws = workspace();
    ws.write('customers.csv', customersCsv(2));
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: CUSTOMERS_JOB }));

    await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports']);

    const files = readdirSync(join(ws.dir, 'reports')).sort();
    expect(files).toEqual(['import.changes.csv', 'import.rejected.csv', 'import.report.html', 'import.results.csv', 'import.summary.json']);
    expect(files.map((file) => [file, (statSync(join(ws.dir, 'reports', file)).mode & 0o777).toString(8)])).toEqual(files.map((file) => [file, '600']));
  });

  it('without --report-dir the reports go to a new folder under reports/', async () => {
    const ws = workspace();
    ws.write('customers.csv', customersCsv(2));
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: CUSTOMERS_JOB }));

    const run = await ws.run(['run', 'jobs.yaml']);

    expect(run.exitCode).toBe(0);
    const folders = readdirSync(join(ws.dir, 'reports'));
    expect(folders).toHaveLength(1);
    expect(ws.results('import', join('reports', folders[0]!))).toHaveLength(2);
    expect(run.stdout).toContain(join(ws.dir, 'reports', folders[0]!, 'import.results.csv'));
  });
});
