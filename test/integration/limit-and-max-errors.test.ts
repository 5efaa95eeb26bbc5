import { CUSTOMERS_JOB, TOKEN, customersCsv, jobsYaml, workspace } from '../helpers/cli-harness.js';
import { byLine, callsByOperation, emulatorPerTest } from '../helpers/integration-fixtures.js';

/** customersCsv with an invalid email on the rows `bad` picks. */
const withBadEmails = (rows: number, bad: (index: number) => boolean) =>
  customersCsv(rows, (i, cells) => (bad(i) ? [cells[0]!, cells[1]!, cells[2]!, `bad-email-${i}`, ...cells.slice(4)] : cells));

describe('run: --limit', () => {
  const emulator = emulatorPerTest();

  it('--limit N takes the first N data rows and no more', async () => {
    const ws = workspace();
    ws.write('customers.csv', customersCsv(10));
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: CUSTOMERS_JOB }));

    const run = await ws.run(['run', 'jobs.yaml', '--limit', '4', '--report-dir', 'reports']);

    expect(run.exitCode).toBe(0);
    expect(byLine(ws.results('import')).map((r) => [r.line, r.key, r.outcome])).toEqual([
      ['2', 'C0001', 'created'],
      ['3', 'C0002', 'created'],
      ['4', 'C0003', 'created'],
      ['5', 'C0004', 'created'],
    ]);
    expect(emulator().contacts(TOKEN).map((c) => c.custom_fields.customerid).sort()).toEqual(['C0001', 'C0002', 'C0003', 'C0004']);
    expect(callsByOperation(emulator())).toMatchObject({ searchContacts: 4, createContact: 4, addTags: 4, total: 12 });
    expect(ws.summary('import').rows.total).toBe(4);
  });

  it('--limit counts failed rows too', async () => {
    const ws = workspace();
    ws.write('customers.csv', withBadEmails(10, (i) => i === 2));
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: CUSTOMERS_JOB }));

    const run = await ws.run(['run', 'jobs.yaml', '--limit', '3', '--report-dir', 'reports']);

    expect(run.exitCode).toBe(1);
    expect(ws.summary('import').rows).toMatchObject({ total: 3, created: 2, failed: 1 });
    expect(emulator().contacts(TOKEN)).toHaveLength(2);
  });

  it('--limit 0 takes no row and makes no call', async () => {
    const ws = workspace();
    ws.write('customers.csv', customersCsv(5));
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: CUSTOMERS_JOB }));

    const run = await ws.run(['run', 'jobs.yaml', '--limit', '0', '--report-dir', 'reports']);

    expect(run.exitCode).toBe(0);
    expect(ws.results('import')).toEqual([]);
    expect(callsByOperation(emulator()).total).toBe(0);
  });

  it('a negative --limit is a usage error: exit 2, no call', async () => {
    const ws = workspace();
    ws.write('customers.csv', customersCsv(5));
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: CUSTOMERS_JOB }));

    const run = await ws.run(['run', 'jobs.yaml', '--limit', '-1', '--report-dir', 'reports']);

    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain('--limit');
    expect(callsByOperation(emulator()).total).toBe(0);
  });
});

