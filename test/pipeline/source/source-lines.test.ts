import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readSource, type SourceOptions } from '../../../src/pipeline/source/source.js';
import type { SourceRecord } from '../../../src/pipeline/source/source-record.js';

const fixture = (name: string): string => join(import.meta.dirname, '../../../fixtures/csv', name);

async function readAll(options: SourceOptions): Promise<{ header: string[]; records: SourceRecord[] }> {
  const source = await readSource(options);
  const records: SourceRecord[] = [];
  for await (const record of source.records) records.push(record);
  return { header: source.header, records };
}

function lineAndId(record: SourceRecord): [number, string] {
  return [record.line, record.kind === 'row' ? (record.values.customer_id ?? '') : record.code];
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'source-lines-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function tempCsv(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe('line numbers are physical lines of the row’s first line', () => {
  test.each([['quoted-newline.csv'], ['quoted-newline-crlf.csv']])('%s: quoted line breaks and blank lines do not shift later rows', async (name) => {
    const { records } = await readAll({ path: fixture(name) });
    expect(records.map(lineAndId)).toEqual([
      [2, '1'],
      [4, '2'],
      [6, '3'],
      [9, '4'],
      [14, '5'],
    ]);
  });

  test('values keep their line breaks and doubled quotes become one quote', async () => {
    const { records } = await readAll({ path: fixture('quoted-newline-crlf.csv') });
    const row = records[3];
    expect(row).toMatchObject({ kind: 'row', values: { notes: 'x, "quoted"\r\n\r\ny', city: 'Brest' } });
  });

  test('a lone CR counts as a line break, like CRLF and LF, in one file', async () => {
    const path = tempCsv('mixed-endings.csv', 'customer_id,note\r1,"a\rb"\r\n2,"c\nd"\n3,e\r\n\r4,f');
    const { records } = await readAll({ path });
    expect(records.map(lineAndId)).toEqual([
      [2, '1'],
      [4, '2'],
      [6, '3'],
      [8, '4'],
    ]);
  });

  test('blank lines before the header are counted: the header is on the line it is on', async () => {
    const path = tempCsv('leading-blank.csv', '\n\ncustomer_id,name\n1,Ann\n');
    const source = await readSource({ path });
    expect(source.headerLine).toBe(3);
    const records: SourceRecord[] = [];
    for await (const record of source.records) records.push(record);
    expect(records.map(lineAndId)).toEqual([[4, '1']]);
  });

  test('lines of spaces count as blank lines', async () => {
    const path = tempCsv('spaces.csv', 'customer_id,name\n1,Ann\n   \n\t\n2,Bob\n');
    const { records } = await readAll({ path });
    expect(records.map(lineAndId)).toEqual([
      [2, '1'],
      [5, '2'],
    ]);
  });

  test('a row after a malformed multi-line row keeps its physical line', async () => {
    const path = tempCsv('bad-then-good.csv', 'customer_id,note\n1,"a\nb",extra\n2,x\n');
    const { records } = await readAll({ path });
    expect(records.map(lineAndId)).toEqual([
      [2, 'CSV_COLUMN_COUNT'],
      [4, '2'],
    ]);
    expect(records[0]).toMatchObject({ message: expect.stringContaining('spans lines 2-3') });
  });
});
