/**
 * Issue 42, item 10: an input of NUL bytes (a disk image, a file a crash filled with zeros) is
 * refused at once as not text, naming the file (exit 2), not read as a CSV; and a file of millions
 * of blank lines is read with its blank lines passed over in bulk, its rows' line numbers right.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { readCsvBatches, type CsvReadCounts, type CsvRecord } from '../../../src/pipeline/source/csv-records.js';
import { readSource } from '../../../src/pipeline/source/source.js';
import { jobsYaml, workspace } from '../../helpers/cli-harness.js';
import { tempDir } from '../../helpers/temp-dir.js';

/** Writes `parts` to a new file, each a number of times (a bounded loop, flat memory). */
function writeFile(path: string, parts: ReadonlyArray<readonly [Buffer, number]>): void {
  const fd = openSync(path, 'w');
  try {
    for (const [bytes, times] of parts) for (let i = 0; i < times; i++) writeSync(fd, bytes);
  } finally {
    closeSync(fd);
  }
}

const MIB = 1024 * 1024;

describe('an input that is not text', () => {
  it('a file of NUL bytes is refused at once, naming the file: not text, not a CSV (exit 2)', async () => {
    const ws = workspace();
    writeFile(join(ws.dir, 'customers.csv'), [[Buffer.alloc(MIB), 4]]);
    ws.write('jobs.yaml', jobsYaml({ url: 'http://127.0.0.1:9/api', job: 'input: customers.csv\nkey: { column: customer_id, field: customerid }\nstate: false' }));

    const validate = await ws.run(['validate', 'jobs.yaml']);
    expect(validate.exitCode).toBe(2);
    expect(validate.stderr).toMatch(/customers\.csv: is not text, so not a CSV: its start holds NUL bytes in a row .*point input\.path at the CSV export/);
    expect(validate.stderr).not.toContain('UTF-16');
  });

  it('a header and rows followed by zeros (a file a crash padded) is refused the same way', async () => {
    const dir = tempDir();
    const path = join(dir, 'padded.csv');
    writeFile(path, [
      [Buffer.from('customer_id,name\nC1,Ann\n'), 1],
      [Buffer.alloc(64 * 1024), 8],
    ]);
    await expect(readSource({ path })).rejects.toMatchObject({ code: 'INPUT_NOT_CSV', message: expect.stringContaining(`${path}: is not text`) });
  });

  it('UTF-16 without a byte order mark still gets the encoding advice', async () => {
    const dir = tempDir();
    const path = join(dir, 'utf16.csv');
    writeFile(path, [[Buffer.from('customer_id,name\nC1,Ann\n', 'utf16le'), 1]]);
    await expect(readSource({ path })).rejects.toMatchObject({ code: 'INPUT_ENCODING', message: expect.stringContaining('utf-16le') });
  });
});

describe('a file of millions of blank lines', () => {
  const BLANK_MIB = 20;
  const blanks = Buffer.alloc(MIB, '\n');

  it('passes the blank lines over in bulk, never through csv-parse, and numbers the rows after them right', async () => {
    const input = Readable.from([Buffer.from('customer_id,name\nC1,Ann\n'), ...Array.from({ length: BLANK_MIB }, () => blanks), Buffer.from('C2,Bob\r\n\r\n\r\nC3,Cid\n')]);
    const counts: CsvReadCounts = { directLines: 0, parserWrites: 0 };
    const records: CsvRecord[] = [];
    for await (const batch of readCsvBatches(input, { delimiter: ',', counts })) records.push(...batch);

    const row2 = 3 + BLANK_MIB * MIB;
    expect(records.map((record) => [record.line, record.kind === 'record' ? record.cells : record.code])).toEqual([
      [1, ['customer_id', 'name']],
      [2, ['C1', 'Ann']],
      [row2, ['C2', 'Bob']],
      [row2 + 3, ['C3', 'Cid']],
    ]);
    expect(counts).toEqual({ directLines: row2 + 3, parserWrites: 0, bulkBlankLines: BLANK_MIB * MIB + 2 });
  });

  it('read from a file, the rows after the blank lines keep their lines', async () => {
    const dir = tempDir();
    const path = join(dir, 'bomb.csv');
    writeFile(path, [
      [Buffer.from('customer_id,name\n'), 1],
      [blanks, BLANK_MIB],
      [Buffer.from('C1,Ann\n'), 1],
    ]);
    const source = await readSource({ path });
    const rows = [];
    for await (const record of source.records) rows.push(record);
    expect(rows.map((row) => [row.kind, row.line])).toEqual([['row', 2 + BLANK_MIB * MIB]]);
  });
});