describe('run: --max-errors', () => {
  const emulator = emulatorPerTest();

  it('--max-errors N: the failure that crosses N aborts the job with exit 3; the rows taken are reported, no later row is taken', async () => {
    const ws = workspace();
    // Rows 2, 4, 6, 8... fail: the third failure is row 6.
    ws.write('customers.csv', withBadEmails(20, (i) => i % 2 === 0));
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: CUSTOMERS_JOB }));

    const run = await ws.run(['run', 'jobs.yaml', '--max-errors', '2', '--report-dir', 'reports']);

    expect(run.exitCode).toBe(3);
    const summary = ws.summary('import');
    expect(summary.aborted).toMatchObject({ code: 'MAX_ERRORS' });
    // "3 of N": N counts the rows finished when the third failure came (valid rows may still be in flight).
    expect((summary.aborted as { message: string }).message).toMatch(/^3 of the [3-6] rows finished so far failed/);
    expect((summary.aborted as { message: string }).message).toContain('--max-errors 2');
    expect(run.stdout).toContain('MAX_ERRORS');
    expect(byLine(ws.results('import')).map((r) => [r.key, r.outcome])).toEqual([
      ['C0001', 'created'],
      ['C0002', 'failed'],
      ['C0003', 'created'],
      ['C0004', 'failed'],
      ['C0005', 'created'],
      ['C0006', 'failed'],
    ]);
    expect(ws.rejected('import')).toHaveLength(3);
    expect(emulator().contacts(TOKEN).map((c) => c.custom_fields.customerid).sort()).toEqual(['C0001', 'C0003', 'C0005']);
  });

  it('--max-errors N is not crossed by exactly N failures: exit 1', async () => {
    const ws = workspace();
    ws.write('customers.csv', withBadEmails(10, (i) => i === 3 || i === 7));
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: CUSTOMERS_JOB }));

    const run = await ws.run(['run', 'jobs.yaml', '--max-errors', '2', '--report-dir', 'reports']);

    expect(run.exitCode).toBe(1);
    expect(ws.summary('import').aborted).toBeUndefined();
    expect(ws.summary('import').rows).toMatchObject({ total: 10, created: 8, failed: 2 });
  });

  it('--max-errors N%: a share crossed at the end of a short file is exit 3 with the share in the message', async () => {
    const ws = workspace();
    ws.write('customers.csv', withBadEmails(20, (i) => i % 4 === 0));
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: CUSTOMERS_JOB }));

    const run = await ws.run(['run', 'jobs.yaml', '--max-errors', '10%', '--report-dir', 'reports']);

    expect(run.exitCode).toBe(3);
    const summary = ws.summary('import');
    expect(summary.aborted).toMatchObject({ code: 'MAX_ERRORS' });
    expect((summary.aborted as { message: string }).message).toContain('5 of the 20 rows finished so far failed');
    expect((summary.aborted as { message: string }).message).toContain('10%');
    // Too few rows to judge a share mid-run: every row was taken.
    expect(summary.rows).toMatchObject({ total: 20, created: 15, failed: 5 });
  });

  it('--max-errors N% under the share: exit 1', async () => {
    const ws = workspace();
    ws.write('customers.csv', withBadEmails(20, (i) => i % 4 === 0));
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: CUSTOMERS_JOB }));

    const run = await ws.run(['run', 'jobs.yaml', '--max-errors', '30%', '--report-dir', 'reports']);

    expect(run.exitCode).toBe(1);
    expect(ws.summary('import').aborted).toBeUndefined();
  });

  it('--max-errors N%: a share crossed mid-run in a long file stops taking rows', async () => {
    const ws = workspace();
    ws.write('customers.csv', withBadEmails(400, (i) => i % 2 === 0));
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: CUSTOMERS_JOB }));

    const run = await ws.run(['run', 'jobs.yaml', '--max-errors', '5%', '--report-dir', 'reports']);

    expect(run.exitCode).toBe(3);
    const summary = ws.summary('import');
    expect(summary.aborted).toMatchObject({ code: 'MAX_ERRORS' });
    expect(summary.rows.total).toBeLessThan(400);
    expect(ws.results('import')).toHaveLength(summary.rows.total!);
    expect(emulator().contacts(TOKEN)).toHaveLength(summary.rows.created!);
  });

  it('maxErrors in jobs.yaml works like the flag, and the flag overrides it', async () => {
    const ws = workspace();
    ws.write('customers.csv', withBadEmails(10, (i) => i <= 3));
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: `${CUSTOMERS_JOB}\nmaxErrors: 1` }));

    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'from-config'])).exitCode).toBe(3);
    expect((await ws.run(['run', 'jobs.yaml', '--max-errors', '5', '--report-dir', 'from-flag'])).exitCode).toBe(1);
  });

  it('a --max-errors that is neither a count nor a share is a usage error: exit 2, no call', async () => {
    const ws = workspace();
    ws.write('customers.csv', customersCsv(3));
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: CUSTOMERS_JOB }));

    const run = await ws.run(['run', 'jobs.yaml', '--max-errors', 'lots', '--report-dir', 'reports']);

    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain('--max-errors');
    expect(callsByOperation(emulator()).total).toBe(0);
  });
});
