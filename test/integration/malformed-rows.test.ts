import { splitLine } from '../../src/pipeline/source/line-split.js';
import { TOKEN, jobsYaml, workspace } from '../helpers/cli-harness.js';
import { byLine, callsByOperation, csvLines, emulatorPerTest, reportText } from '../helpers/integration-fixtures.js';

const JOB = `input: customers.csv
key: { column: customer_id, field: customerid }
fields:
  firstName: first_name
  email: { column: email, transform: [email] }
state: false`;

describe('run: rows the CSV gets wrong', () => {
  const emulator = emulatorPerTest();

  it('an unclosed quote, a short row and a long row fail with their lines and codes; every other row is created', async () => {
    const ws = workspace();
    ws.write(
      'customers.csv',
      csvLines([
        'customer_id,first_name,email', // 1
        'C1,Ann,ann@example.com', // 2
        'C2,"Bob,bob@example.com', // 3: the quote is never closed on its line
        'C3,Cid,cid@example.com', // 4
        'C4,"Dee, Jr",dee@example.com', // 5: its quote is the one the line 3 quote would run to
        'C5,Eve', // 6: 2 values
        'C6,Fay,fay@example.com,extra', // 7: 4 values
        'C7,Gus,gus@example.com', // 8
      ]),
    );
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: JOB }));

    const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports']);

    expect(run.exitCode).toBe(1);
    const results = byLine(ws.results('import'));
    expect(results.map((r) => [r.line, r.outcome, r.error_code])).toEqual([
      ['2', 'created', ''],
      ['3', 'failed', 'CSV_UNCLOSED_QUOTE'],
      ['4', 'created', ''],
      ['5', 'created', ''],
      ['6', 'failed', 'CSV_COLUMN_COUNT'],
      ['7', 'failed', 'CSV_COLUMN_COUNT'],
      ['8', 'created', ''],
    ]);
    for (const row of results.filter((r) => r.outcome === 'failed')) {
      expect(row.error_message).toContain(`line ${row.line}`);
      expect(row.api_calls).toBe('0');
    }
    const stored = new Map(emulator().contacts(TOKEN).map((c) => [c.custom_fields.customerid, c.custom_fields.firstName]));
    expect(stored).toEqual(new Map([['C1', 'Ann'], ['C3', 'Cid'], ['C4', 'Dee, Jr'], ['C7', 'Gus']]));
    // Failed rows cost no call; each created row: search, create.
    expect(callsByOperation(emulator())).toMatchObject({ searchContacts: 4, createContact: 4, total: 8 });

    // The long row keeps its extra cell after the error columns (issue 34): read the lines as lists.
    // The unclosed quote's row keeps that quote open (issue 41), so each line is split on its own.
    const records = reportText(ws, 'import', 'rejected.csv')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => splitLine(line, ',').cells);
    const [header, ...lines] = records;
    const rejected = lines.map((cells) => Object.fromEntries(header!.map((name, index) => [name, cells[index] ?? ''])));
    expect(rejected.map((r) => [r.customer_id, r.error_code])).toEqual(
      expect.arrayContaining([
        ['C2', 'CSV_UNCLOSED_QUOTE'],
        ['C5', 'CSV_COLUMN_COUNT'],
        ['C6', 'CSV_COLUMN_COUNT'],
      ]),
    );
    expect(rejected).toHaveLength(3);
    expect(Object.keys(rejected[0]!)).toEqual(['customer_id', 'first_name', 'email', 'error_code', 'error_message']);
    // The short row is padded under the header; the long row's extra cell follows the error
    // columns (so fed back unfixed it fails again) and is quoted in the message.
    expect(rejected.find((r) => r.customer_id === 'C5')).toMatchObject({ first_name: 'Eve', email: '' });
    expect(rejected.find((r) => r.customer_id === 'C6')).toMatchObject({ first_name: 'Fay', email: 'fay@example.com' });
    expect(rejected.find((r) => r.customer_id === 'C6')?.error_message).toContain('extra');
    expect(lines.find((cells) => cells[0] === 'C6')?.slice(3)).toEqual(['CSV_COLUMN_COUNT', expect.stringContaining('line 7'), 'extra']);
    expect(ws.summary('import').rows).toEqual({ total: 7, created: 4, updated: 0, unchanged: 0, skipped: 0, failed: 3, notReached: 0 });
  });

  it('a quote left open at the end of the file fails only its own row', async () => {
    const ws = workspace();
    ws.write('customers.csv', csvLines(['customer_id,first_name,email', 'C1,Ann,ann@example.com', 'C2,Bob,bob@example.com', 'C3,"Cid,cid@example.com']));
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: JOB }));

    const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports']);

    expect(run.exitCode).toBe(1);
    expect(byLine(ws.results('import')).map((r) => [r.line, r.outcome, r.error_code])).toEqual([
      ['2', 'created', ''],
      ['3', 'created', ''],
      ['4', 'failed', 'CSV_UNCLOSED_QUOTE'],
    ]);
    expect(emulator().contacts(TOKEN)).toHaveLength(2);
  });

  it('rows without a key fail with KEY_MISSING and cost no call', async () => {
    const ws = workspace();
    ws.write('customers.csv', csvLines(['customer_id,first_name,email', 'C1,Ann,ann@example.com', ' ,Nobody,nobody@example.com', 'C3,Cid,cid@example.com']));
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: JOB }));

    const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports']);

    expect(run.exitCode).toBe(1);
    expect(byLine(ws.results('import')).map((r) => [r.line, r.outcome, r.error_code])).toEqual([
      ['2', 'created', ''],
      ['3', 'failed', 'KEY_MISSING'],
      ['4', 'created', ''],
    ]);
    expect(ws.rejected('import')).toEqual([expect.objectContaining({ first_name: 'Nobody', error_code: 'KEY_MISSING' })]);
    expect(callsByOperation(emulator()).total).toBe(4);
  });
});
