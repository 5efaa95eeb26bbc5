/**
 * Issue 34, point 3: a row with a stray delimiter (more cells than the header) keeps every cell in
 * rejected.csv, so fed back unfixed it fails again instead of landing shifted with its last tag
 * lost; fixed, it lands right. Its key, readable in the cells, is in results.csv, the HTML
 * report, reconcile's diff.csv and validate --problems (one of the smaller things).
 */
import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { join } from 'node:path';
import { jobsYaml, workspace } from '../helpers/cli-harness.js';
import { contactWithKey, contactsWithKey, csvLines, emulatorPerTest, sortedTags } from '../helpers/integration-fixtures.js';

const emulator = emulatorPerTest();

/** A CSV file's lines as cells, each line as long as it is. */
function rows(path: string): string[][] {
  const lines: unknown = parse(readFileSync(path, 'utf8'), { relax_column_count: true });
  return lines as string[][];
}

const JOB = `input: customers.csv
key: { column: customer_id, field: customerid }
fields:
  firstName: first_name
tags: { column: tags, separator: ";" }
state: false`;

describe('a row with too many cells, fed back', () => {
  it('unfixed it fails CSV_COLUMN_COUNT again, generation after generation, and nothing lands; fixed it lands with every tag', async () => {
    const ws = workspace();
    ws.write(
      'customers.csv',
      csvLines([
        'customer_id,first_name,tags',
        'C1,Ann,basic',
        'C2,Smith, John,vip;gold', // 3: the comma in the name splits it: 4 cells
        'C3,Cid,basic',
      ]),
    );
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: JOB }));

    const first = await ws.run(['run', 'jobs.yaml', '--report-dir', 'r0']);
    expect(first.exitCode).toBe(1);
    const failed = ws.results('import', 'r0').find((row) => row.line === '3');
    expect(failed).toMatchObject({ key: 'C2', outcome: 'failed', error_code: 'CSV_COLUMN_COUNT' });
    expect(readFileSync(join(ws.dir, 'r0', 'import.report.html'), 'utf8')).toMatch(/<td class="n">3<\/td><td>C2<\/td>/);
    const gen1 = readFileSync(join(ws.dir, 'r0', 'import.rejected.csv'), 'utf8').split('\n');
    expect(gen1[0]).toBe('customer_id,first_name,tags,error_code,error_message');
    // Every cell the row had: the one beyond the header follows the error columns.
    expect(gen1[1]).toMatch(/^C2,Smith, John,CSV_COLUMN_COUNT,"?line 3: 4 values but the header has 3 columns.*,vip;gold$/);

    const validate = await ws.run(['validate', 'jobs.yaml', '--problems', 'problems.csv']);
    expect(validate.exitCode).toBe(1);
    const problems = parse<Record<string, string>>(readFileSync(join(ws.dir, 'problems.csv'), 'utf8'), { columns: true });
    expect(problems.map((row) => [row.line, row.key, row.error_code])).toEqual([['3', 'C2', 'CSV_COLUMN_COUNT']]);
    expect(validate.stdout).toContain('import: 3 rows, 2 valid, 1 invalid');
    const reconcile = await ws.run(['reconcile', 'jobs.yaml', '--report-dir', 'rc']);
    const diff = parse<Record<string, string>>(readFileSync(join(ws.dir, 'rc', 'import.diff.csv'), 'utf8'), { columns: true });
    expect(reconcile.exitCode).toBe(1);
    expect(diff.map((row) => [row.key, row.status, row.error_code])).toEqual([['C2', 'failed', 'CSV_COLUMN_COUNT']]);

    let input = 'r0/import.rejected.csv';
    for (const generation of [1, 2]) {
      const fed = await ws.run(['run', 'jobs.yaml', '--input', input, '--report-dir', `r${generation}`]);
      expect(fed.exitCode).toBe(1);
      expect(ws.results('import', `r${generation}`).map((row) => [row.key, row.outcome, row.error_code])).toEqual([['C2', 'failed', 'CSV_COLUMN_COUNT']]);
      const again = readFileSync(join(ws.dir, `r${generation}`, 'import.rejected.csv'), 'utf8').split('\n');
      expect(again[0]).toBe('customer_id,first_name,tags,error_code,error_message');
      expect(again[1]).toMatch(/^C2,Smith, John,CSV_COLUMN_COUNT,.*,vip;gold$/);
      expect(contactsWithKey(emulator(), 'C2')).toEqual([]);
      input = `r${generation}/import.rejected.csv`;
    }

    // A person quotes the name, moves the tags under their column and deletes the stray cell.
    ws.write('fixed.csv', csvLines(['customer_id,first_name,tags,error_code,error_message', 'C2,"Smith, John",vip;gold,CSV_COLUMN_COUNT,fixed by hand']));
    const fixed = await ws.run(['run', 'jobs.yaml', '--input', 'fixed.csv', '--report-dir', 'r3']);
    expect(fixed.exitCode).toBe(0);
    const contact = contactWithKey(emulator(), 'C2');
    expect(contact.custom_fields.firstName).toBe('Smith, John');
    expect(sortedTags(contact)).toEqual(['gold', 'vip']);
  });

  it('a row with too few cells, fed back unfixed, fails CSV_COLUMN_COUNT again instead of landing with empty fields; filled, it lands', async () => {
    const ws = workspace();
    ws.write('customers.csv', csvLines(['customer_id,first_name,tags', 'C1,Ann,basic', 'C2;Bo,vip', 'C3,Cid,basic']));
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: JOB }));

    const first = await ws.run(['run', 'jobs.yaml', '--report-dir', 'r0']);
    expect(first.exitCode).toBe(1);
    expect(ws.results('import', 'r0').find((row) => row.line === '3')).toMatchObject({ outcome: 'failed', error_code: 'CSV_COLUMN_COUNT' });
    const gen1 = rows(join(ws.dir, 'r0', 'import.rejected.csv'));
    expect(gen1[0]).toEqual(['customer_id', 'first_name', 'tags', 'error_code', 'error_message']);
    // The two cells it had under their columns, the missing one empty, and one cell beyond the error columns.
    expect(gen1[1]!.slice(0, 4)).toEqual(['C2;Bo', 'vip', '', 'CSV_COLUMN_COUNT']);
    expect(gen1[1]).toHaveLength(6);
    expect(gen1[1]![5]).toBe("1 cell is missing: fill the row's cells, then delete this last cell");

    let input = 'r0/import.rejected.csv';
    for (const generation of [1, 2]) {
      const fed = await ws.run(['run', 'jobs.yaml', '--input', input, '--report-dir', `r${generation}`]);
      expect(fed.exitCode).toBe(1);
      expect(ws.results('import', `r${generation}`).map((row) => [row.outcome, row.error_code])).toEqual([['failed', 'CSV_COLUMN_COUNT']]);
      const again = rows(join(ws.dir, `r${generation}`, 'import.rejected.csv'));
      expect(again[1]!.slice(0, 3)).toEqual(['C2;Bo', 'vip', '']);
      expect(again[1]!.at(-1)).toBe("1 cell is missing: fill the row's cells, then delete this last cell");
      input = `r${generation}/import.rejected.csv`;
    }
    expect(contactsWithKey(emulator(), 'C2')).toEqual([]);
    expect(contactsWithKey(emulator(), 'C2;Bo')).toEqual([]);

    ws.write('fixed.csv', csvLines(['customer_id,first_name,tags,error_code,error_message', 'C2,Bo,vip,CSV_COLUMN_COUNT,fixed by hand']));
    const fixed = await ws.run(['run', 'jobs.yaml', '--input', 'fixed.csv', '--report-dir', 'r3']);
    expect(fixed.exitCode).toBe(0);
    expect(contactWithKey(emulator(), 'C2').custom_fields.firstName).toBe('Bo');
  });
});
