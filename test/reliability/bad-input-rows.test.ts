/**
 * Bad rows (fixtures/bad/, one job per case; cases that need a big file generate it here): a row
 * the job cannot use fails alone, with its code and a message naming its line and the fix in
 * results.csv and rejected.csv, `validate` names it as file:line, and every other row is still
 * written as the file says. Odd rows the platform accepts (a repeated key, over 30 fields, over 10
 * tags, a value starting with "=") are written as the file says.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { TOKEN, jobsYaml, workspace, type Workspace } from '../helpers/cli-harness.js';
import { byLine, callsByOperation, contactWithKey, contactsWithKey, emulatorPerTest, reportText, sortedTags } from '../helpers/integration-fixtures.js';
import { corpusEnv, corpusFile, runCase, validateCase } from './support/bad-input-corpus.js';

/** What row `key` of the corpus's valid rows becomes: C1 Ann Archer .. C5 Eve Evans. */
const PEOPLE: Record<string, [string, string, string]> = {
  C1: ['Ann', 'Archer', 'ann@example.com'],
  C3: ['Cid', 'Cooper', 'cid@example.com'],
  C4: ['Dee', 'Dean', 'dee@example.com'],
  C5: ['Eve', 'Evans', 'eve@example.com'],
};

describe('bad rows (fixtures/bad/): the row fails alone, with its line, code and fix; the other rows are written', () => {
  const emulator = emulatorPerTest();

  /** The other rows are on the platform as the file says. */
  function expectWritten(keys: string[]): void {
    for (const key of keys) {
      const [firstName, lastName, email] = PEOPLE[key]!;
      expect(contactWithKey(emulator(), key).custom_fields).toEqual({ customerid: key, firstName, lastName, email });
    }
    expect(emulator().contacts(TOKEN)).toHaveLength(keys.length);
  }

  /** `validate` names each failed row as file:line with its code, and exits 1. */
  async function expectValidateNames(ws: Workspace, job: string, file: string, failures: Array<[number, string]>): Promise<void> {
    const validate = await validateCase(ws, job, corpusEnv(emulator()));
    expect(validate.exitCode).toBe(1);
    for (const [line, code] of failures) expect(validate.stdout).toContain(`${corpusFile(file)}:${line}: ${code}: line ${line}`);
  }

  it('an unclosed quote mid-file: CSV_UNCLOSED_QUOTE on its line only, exit 1; the rows after it are read and written', async () => {
    const ws = workspace();
    const run = await runCase(ws, 'unclosed-quote-mid-file', corpusEnv(emulator()));

    expect(run.exitCode).toBe(1);
    const results = byLine(ws.results('unclosed-quote-mid-file'));
    expect(results.map((row) => [row.line, row.outcome, row.error_code])).toEqual([
      ['2', 'created', ''],
      ['3', 'failed', 'CSV_UNCLOSED_QUOTE'],
      ['4', 'created', ''],
      ['5', 'created', ''],
      ['6', 'created', ''],
    ]);
    expect(results[1]?.error_message).toMatch(/^line 3: a quote opened on this line is not closed .*reading went on at line 4\. Close the quote/);
    expect(ws.rejected('unclosed-quote-mid-file')).toEqual([expect.objectContaining({ customer_id: 'C2', error_code: 'CSV_UNCLOSED_QUOTE' })]);
    expect(contactWithKey(emulator(), 'C4').custom_fields.firstName).toBe('Dee, Jr');
    expect(emulator().contacts(TOKEN)).toHaveLength(4);
    await expectValidateNames(ws, 'unclosed-quote-mid-file', 'unclosed-quote-mid-file.csv', [[3, 'CSV_UNCLOSED_QUOTE']]);
  });

  it('an inconsistent column count: CSV_COLUMN_COUNT for the short and the long row, exit 1; nothing of the long row is lost', async () => {
    const ws = workspace();
    const run = await runCase(ws, 'inconsistent-column-count', corpusEnv(emulator()));

    expect(run.exitCode).toBe(1);
    const results = byLine(ws.results('inconsistent-column-count'));
    expect(results.map((row) => [row.line, row.outcome, row.error_code])).toEqual([
      ['2', 'created', ''],
      ['3', 'failed', 'CSV_COLUMN_COUNT'],
      ['4', 'failed', 'CSV_COLUMN_COUNT'],
      ['5', 'created', ''],
    ]);
    expect(results[1]?.error_message).toBe('line 3: 3 values but the header has 5 columns; quote values that contain the delimiter, and check for a missing or extra delimiter');
    expect(results[2]?.error_message).toContain('line 4: 6 values but the header has 5 columns');
    const rejected = ws.rejected('inconsistent-column-count');
    expect(rejected.find((row) => row.customer_id === 'C3')?.error_message).toContain('"extra"');
    expectWritten(['C1', 'C4']);
    await expectValidateNames(ws, 'inconsistent-column-count', 'inconsistent-column-count.csv', [
      [3, 'CSV_COLUMN_COUNT'],
      [4, 'CSV_COLUMN_COUNT'],
    ]);
  });

  it.each([
    ['invalid-utf8', 'bytes that are not valid text in the encoding of the file'],
    ['nul-bytes', 'a NUL byte'],
  ])('%s in a value: CSV_INVALID_BYTES on its line and column, the fix is the value or input.encoding, exit 1; the other rows are written', async (job, what) => {
    const ws = workspace();
    const run = await runCase(ws, job, corpusEnv(emulator()));

    expect(run.exitCode).toBe(1);
    const results = byLine(ws.results(job));
    expect(results.map((row) => [row.line, row.outcome, row.error_code])).toEqual([
      ['2', 'created', ''],
      ['3', 'failed', 'CSV_INVALID_BYTES'],
      ['4', 'created', ''],
    ]);
    expect(results[1]?.error_message).toBe(`line 3, column "first_name": ${what}${job === 'invalid-utf8' ? ' (shown as \uFFFD)' : ''}; fix the value, or set input.encoding to the encoding the file was saved in`);
    expect(ws.rejected(job)).toEqual([expect.objectContaining({ customer_id: 'C2', error_code: 'CSV_INVALID_BYTES' })]);
    expectWritten(['C1', 'C3']);
    await expectValidateNames(ws, job, `${job}.csv`, [[3, 'CSV_INVALID_BYTES']]);
  });

  it('a missing key value: KEY_MISSING naming the key column, exit 1, no call for that row; the other rows are written', async () => {
    const ws = workspace();
    const run = await runCase(ws, 'missing-key', corpusEnv(emulator()));

    expect(run.exitCode).toBe(1);
    const results = byLine(ws.results('missing-key'));
    expect(results.map((row) => [row.line, row.outcome, row.error_code, row.api_calls])).toEqual([
      ['2', 'created', '', '3'],
      ['3', 'failed', 'KEY_MISSING', '0'],
      ['4', 'created', '', '3'],
    ]);
    expect(results[1]?.error_message).toBe('line 3: the key column "customer_id" is empty; every row needs a key value to find its contact');
    expect(ws.rejected('missing-key')).toEqual([expect.objectContaining({ first_name: 'Nobody', error_code: 'KEY_MISSING' })]);
    expectWritten(['C1', 'C3']);
    await expectValidateNames(ws, 'missing-key', 'missing-key.csv', [[3, 'KEY_MISSING']]);
  });

  it('whitespace-only keys (spaces in quotes, a tab): KEY_MISSING each, never searched as a blank key; the other rows are written', async () => {
    const ws = workspace();
    const run = await runCase(ws, 'whitespace-only-keys', corpusEnv(emulator()));

    expect(run.exitCode).toBe(1);
    expect(byLine(ws.results('whitespace-only-keys')).map((row) => [row.line, row.outcome, row.error_code, row.api_calls])).toEqual([
      ['2', 'created', '', '3'],
      ['3', 'failed', 'KEY_MISSING', '0'],
      ['4', 'failed', 'KEY_MISSING', '0'],
      ['5', 'created', '', '3'],
    ]);
    expect(callsByOperation(emulator())).toMatchObject({ searchContacts: 2, createContact: 2 });
    expectWritten(['C1', 'C4']);
    await expectValidateNames(ws, 'whitespace-only-keys', 'whitespace-only-keys.csv', [
      [3, 'KEY_MISSING'],
      [4, 'KEY_MISSING'],
    ]);
  });

  it('duplicate keys in the file: one contact with the last row\'s values (onDuplicateRows: last), the earlier row skipped naming it, exit 0', async () => {
    const ws = workspace();
    const run = await runCase(ws, 'duplicate-keys', corpusEnv(emulator()));

    expect(run.exitCode).toBe(0);
    expect(byLine(ws.results('duplicate-keys')).map((row) => [row.line, row.key, row.outcome, row.fields_changed])).toEqual([
      ['2', 'C1', 'skipped', ''],
      ['3', 'C2', 'created', 'customerid;firstName;lastName;email'],
      ['4', 'C1', 'created', 'customerid;firstName;lastName;email'],
    ]);
    expect(byLine(ws.results('duplicate-keys'))[0]?.error_message).toBe('superseded by line 4 (onDuplicateRows: last)');
    const ann = contactWithKey(emulator(), 'C1');
    expect(ann.custom_fields).toEqual({ customerid: 'C1', firstName: 'Anna', lastName: 'Archer', email: 'anna@example.com' });
    expect(sortedTags(ann)).toEqual(['crm', 'gold', 'vip']);
    const validate = await validateCase(ws, 'duplicate-keys', corpusEnv(emulator()));
    expect(validate.exitCode).toBe(0);
    expect(validate.stdout).toContain('1 row repeats a key of an earlier row (onDuplicateRows: last)');
  });

  it('more than 30 mapped fields: every field written, in a create of 30 and an update of the rest, exit 0', async () => {
    const ws = workspace();
    const run = await runCase(ws, 'more-than-30-fields', corpusEnv(emulator()));

    expect(run.exitCode).toBe(0);
    const stored = contactWithKey(emulator(), 'C2').custom_fields;
    expect(Object.keys(stored)).toHaveLength(36);
    expect(stored.f35).toBe('v2-35');
    expect(callsByOperation(emulator())).toMatchObject({ createContact: 2, updateContact: 2 });
  });

  it('more than 10 tags in a row: every tag added, in calls of 10, exit 0', async () => {
    const ws = workspace();
    const run = await runCase(ws, 'more-than-10-tags', corpusEnv(emulator()));

    expect(run.exitCode).toBe(0);
    expect(sortedTags(contactWithKey(emulator(), 'C1'))).toEqual(['crm', ...Array.from({ length: 15 }, (_, i) => `tag${String(i + 1).padStart(2, '0')}`)]);
    // 16 tags for C1 (2 calls), 2 for C2 (1 call).
    expect(callsByOperation(emulator()).addTags).toBe(3);
  });

  it('a value starting with "=", "@" or "-": stored as it is, written to the reports with a leading quote so no spreadsheet runs it', async () => {
    const ws = workspace();
    const run = await runCase(ws, 'formula-value', corpusEnv(emulator()));

    expect(run.exitCode).toBe(0);
    expect(contactWithKey(emulator(), 'C1').custom_fields.firstName).toBe('=HYPERLINK("http://evil.example","Ann")');
    expect(contactWithKey(emulator(), 'C2').custom_fields.lastName).toBe('@SUM(A1:A2)');
    expect(sortedTags(contactWithKey(emulator(), 'C2'))).toEqual(['-cmd', 'crm']);
    expect(ws.results('formula-value').find((row) => row.key === 'C2')?.tags_added).toBe("'-cmd;crm");
    expect(reportText(ws, 'formula-value', 'results.csv')).not.toMatch(/(^|,)[=@-]/m);
  });

  describe('big values (generated, not committed)', () => {
    const job = `input: big.csv
key: { column: customer_id, field: customerid }
fields: { firstName: first_name, notes: notes }
state: false`;

    function writeBig(ws: Workspace, notes: string): void {
      ws.write('big.csv', `customer_id,first_name,notes\nC1,Ann,short\nC2,Bob,${notes}\nC3,Cid,short\n`);
      ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job }));
    }

    it('a 1 MB field: read whole and written whole, exit 0', async () => {
      const ws = workspace();
      const notes = 'abcdefghij'.repeat(100_000);
      writeBig(ws, notes);

      const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports']);

      expect(run.exitCode).toBe(0);
      expect(contactWithKey(emulator(), 'C2').custom_fields.notes).toBe(notes);
      expect(emulator().contacts(TOKEN)).toHaveLength(3);
    });

    it('a field past the 8 MiB row limit: CSV_MALFORMED on its line with the fix, exit 1; the rows around it are written', async () => {
      const ws = workspace();
      writeBig(ws, 'x'.repeat(9 * 1024 * 1024));

      const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports']);

      expect(run.exitCode).toBe(1);
      const results = byLine(ws.results('import'));
      expect(results.map((row) => [row.line, row.outcome, row.error_code])).toEqual([
        ['2', 'created', ''],
        ['3', 'failed', 'CSV_MALFORMED'],
        ['4', 'created', ''],
      ]);
      expect(results[1]?.error_message).toBe('line 3: the row is longer than 8388608 bytes; split the row or shorten its values');
      expect(contactsWithKey(emulator(), 'C2')).toEqual([]);
      expect(emulator().contacts(TOKEN)).toHaveLength(2);
      rmSync(join(ws.dir, 'big.csv'));
      // A test's own bound, not a product's: reading 9 MiB through the parser took 21 to 29 s at a load of 13 on 2 cores.
    }, 120_000);
  });
});
