import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readSource, type SourceOptions } from '../../../src/pipeline/source/source.js';
import type { SourceRecord } from '../../../src/pipeline/source/source-record.js';

const fixture = (name: string): string => join(import.meta.dirname, '../../../fixtures/csv', name);

async function readAll(options: SourceOptions): Promise<SourceRecord[]> {
  const source = await readSource(options);
  const records: SourceRecord[] = [];
  for await (const record of source.records) records.push(record);
  return records;
}

/** [line, customer_id] for rows, [line, code] for malformed rows. */
const summary = (records: SourceRecord[]): Array<[number, string]> =>
  records.map((record) => [record.line, record.kind === 'row' ? (record.values.customer_id ?? '') : record.code]);

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'source-malformed-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function tempCsv(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe('malformed rows become records and the file goes on', () => {
  test('wrong column counts are CSV_COLUMN_COUNT with what was read', async () => {
    const records = await readAll({ path: fixture('column-count.csv') });
    expect(summary(records)).toEqual([
      [2, '1'],
      [3, 'CSV_COLUMN_COUNT'],
      [4, 'CSV_COLUMN_COUNT'],
      [5, '4'],
    ]);
    expect(records[1]).toMatchObject({ cells: ['2', 'Bob'], message: expect.stringContaining('line 3: 2 values but the header has 3 columns') });
    expect(records[2]).toMatchObject({ cells: ['3', 'Cid', 'cid@example.com', 'extra'] });
  });

  test('an unclosed quote mid-file is CSV_UNCLOSED_QUOTE on its line and the rows after it are read', async () => {
    const records = await readAll({ path: fixture('unclosed-quote-mid-file.csv') });
    expect(summary(records)).toEqual([
      [2, '1'],
      [3, 'CSV_UNCLOSED_QUOTE'],
      [4, '3'],
      [5, '4'],
      [6, '5'],
    ]);
    expect(records[1]).toMatchObject({ cells: ['2', 'Bob,bob@example.com'], message: expect.stringContaining('reading went on at line 4') });
    expect(records[3]).toMatchObject({ values: { name: 'Dee' } });
  });

  test('an unclosed quote that reaches the end of the file: the rows after it are read', async () => {
    const records = await readAll({ path: fixture('unclosed-quote-at-end.csv') });
    expect(summary(records)).toEqual([
      [2, '1'],
      [3, '2'],
      [4, 'CSV_UNCLOSED_QUOTE'],
      [5, '4'],
    ]);
  });

  test('an unclosed quote on the last line, without a final line break', async () => {
    const path = tempCsv('last-line.csv', 'customer_id,name\n1,Ann\n2,"Bob');
    expect(summary(await readAll({ path }))).toEqual([
      [2, '1'],
      [3, 'CSV_UNCLOSED_QUOTE'],
    ]);
  });

  test('several unclosed quotes in one file, with multi-line values between them', async () => {
    const path = tempCsv(
      'several.csv',
      ['customer_id,note', '1,"ok\nstill ok"', '2,"broken', '3,fine', '4,"x ""y"" z"', '5,"broken again', '6,"multi', 'line"', '7,end', ''].join('\n'),
    );
    const records = await readAll({ path });
    expect(summary(records)).toEqual([
      [2, '1'],
      [4, 'CSV_UNCLOSED_QUOTE'],
      [5, '3'],
      [6, '4'],
      [7, 'CSV_UNCLOSED_QUOTE'],
      [8, '6'],
      [10, '7'],
    ]);
    expect(records[3]).toMatchObject({ values: { note: 'x "y" z' } });
    expect(records[5]).toMatchObject({ values: { note: 'multi\nline' } });
  });

  test('a quote "closed" by a later row’s quote, beyond maxRecordLines lines, is an unclosed quote', async () => {
    // csv-parse sees one record here (the 3 columns even match): only its height gives it away.
    const path = tempCsv('swallowed.csv', 'customer_id,name,note\n1,"Ann,a\n2,Bob,b\n3,Cid,c\n4,Dee",d\n5,Eve,e\n');
    const records = await readAll({ path, maxRecordLines: 2 });
    expect(summary(records)).toEqual([
      [2, 'CSV_UNCLOSED_QUOTE'],
      [3, '2'],
      [4, '3'],
      [5, 'CSV_MALFORMED'],
      [6, '5'],
    ]);
    expect(records[0]).toMatchObject({ message: expect.stringContaining('runs over 4 lines') });
  });

  test('stray quotes: a quote inside an unquoted value, a quoted value followed by text', async () => {
    const records = await readAll({ path: fixture('stray-quotes.csv') });
    expect(summary(records)).toEqual([
      [2, '1'],
      [3, 'CSV_MALFORMED'],
      [4, 'CSV_MALFORMED'],
      [5, '4'],
    ]);
    expect(records[0]).toMatchObject({ values: { height: '5\'4"' } });
    expect(records[1]).toMatchObject({ cells: ['2', 'John "JJ" Smith', '6\'1"'] });
  });

  test('a row longer than maxRecordBytes is CSV_MALFORMED and the rows after it are read', async () => {
    const path = tempCsv('long-row.csv', `customer_id,name\n1,Ann\n2,${'x'.repeat(5000)}\n3,Cid\n`);
    const records = await readAll({ path, maxRecordBytes: 1000 });
    expect(summary(records)).toEqual([
      [2, '1'],
      [3, 'CSV_MALFORMED'],
      [4, '3'],
    ]);
  });

  test('an unclosed quote running past maxRecordBytes stops there, and the rows after it are read', async () => {
    const rows = Array.from({ length: 200 }, (_, i) => `${i + 3},name${i + 3}`);
    const path = tempCsv('runaway.csv', ['customer_id,name', '1,Ann', '2,"Bob', ...rows, ''].join('\n'));
    const records = await readAll({ path, maxRecordBytes: 500, maxRecordLines: 10_000 });
    expect(records[1]).toMatchObject({ line: 3, code: 'CSV_UNCLOSED_QUOTE' });
    expect(records).toHaveLength(202);
    expect(records.at(-1)).toMatchObject({ line: 203, values: { customer_id: '202' } });
  });

  test('a fault on every row: each is reported on its own line', async () => {
    const lines = ['customer_id,name'];
    for (let i = 1; i <= 3000; i++) lines.push(i % 3 === 0 ? `${i},"ok ""${i}"""` : i % 3 === 1 ? `${i},stray"${i}` : `${i},"q"${i}`);
    const records = await readAll({ path: tempCsv('every-row.csv', lines.join('\r\n')) });
    expect(records).toHaveLength(3000);
    records.forEach((record, index) => {
      const id = index + 1;
      expect(record.line).toBe(id + 1);
      if (id % 3 === 0) expect(record).toMatchObject({ kind: 'row', values: { customer_id: String(id), name: `ok "${id}"` } });
      else expect(record).toMatchObject({ kind: 'malformed', code: 'CSV_MALFORMED', cells: [String(id), expect.any(String)] });
    });
  });
});
