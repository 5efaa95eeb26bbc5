/**
 * Issue 41, item 4: a row whose quote is never closed keeps that quote in rejected.csv, as it was
 * written, after the error columns: fed back unfixed it fails CSV_UNCLOSED_QUOTE again, generation
 * after generation, instead of landing with its first name holding the rest of the line; the rows
 * after it are read as before; fixed, it lands right.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { jobsYaml, workspace } from '../helpers/cli-harness.js';
import { byLine, contactWithKey, contactsWithKey, csvLines, emulatorPerTest } from '../helpers/integration-fixtures.js';

const emulator = emulatorPerTest();

const JOB = `input: customers.csv
key: { column: customer_id, field: customerid }
fields:
  firstName: first_name
  email: { column: email, transform: [email] }
state: false`;

describe('a row with an unclosed quote, fed back', () => {
  it('unfixed it fails CSV_UNCLOSED_QUOTE again, generation after generation, and nothing of it lands; fixed it lands', async () => {
    const ws = workspace();
    ws.write(
      'customers.csv',
      csvLines([
        'customer_id,first_name,email', // 1
        'C1,Ann,ann@example.com', // 2
        'C2,"Bob,bob@example.com', // 3: the quote is never closed
        'C3,Cid,cid@example.com', // 4
        'C5,Eve,eve@example.com,extra', // 5: 4 values
        'C6,Fay,"fay@example.com', // 6: unclosed, the last line
      ]),
    );
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: JOB }));

    const first = await ws.run(['run', 'jobs.yaml', '--report-dir', 'r0']);
    expect(first.exitCode).toBe(1);
    expect(ws.results('import', 'r0').filter((row) => row.outcome === 'failed').map((row) => [row.key, row.error_code])).toEqual([
      ['C2', 'CSV_UNCLOSED_QUOTE'],
      ['C5', 'CSV_COLUMN_COUNT'],
      ['C6', 'CSV_UNCLOSED_QUOTE'],
    ]);
    const gen1 = readFileSync(join(ws.dir, 'r0', 'import.rejected.csv'), 'utf8').split('\n');
    expect(gen1[0]).toBe('customer_id,first_name,email,error_code,error_message');
    // What could be read under the header; the line from its open quote on, as written, last.
    expect(gen1[1]).toMatch(/^C2,"Bob,bob@example.com",,CSV_UNCLOSED_QUOTE,"line 3: .*delete it\)","Bob,bob@example.com$/);
    expect(gen1[3]).toMatch(/^C6,Fay,fay@example.com,CSV_UNCLOSED_QUOTE,"line 6: .*","fay@example.com$/);

    let input = 'r0/import.rejected.csv';
    let previous = gen1;
    for (const generation of [1, 2]) {
      const fed = await ws.run(['run', 'jobs.yaml', '--input', input, '--report-dir', `r${generation}`]);
      expect(fed.exitCode).toBe(1);
      expect(byLine(ws.results('import', `r${generation}`)).map((row) => [row.line, row.key, row.outcome, row.error_code])).toEqual([
        ['2', 'C2', 'failed', 'CSV_UNCLOSED_QUOTE'],
        ['3', 'C5', 'failed', 'CSV_COLUMN_COUNT'],
        ['4', 'C6', 'failed', 'CSV_UNCLOSED_QUOTE'],
      ]);
      const again = readFileSync(join(ws.dir, `r${generation}`, 'import.rejected.csv'), 'utf8').split('\n');
      // The unclosed rows' lines are the same but the line numbers in the messages.
      const withoutLines = (lines: string[]): string[] => lines.filter((line) => /^C[26],/.test(line)).map((line) => line.replace(/line \d+/g, 'line N'));
      expect(withoutLines(again)).toEqual(withoutLines(previous));
      expect(contactsWithKey(emulator(), 'C2')).toEqual([]);
      expect(contactsWithKey(emulator(), 'C6')).toEqual([]);
      previous = again;
      input = `r${generation}/import.rejected.csv`;
    }

    // A person corrects the cells and deletes the tail.
    ws.write('fixed.csv', csvLines(['customer_id,first_name,email,error_code,error_message', 'C2,Bob,bob@example.com,CSV_UNCLOSED_QUOTE,fixed by hand']));
    const fixed = await ws.run(['run', 'jobs.yaml', '--input', 'fixed.csv', '--report-dir', 'r3']);
    expect(fixed.exitCode).toBe(0);
    expect(contactWithKey(emulator(), 'C2').custom_fields).toMatchObject({ firstName: 'Bob' });
  });
});
