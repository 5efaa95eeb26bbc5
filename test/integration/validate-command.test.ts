import { existsSync, readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
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
    expect(run.stdout).toContain('1 row repeats a key');
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

  it('on a v2 connection, flags each row v2 cannot create with the run\'s V2_CANNOT_CREATE, file and line; mode update flags none', async () => {
    const ws = workspace();
    ws.write(
      'customers.csv',
      csvLines([
        'customer_id,first_name,last_name,email,plan,segments',
        'C1,Ann,Lee,ann@example.com,basic,a', // 2
        'C2,Bob,Ray,,basic,a', // 3: neither an email nor a phone
        'C3,,Poe,cid@example.com,basic,a', // 4: no firstName
        'C4,,Fox,,basic,a', // 5: neither
      ]),
    );
    const v2 = (job: string): string => jobsYaml({ url: emulator().v2Url, job, connectionExtra: '    api: v2' });
    ws.write('jobs.yaml', v2(CUSTOMERS_JOB));

    const run = await ws.run(['validate', 'jobs.yaml', '--problems', 'problems.csv']);

    expect(run.exitCode).toBe(1);
    expect(callsByOperation(emulator()).total).toBe(0);
    expect(emulator().v2Counters().total.received).toBe(0);
    const problems = run.stdout.split('\n').filter((line) => /customers\.csv:\d+: /.test(line));
    expect(problems).toEqual([
      expect.stringMatching(/customers\.csv:3: V2_CANNOT_CREATE: createContact: API v2 cannot create this contact: it has neither an email nor a phone; .* \(a run fails this row when no contact holds its key yet\)$/),
      expect.stringMatching(/customers\.csv:4: V2_CANNOT_CREATE: createContact: API v2 cannot create this contact: it has no firstName; /),
      expect.stringMatching(/customers\.csv:5: V2_CANNOT_CREATE: createContact: API v2 cannot create this contact: it has neither an email nor a phone and no firstName; /),
    ]);
    expect(run.stdout).toContain('import: 4 rows, 1 valid, 3 invalid');
    const listed = parse<Record<string, string>>(readFileSync(join(ws.dir, 'problems.csv'), 'utf8'), { columns: true });
    expect(listed.map((row) => [row.line, row.key, row.error_code])).toEqual([
      ['3', 'C2', 'V2_CANNOT_CREATE'],
      ['4', 'C3', 'V2_CANNOT_CREATE'],
      ['5', 'C4', 'V2_CANNOT_CREATE'],
    ]);

    // mode update never creates: nothing to flag. The same file on v1 creates them all.
    ws.write('jobs.yaml', v2(`${CUSTOMERS_JOB}\nmode: update`));
    expect((await ws.run(['validate', 'jobs.yaml'])).stdout).toContain('import: 4 rows, 4 valid, 0 invalid');
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: CUSTOMERS_JOB }));
    expect((await ws.run(['validate', 'jobs.yaml'])).exitCode).toBe(0);
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

  it('shows 50 problems and says how to get them all; --problems FILE holds every one, repeated keys under fail included', async () => {
    const ws = workspace();
    // Rows 1..60 with a bad email (lines 2..61), then C0061 twice (lines 62, 63).
    const csv = customersCsv(61, (_i, cells) => (Number(cells[0]!.slice(1)) <= 60 ? [...cells.slice(0, 3), 'bad', ...cells.slice(4)] : cells));
    ws.write('customers.csv', `${csv}${csv.trimEnd().split('\n').at(-1)!}\n`);
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: `${CUSTOMERS_JOB}\nonDuplicateRows: fail` }));

    const shown = await ws.run(['validate', 'jobs.yaml']);
    expect(shown.exitCode).toBe(1);
    expect(shown.stdout.split('\n').filter((line) => /customers\.csv:\d+: /.test(line))).toHaveLength(50);
    expect(shown.stdout).toContain('... and 10 more rows with problems (every one of them: --problems FILE)');

    const all = await ws.run(['validate', 'jobs.yaml', '--problems', 'problems.csv']);
    expect(all.exitCode).toBe(1);
    expect(all.stdout).toContain(`every problem, one row each: ${join(ws.dir, 'problems.csv')} (62 rows)`);
    const rows = parse<Record<string, string>>(readFileSync(join(ws.dir, 'problems.csv'), 'utf8'), { columns: true });
    // `key` came last (issue 34): the first five columns keep their places.
    expect(Object.keys(rows[0]!)).toEqual(['job', 'input', 'line', 'error_code', 'error_message', 'key']);
    expect(rows.slice(0, 2).map((row) => [row.line, row.key])).toEqual([
      ['2', 'C0001'],
      ['3', 'C0002'],
    ]);
    expect(rows.filter((row) => row.error_code === 'DUPLICATE_ROWS').map((row) => row.key)).toEqual(['C0061', 'C0061']);
    expect(rows.filter((row) => row.error_code === 'INVALID_EMAIL').map((row) => Number(row.line))).toEqual(Array.from({ length: 60 }, (_unused, index) => index + 2));
    expect(rows.filter((row) => row.error_code === 'DUPLICATE_ROWS').map((row) => row.line)).toEqual(['62', '63']);
    expect(rows.every((row) => row.job === 'import' && (row.input ?? '').endsWith('customers.csv'))).toBe(true);
    expect(all.stdout).toContain('import: 62 rows, 0 valid, 62 invalid');
  });

  it('--problems into a folder that does not exist is exit 2 before any row is read', async () => {
    const ws = workspace();
    ws.write('customers.csv', customersCsv(2));
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: CUSTOMERS_JOB }));
    const run = await ws.run(['validate', 'jobs.yaml', '--problems', 'missing/problems.csv']);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain(`--problems: ${join(ws.dir, 'missing', 'problems.csv')} cannot be written (ENOENT); name a file in a folder that exists and can be written; nothing was checked`);
    expect(run.stdout).not.toContain('import:');
  });
});
