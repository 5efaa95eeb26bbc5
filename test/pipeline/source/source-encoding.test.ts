import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readSource, type SourceOptions } from '../../../src/pipeline/source/source.js';
import { SourceError } from '../../../src/pipeline/source/source-error.js';
import type { SourceRecord } from '../../../src/pipeline/source/source-record.js';

const fixture = (name: string): string => join(import.meta.dirname, '../../../fixtures/csv', name);

async function readAll(options: SourceOptions): Promise<{ header: string[]; encoding: string; records: SourceRecord[] }> {
  const source = await readSource(options);
  const records: SourceRecord[] = [];
  for await (const record of source.records) records.push(record);
  return { header: source.header, encoding: source.encoding, records };
}

const values = (records: SourceRecord[]): Array<Record<string, string> | string> => records.map((record) => (record.kind === 'row' ? { ...record.values } : record.code));

describe('encodings', () => {
  test('UTF-8 with a BOM: the BOM is not part of the first column name', async () => {
    const { header, encoding, records } = await readAll({ path: fixture('bom-semicolon-crlf.csv') });
    expect(header).toEqual(['customer_id', 'first_name', 'email', 'segments']);
    expect(encoding).toBe('utf-8');
    expect(values(records)[0]).toEqual({ customer_id: '1', first_name: 'Zoë', email: 'zoe@example.com', segments: 'vip,news' });
  });

  test.each([
    ['latin1.csv', 'latin1', [{ customer_id: '1', name: 'José', city: 'Besançon' }, { customer_id: '2', name: 'Zoë', city: 'Zürich' }]],
    ['windows-1252.csv', 'windows-1252', [{ customer_id: '1', name: 'Ann', note: 'costs 5€' }, { customer_id: '2', name: 'Bob', note: '“quoted”' }]],
  ])('%s read as %s', async (name, encoding, expected) => {
    const result = await readAll({ path: fixture(name), encoding });
    expect(result.encoding).toBe(encoding);
    expect(values(result.records)).toEqual(expected);
  });

  test('UTF-16LE with its BOM is recognised even when the job says utf-8', async () => {
    const { header, encoding, records } = await readAll({ path: fixture('utf16le-bom.csv'), encoding: 'utf-8' });
    expect(encoding).toBe('utf-16le');
    expect(header).toEqual(['customer_id', 'name']);
    expect(values(records)).toEqual([
      { customer_id: '1', name: 'Zoë' },
      { customer_id: '2', name: '渡辺' },
    ]);
    expect(records.map((record) => record.line)).toEqual([2, 3]);
  });

  test('invalid UTF-8 bytes and NUL bytes make their row CSV_INVALID_BYTES and the file goes on', async () => {
    const { records } = await readAll({ path: fixture('invalid-utf8.csv') });
    expect(records.map((record) => [record.line, record.kind === 'row' ? record.values.customer_id : record.code])).toEqual([
      [2, '1'],
      [3, 'CSV_INVALID_BYTES'],
      [4, '3'],
      [5, 'CSV_INVALID_BYTES'],
      [6, '5'],
    ]);
    expect(records[1]).toMatchObject({ message: expect.stringContaining('column "name"'), cells: ['2', 'B\uFFFDb', 'bob@example.com'] });
    expect(records[3]).toMatchObject({ message: expect.stringContaining('NUL byte') });
  });

  test('UTF-16 without a BOM read as UTF-8 is an INPUT_ENCODING error that names utf-16le', async () => {
    const error = await readSource({ path: fixture('utf16le-no-bom.csv') }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SourceError);
    expect(error).toMatchObject({ code: 'INPUT_ENCODING', message: expect.stringContaining('utf-16le') });
  });

  test('a latin1 file read as UTF-8: its rows with non-ASCII letters are CSV_INVALID_BYTES', async () => {
    const { records } = await readAll({ path: fixture('latin1.csv') });
    expect(records.map((record) => record.kind === 'malformed' && record.code)).toEqual(['CSV_INVALID_BYTES', 'CSV_INVALID_BYTES']);
  });

  test('a header that is not valid UTF-8 is INPUT_ENCODING, suggesting windows-1252', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'source-encoding-'));
    try {
      const path = join(dir, 'latin1-header.csv');
      writeFileSync(path, Buffer.from('customer_id,café\n1,x\n', 'latin1'));
      const error = await readSource({ path }).catch((caught: unknown) => caught);
      expect(error).toMatchObject({ code: 'INPUT_ENCODING', message: expect.stringContaining('windows-1252') });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a UTF-8 BOM wins over a configured latin1', async () => {
    const { encoding, records } = await readAll({ path: fixture('bom-semicolon-crlf.csv'), encoding: 'latin1' });
    expect(encoding).toBe('utf-8');
    expect(records[0]).toMatchObject({ values: { first_name: 'Zoë' } });
  });

  test('an unknown encoding label is INPUT_ENCODING, naming the label and examples', async () => {
    const error = await readSource({ path: fixture('latin1.csv'), encoding: 'utf-9' }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'INPUT_ENCODING', message: expect.stringMatching(/"utf-9".*windows-1252/) });
  });
});
