import { CUSTOMERS_JOB, TOKEN, customersCsv, jobsYaml, workspace, type Workspace } from '../helpers/cli-harness.js';
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

  /**
   * A platform that fails the rows `bad` picks: the other rows are imported first, then every
   * create is refused (a 403, FORBIDDEN: a cause outside the row's data), so the rows `bad` picks
   * fail there and the others are found unchanged (one search each).
   */
  async function platformFailing(ws: Workspace, rows: number, bad: (index: number) => boolean, job = CUSTOMERS_JOB): Promise<void> {
    ws.write('customers.csv', customersCsv(rows, (i, cells) => (bad(i) ? ['SKIP', ...cells.slice(1)] : cells)).replace(/^SKIP,.*\n/gm, ''));
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job }));
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'before'])).exitCode).toBe(0);
    ws.write('customers.csv', customersCsv(rows));
    emulator().setFaults({ echoTokenEscaped: 1, operations: ['createContact'] });
  }

  it('--max-errors N: the platform failure that crosses N aborts the job with exit 3; the rows taken are reported, no later row is sent', async () => {
    const ws = workspace();
    // Rows 2, 4, 6, 8... fail on the platform: the third failure is row 6.
    await platformFailing(ws, 20, (i) => i % 2 === 0, `${CUSTOMERS_JOB}\nconcurrency: 1`);

    const run = await ws.run(['run', 'jobs.yaml', '--max-errors', '2', '--report-dir', 'reports']);

    expect(run.exitCode).toBe(3);
    const summary = ws.summary('import');
    expect(summary.aborted).toMatchObject({ code: 'MAX_ERRORS' });
    expect((summary.aborted as { message: string }).message).toMatch(/^3 of the 6 rows sent to the platform so far failed there, over --max-errors 2 \(rows refused for their own data do not count\)/);
    expect(run.stdout).toContain('MAX_ERRORS');
    const results = byLine(ws.results('import'));
    expect(results.slice(0, 6).map((r) => [r.key, r.outcome, r.error_code])).toEqual([
      ['C0001', 'unchanged', ''],
      ['C0002', 'failed', 'FORBIDDEN'],
      ['C0003', 'unchanged', ''],
      ['C0004', 'failed', 'FORBIDDEN'],
      ['C0005', 'unchanged', ''],
      ['C0006', 'failed', 'FORBIDDEN'],
    ]);
    // The row the queue had started finishes; the one waiting is not sent; no later row is taken.
    expect(results.slice(6).map((r) => [r.key, r.outcome, r.error_code, r.api_calls])).toEqual([
      ['C0007', 'unchanged', '', '1'],
      ['C0008', 'failed', 'ABORTED', '0'],
    ]);
    // Nothing to fix in those rows: rejected.csv has none of them.
    expect(ws.rejected('import')).toEqual([]);
  });

  it('--max-errors N is not crossed by exactly N platform failures: exit 1', async () => {
    const ws = workspace();
    await platformFailing(ws, 10, (i) => i === 3 || i === 7);

    const run = await ws.run(['run', 'jobs.yaml', '--max-errors', '2', '--report-dir', 'reports']);

    expect(run.exitCode).toBe(1);
    expect(ws.summary('import').aborted).toBeUndefined();
    expect(ws.summary('import').rows).toMatchObject({ total: 10, unchanged: 8, failed: 2 });
  });

  it('rows that fail for their own data do not count: a file 8% bad in its first 100 rows (4% in all) runs to its end under 5%', async () => {
    const ws = workspace();
    ws.write('customers.csv', withBadEmails(200, (i) => i % 12 === 0 && i <= 100));
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: CUSTOMERS_JOB }));

    const run = await ws.run(['run', 'jobs.yaml', '--max-errors', '5%', '--report-dir', 'reports']);

    expect(run.exitCode).toBe(1);
    expect(ws.summary('import').aborted).toBeUndefined();
    expect(ws.summary('import').rows).toMatchObject({ total: 200, created: 192, failed: 8, notReached: 0 });
    const dry = await ws.run(['run', 'jobs.yaml', '--max-errors', '1', '--dry-run', '--report-dir', 'dry']);
    expect(dry.exitCode).toBe(1);
    expect(ws.summary('import', 'dry').aborted).toBeUndefined();
  });

  it('--max-errors N%: a share crossed at the end of a short file is exit 3 with the share in the message', async () => {
    const ws = workspace();
    await platformFailing(ws, 20, (i) => i % 4 === 0);

    const run = await ws.run(['run', 'jobs.yaml', '--max-errors', '10%', '--report-dir', 'reports']);

    expect(run.exitCode).toBe(3);
    const summary = ws.summary('import');
    expect(summary.aborted).toMatchObject({ code: 'MAX_ERRORS' });
    expect((summary.aborted as { message: string }).message).toContain('5 of the 20 rows sent to the platform so far failed there');
    expect((summary.aborted as { message: string }).message).toContain('10%');
    // Too few rows to judge a share mid-run: every row was taken.
    expect(summary.rows).toMatchObject({ total: 20, unchanged: 15, failed: 5 });
  });

  it('--max-errors N%: crossed at the end of the rows --limit took, the rows beyond are said to be the limit\'s', async () => {
    const ws = workspace();
    await platformFailing(ws, 60, (i) => i % 4 === 0);

    const run = await ws.run(['run', 'jobs.yaml', '--max-errors', '10%', '--limit', '20', '--report-dir', 'reports']);

    expect(run.exitCode).toBe(3);
    expect(ws.summary('import').rows).toMatchObject({ total: 20, failed: 5, notReached: 40 });
    expect(run.stdout.trim().split('\n').at(-1)).toBe(
      'Took the 20 rows asked for (--limit; 40 rows of the input beyond it not reached); 5 rows failed for a cause outside their data (the job stopped, or the platform refused or failed): ' +
        'nothing in the rows to fix; results.csv gives the error_code of each, and the same command run again takes them once that is fixed; ended MAX_ERRORS: fix the cause above, then run again.',
    );
  });

  it('--max-errors N% under the share: exit 1', async () => {
    const ws = workspace();
    await platformFailing(ws, 20, (i) => i % 4 === 0);

    const run = await ws.run(['run', 'jobs.yaml', '--max-errors', '30%', '--report-dir', 'reports']);

    expect(run.exitCode).toBe(1);
    expect(ws.summary('import').aborted).toBeUndefined();
  });

  it('--max-errors N%: a share crossed mid-run in a long file stops taking rows', async () => {
    const ws = workspace();
    await platformFailing(ws, 400, (i) => i % 2 === 0);

    const run = await ws.run(['run', 'jobs.yaml', '--max-errors', '5%', '--report-dir', 'reports']);

    expect(run.exitCode).toBe(3);
    const summary = ws.summary('import');
    expect(summary.aborted).toMatchObject({ code: 'MAX_ERRORS' });
    expect(summary.rows.total).toBeLessThan(400);
    expect(summary.rows.notReached).toBe(400 - summary.rows.total!);
    expect(ws.results('import')).toHaveLength(summary.rows.total!);
  });

  it('maxErrors in jobs.yaml works like the flag, and the flag overrides it', async () => {
    const ws = workspace();
    await platformFailing(ws, 10, (i) => i <= 3, `${CUSTOMERS_JOB}\nmaxErrors: 1`);

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
