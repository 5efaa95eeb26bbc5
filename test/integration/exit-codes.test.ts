import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CUSTOMERS_JOB, TOKEN, customersCsv, jobsYaml, workspace } from '../helpers/cli-harness.js';
import { callsByOperation, emulatorPerTest } from '../helpers/integration-fixtures.js';

describe('run: exit codes', () => {
  const emulator = emulatorPerTest();

  it('0 when every row ended well', async () => {
    const ws = workspace();
    ws.write('customers.csv', customersCsv(5));
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: CUSTOMERS_JOB }));

    const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports']);

    expect(run.exitCode).toBe(0);
    expect(ws.summary('import').rows).toMatchObject({ total: 5, created: 5, failed: 0 });
  });

  it('1 when some rows failed (an invalid email), and the other rows are still created', async () => {
    const ws = workspace();
    ws.write('customers.csv', customersCsv(5, (i, cells) => (i === 2 ? [cells[0]!, cells[1]!, cells[2]!, 'not-an-email', ...cells.slice(4)] : cells)));
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: CUSTOMERS_JOB }));

    const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports']);

    expect(run.exitCode).toBe(1);
    expect(ws.results('import').find((r) => r.key === 'C0002')).toMatchObject({ outcome: 'failed', error_code: 'INVALID_EMAIL', line: '3' });
    expect(emulator().contacts(TOKEN)).toHaveLength(4);
  });

  describe('2 before any row is processed, with no API call', () => {
    it('for a config error (an unknown key), naming the key and its YAML path', async () => {
      const ws = workspace();
      ws.write('customers.csv', customersCsv(3));
      ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: `${CUSTOMERS_JOB}\nonDuplicat: oldest` }));

      const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports']);

      expect(run.exitCode).toBe(2);
      expect(run.stderr).toContain('onDuplicat');
      expect(run.stderr).toContain('jobs[0]');
      expect(run.stderr).toContain('onDuplicate');
      expect(callsByOperation(emulator()).total).toBe(0);
      expect(existsSync(join(ws.dir, 'reports'))).toBe(false);
    });

    it('for a mapped column missing from the header, naming the column and the closest header name', async () => {
      const ws = workspace();
      ws.write('customers.csv', customersCsv(3));
      ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: CUSTOMERS_JOB.replace('lastName: last_name', 'lastName: lastname') }));

      const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports']);

      expect(run.exitCode).toBe(2);
      expect(run.stderr).toContain('"lastname"');
      expect(run.stderr).toContain('did you mean "last_name"');
      expect(run.stderr).toContain('customers.csv');
      expect(callsByOperation(emulator()).total).toBe(0);
      expect(emulator().contacts(TOKEN)).toHaveLength(0);
    });

    it('for a missing input file, naming the file', async () => {
      const ws = workspace();
      ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: CUSTOMERS_JOB }));

      const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports']);

      expect(run.exitCode).toBe(2);
      expect(run.stderr).toContain('customers.csv');
      expect(run.stderr).toContain('does not exist');
      expect(callsByOperation(emulator()).total).toBe(0);
    });

    it('for an unknown --job, listing the jobs there are', async () => {
      const ws = workspace();
      ws.write('customers.csv', customersCsv(3));
      ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: CUSTOMERS_JOB }));

      const run = await ws.run(['run', 'jobs.yaml', '--job', 'imprt', '--report-dir', 'reports']);

      expect(run.exitCode).toBe(2);
      expect(run.stderr).toContain('"imprt"');
      expect(run.stderr).toContain('"import"');
      expect(callsByOperation(emulator()).total).toBe(0);
    });

    it('for a missing jobs file', async () => {
      const ws = workspace();

      const run = await ws.run(['run', 'nowhere.yaml', '--report-dir', 'reports']);

      expect(run.exitCode).toBe(2);
      expect(run.stderr).toContain('nowhere.yaml');
    });
  });

  it('3 for a token the platform refuses (401): the message names the connection, and the token is in no output or report', async () => {
    const ws = workspace();
    const wrongToken = 'wrong-token-0b7e41d9';
    ws.write('customers.csv', customersCsv(20));
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: CUSTOMERS_JOB }));

    const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports'], { env: { CHANNEL_TOKEN: wrongToken } });

    expect(run.exitCode).toBe(3);
    const summary = ws.summary('import');
    expect(summary.aborted).toMatchObject({ code: 'INVALID_TOKEN' });
    expect((summary.aborted as { message: string }).message).toContain('"main"');
    expect(`${run.stdout}${run.stderr}`).toContain('connection "main"');
    // The job stopped taking rows: fewer rows than the file were taken, and every one is reported.
    expect(summary.rows.total).toBeLessThan(20);
    expect(ws.results('import')).toHaveLength(summary.rows.total!);
    expect(emulator().contacts(TOKEN)).toHaveLength(0);
    expect(run.stdout).not.toContain(wrongToken);
    expect(run.stderr).not.toContain(wrongToken);
    for (const file of readdirSync(join(ws.dir, 'reports'))) {
      expect(readFileSync(join(ws.dir, 'reports', file), 'utf8')).not.toContain(wrongToken);
    }
  });

  it('3 for a refused token: once the platform answered 401, no other call is made', async () => {
    const ws = workspace();
    ws.write('customers.csv', customersCsv(20));
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: `${CUSTOMERS_JOB}\nconcurrency: 1` }));

    const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports'], { env: { CHANNEL_TOKEN: 'wrong-token-0b7e41d9' } });

    expect(run.exitCode).toBe(3);
    // The emulator counts no call of an unknown token: the client's own count is in the summary.
    expect(ws.summary('import').apiCalls.total).toBe(1);
  });
});
