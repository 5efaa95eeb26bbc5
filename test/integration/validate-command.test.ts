import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { CUSTOMERS_JOB, customersCsv, jobsYaml, workspace } from '../helpers/cli-harness.js';
import { callsByOperation, csvLines, emulatorPerTest } from '../helpers/integration-fixtures.js';

describe('validate', () => {
  const emulator = emulatorPerTest();

  it('prints every invalid row as file:line with its code, exits 1, and makes no API call', async () => {
    const ws = workspace();
    ws.write(
      'customers.csv',
      csvLines([
        'customer_id,first_name,last_name,email,plan,segments',
        'C1,Ann,Lee,ann@example.com,basic,a', // 2
        'C2,Bob,Ray,not-an-email,basic,a', // 3
        ',Cid,Poe,cid@example.com,basic,a', // 4
        'C4,"Dee', // 5: the quote runs over the next line
        'Lou",Fox,dee@example.com,basic,a', // 6
        'C5,Eve,Kim,eve@example.com', // 7: 4 values
        'C1,Ann,Lee,ann@example.com,pro,a', // 8: repeats C1
      ]),
    );
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: CUSTOMERS_JOB }));

    const run = await ws.run(['validate', 'jobs.yaml']);

    expect(run.exitCode).toBe(1);
    expect(callsByOperation(emulator()).total).toBe(0);
    const problems = run.stdout.split('\n').filter((line) => /customers\.csv:\d+: /.test(line));
    expect(problems.map((line) => /customers\.csv:(\d+): ([A-Z_]+)/.exec(line)?.slice(1))).toEqual([
      ['3', 'INVALID_EMAIL'],
      ['4', 'KEY_MISSING'],
      ['7', 'CSV_COLUMN_COUNT'],
    ]);
    expect(run.stdout).toContain('import: 6 rows, 3 valid, 3 invalid');
    expect(run.stdout).toContain('1 rows repeat a key');
    // Each repeated key with every line it is on, the first included.
    expect(run.stdout).toMatch(/customers\.csv: key "C1" is on lines 2, 8: line 8 is applied, the 1 other row is skipped \(onDuplicateRows: last\)\n/);
    // validate writes no reports.
    expect(existsSync(join(ws.dir, 'reports'))).toBe(false);
  });

  it('exits 0 with a count of the rows when every row is valid, and makes no API call', async () => {
    const ws = workspace();
    ws.write('customers.csv', customersCsv(25));
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: CUSTOMERS_JOB }));

    const run = await ws.run(['validate', 'jobs.yaml']);

    expect(run.exitCode).toBe(0);
    expect(run.stdout).toContain('import: 25 rows, 25 valid, 0 invalid');
    expect(callsByOperation(emulator()).total).toBe(0);
  });

  it('exits 2 on a config error, naming it', async () => {
    const ws = workspace();
    ws.write('customers.csv', customersCsv(3));
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: `${CUSTOMERS_JOB}\nmode: upsrt` }));

    const run = await ws.run(['validate', 'jobs.yaml']);

    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain('mode');
    expect(run.stderr).toContain('upsrt');
    expect(callsByOperation(emulator()).total).toBe(0);
  });

  it('exits 2 when a mapped column is missing from the header', async () => {
    const ws = workspace();
    ws.write('customers.csv', customersCsv(3));
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: CUSTOMERS_JOB.replace('email: { column: email', 'email: { column: e_mail') }));

    const run = await ws.run(['validate', 'jobs.yaml']);

    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain('"e_mail"');
    expect(run.stderr).toContain('did you mean "email"');
  });

  it('exits 2 when the input file is missing', async () => {
    const ws = workspace();
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: CUSTOMERS_JOB }));

    const run = await ws.run(['validate', 'jobs.yaml']);

    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain('customers.csv');
  });

  it('checks only the jobs named by --job', async () => {
    const ws = workspace();
    ws.write('customers.csv', customersCsv(4, (i, cells) => (i === 2 ? [cells[0]!, cells[1]!, cells[2]!, 'bad', ...cells.slice(4)] : cells)));
    ws.write('good.csv', customersCsv(2));
    ws.write(
      'jobs.yaml',
      `${jobsYaml({ url: emulator().url, job: CUSTOMERS_JOB })}  - name: good\n    connection: main\n${CUSTOMERS_JOB.replace('customers.csv', 'good.csv').replace(/^/gm, '    ')}\n`,
    );

    expect((await ws.run(['validate', 'jobs.yaml'])).exitCode).toBe(1);
    const onlyGood = await ws.run(['validate', 'jobs.yaml', '--job', 'good']);
    expect(onlyGood.exitCode).toBe(0);
    expect(onlyGood.stdout).toContain('good: 2 rows, 2 valid, 0 invalid');
    expect(onlyGood.stdout).not.toContain('import:');
  });
});
