/**
 * Bad input files, as a whole (fixtures/bad/, one job per case): a file the job cannot read stops
 * it before any row and any call, with exit 2, a message that names the file, the place and the
 * fix, and the stable code in the JSON log; a file that is odd but readable runs.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { TOKEN, workspace } from '../helpers/cli-harness.js';
import { callsByOperation, contactWithKey, emulatorPerTest, sortedTags } from '../helpers/integration-fixtures.js';
import { corpusEnv, corpusFile, errorText, loggedCodes, runCase } from './support/bad-input-corpus.js';

describe('bad input files (fixtures/bad/)', () => {
  const emulator = emulatorPerTest();

  /** The run stopped before any row: exit 2, no call, no report. */
  function expectStoppedBeforeAnyRow(run: { exitCode: number }, dir: string): void {
    expect(run.exitCode).toBe(2);
    expect(callsByOperation(emulator()).total).toBe(0);
    expect(existsSync(join(dir, 'reports'))).toBe(false);
  }

  it('empty file: INPUT_EMPTY, exit 2, the message names the file and asks for a header line', async () => {
    const ws = workspace();
    const run = await runCase(ws, 'empty-file', corpusEnv(emulator()));

    expectStoppedBeforeAnyRow(run, ws.dir);
    expect(errorText(run)).toContain(`${corpusFile('empty-file.csv')}: the file is empty; it needs a header line naming the columns`);
    expect(loggedCodes(run)).toEqual(['INPUT_EMPTY']);
  });

  it('header only: a job of 0 rows, exit 0, no call, a results.csv with its header only', async () => {
    const ws = workspace();
    const run = await runCase(ws, 'header-only', corpusEnv(emulator()));

    expect(run.exitCode).toBe(0);
    expect(ws.summary('header-only').rows).toEqual({ total: 0, created: 0, updated: 0, unchanged: 0, skipped: 0, failed: 0, notReached: 0 });
    expect(ws.results('header-only')).toEqual([]);
    expect(callsByOperation(emulator()).total).toBe(0);
  });

  it('no header column matches the key column: INPUT_HEADER_MISMATCH, exit 2, naming the file, the YAML path and the closest header name', async () => {
    const ws = workspace();
    const run = await runCase(ws, 'key-column-missing', corpusEnv(emulator()));

    expectStoppedBeforeAnyRow(run, ws.dir);
    expect(errorText(run)).toContain(
      `${corpusFile('key-column-missing.csv')}: column "customer_id" (jobs[name=key-column-missing].key.column) is not in the header (did you mean "customerid"?)`,
    );
    expect(loggedCodes(run)).toEqual(['INPUT_HEADER_MISMATCH']);
  });

  it('a UTF-8 byte order mark: read as text, the first column is the key, every row is created', async () => {
    const ws = workspace();
    const run = await runCase(ws, 'bom', corpusEnv(emulator()));

    expect(run.exitCode).toBe(0);
    expect(ws.results('bom').map((row) => [row.key, row.outcome]).sort()).toEqual([
      ['C1', 'created'],
      ['C2', 'created'],
    ]);
    expect(contactWithKey(emulator(), 'C1').custom_fields).toEqual({ customerid: 'C1', firstName: 'Ann', lastName: 'Archer', email: 'ann@example.com' });
    expect(emulator().contacts(TOKEN)).toHaveLength(2);
  });

  it('a wrong delimiter (the job says ",", the file uses ";"): INPUT_HEADER_MISMATCH, exit 2, and the fix is input.delimiter', async () => {
    const ws = workspace();
    const run = await runCase(ws, 'wrong-delimiter', corpusEnv(emulator()));

    expectStoppedBeforeAnyRow(run, ws.dir);
    expect(errorText(run)).toContain(`${corpusFile('wrong-delimiter.csv')}: column "customer_id" (jobs[name=wrong-delimiter].key.column) is not in the header`);
    // The header is one column holding ";": the fix is the delimiter, not a column name.
    expect(errorText(run)).toContain('the file is separated by semicolons, set input.delimiter: ";" in the job');
    expect(loggedCodes(run)).toEqual(['INPUT_HEADER_MISMATCH']);
  });

  it('a file that does not exist: INPUT_NOT_FOUND, exit 2, naming the path and input.path', async () => {
    const ws = workspace();
    const run = await runCase(ws, 'file-does-not-exist', corpusEnv(emulator()));

    expectStoppedBeforeAnyRow(run, ws.dir);
    expect(errorText(run)).toContain(`${corpusFile('file-does-not-exist.csv')}: the input file does not exist; check input.path`);
    expect(loggedCodes(run)).toEqual(['INPUT_NOT_FOUND']);
  });

  it('a directory given as the file: INPUT_IS_DIRECTORY, exit 2, naming the path and input.path', async () => {
    const ws = workspace();
    const run = await runCase(ws, 'directory-given-as-file', corpusEnv(emulator()));

    expectStoppedBeforeAnyRow(run, ws.dir);
    expect(errorText(run)).toContain(`${corpusFile('directory-given-as-file')}: is a folder, not a file; set input.path to the CSV file`);
    expect(loggedCodes(run)).toEqual(['INPUT_IS_DIRECTORY']);
  });

  it('the corpus job of valid rows runs clean (the other cases differ from it only by their file)', async () => {
    const ws = workspace();
    const run = await runCase(ws, 'valid-customers', corpusEnv(emulator()));

    expect(run.exitCode).toBe(0);
    expect(sortedTags(contactWithKey(emulator(), 'C3'))).toEqual(['crm', 'newsletter', 'vip']);
    expect(emulator().contacts(TOKEN)).toHaveLength(3);
  });
});
