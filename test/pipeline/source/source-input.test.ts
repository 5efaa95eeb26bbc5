import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { detectDelimiter, firstLine } from '../../../src/pipeline/source/delimiter-detect.js';
import { readSource, type SourceOptions } from '../../../src/pipeline/source/source.js';
import { SourceError } from '../../../src/pipeline/source/source-error.js';
import type { SourceRecord } from '../../../src/pipeline/source/source-record.js';

const fixture = (name: string): string => join(import.meta.dirname, '../../../fixtures/csv', name);

async function readAll(options: SourceOptions): Promise<{ header: string[]; delimiter: string; records: SourceRecord[] }> {
  const source = await readSource(options);
  const records: SourceRecord[] = [];
  for await (const record of source.records) records.push(record);
  return { header: source.header, delimiter: source.delimiter, records };
}

async function sourceError(options: SourceOptions): Promise<SourceError> {
  const error = await readSource(options).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof SourceError)) throw new Error(`expected a SourceError, got ${String(error)}`);
  return error;
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'source-input-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the input as a whole', () => {
  test('a missing file is INPUT_NOT_FOUND naming the file and input.path', async () => {
    const path = join(dir, 'nope.csv');
    const error = await sourceError({ path });
    expect(error.code).toBe('INPUT_NOT_FOUND');
    expect(error.message).toContain(path);
    expect(error.message).toContain('input.path');
  });

  // root reads a file whatever its mode: the case cannot be set up there.
  const asRoot = process.getuid?.() === 0;
  (asRoot ? test.skip : test)('a file this user may not read is INPUT_UNREADABLE', async () => {
    const path = join(dir, 'secret.csv');
    writeFileSync(path, 'customer_id\n1\n');
    chmodSync(path, 0o000);
    const error = await sourceError({ path });
    expect(error.code).toBe('INPUT_UNREADABLE');
    expect(error.message).toContain(path);
  });

  test('a folder is INPUT_IS_DIRECTORY', async () => {
    expect((await sourceError({ path: dir })).code).toBe('INPUT_IS_DIRECTORY');
  });

  test.each([['empty.csv'], ['blank-lines-only.csv']])('%s is INPUT_EMPTY (no header)', async (name) => {
    const error = await sourceError({ path: fixture(name) });
    expect(error.code).toBe('INPUT_EMPTY');
    expect(error.message).toContain('header');
  });

  test('a header without rows is zero records, not an error', async () => {
    const { header, records } = await readAll({ path: fixture('header-only.csv') });
    expect(header).toEqual(['customer_id', 'name', 'email']);
    expect(records).toEqual([]);
  });

  test('a column named twice is INPUT_DUPLICATE_HEADER naming it and both positions', async () => {
    const error = await sourceError({ path: fixture('duplicate-header.csv') });
    expect(error.code).toBe('INPUT_DUPLICATE_HEADER');
    expect(error.message).toContain('column "email" appears twice in the header (columns 2 and 4)');
  });

  test('an unclosed quote in the header is INPUT_BAD_HEADER', async () => {
    const error = await sourceError({ path: fixture('unclosed-quote-header.csv') });
    expect(error.code).toBe('INPUT_BAD_HEADER');
    expect(error.message).toContain('line 1');
  });

  test('header names are trimmed; unnamed columns are allowed and left out of values', async () => {
    const { header, records } = await readAll({ path: fixture('spaced-header.csv') });
    expect(header).toEqual(['customer_id', 'name', '', '']);
    expect(records[0]).toEqual({ kind: 'row', line: 2, values: { customer_id: '1', name: 'Ann' }, cells: ['1', 'Ann', 'x', 'y'] });
  });

  test('a column named __proto__ is an ordinary column', async () => {
    const path = join(dir, 'proto.csv');
    writeFileSync(path, 'customer_id,__proto__\n1,x\n');
    const { records } = await readAll({ path });
    expect(records[0]?.kind === 'row' && Object.entries(records[0].values)).toEqual([
      ['customer_id', '1'],
      ['__proto__', 'x'],
    ]);
  });

  test('close() releases the file when the records are never read', async () => {
    const source = await readSource({ path: fixture('column-count.csv') });
    await source.close();
    const records: SourceRecord[] = [];
    for await (const record of source.records) records.push(record);
    expect(records).toEqual([]);
  });

  test('breaking out of the loop stops reading', async () => {
    const source = await readSource({ path: fixture('column-count.csv') });
    const lines: number[] = [];
    for await (const record of source.records) {
      lines.push(record.line);
      break;
    }
    expect(lines).toEqual([2]);
  });
});

describe('delimiter', () => {
  test.each([
    ['bom-semicolon-crlf.csv', ';', { customer_id: '2', first_name: 'Smith; John', email: 'john@example.com', segments: '' }, 1],
    ['tab-delimited.csv', '\t', { customer_id: '1', name: 'Ann, Jr', email: 'ann@example.com' }, 0],
    ['pipe-delimited.csv', '|', { customer_id: '1', name: 'Ann; Jr', email: 'ann@example.com' }, 0],
    ['single-column.csv', ',', { customer_id: '1' }, 0],
  ])('auto detects it from the header of %s', async (name, delimiter, row, index) => {
    const result = await readAll({ path: fixture(name), delimiter: 'auto' });
    expect(result.delimiter).toBe(delimiter);
    expect(result.records[index]).toMatchObject({ kind: 'row', values: row });
  });

  test('a delimiter given is used as is', async () => {
    const result = await readAll({ path: fixture('bom-semicolon-crlf.csv'), delimiter: ',' });
    expect(result.delimiter).toBe(',');
    expect(result.header).toEqual(['customer_id;first_name;email;segments']);
  });

  test.each([
    ['a,b;c', ','],
    ['a;b;c,d', ';'],
    ['a\tb\tc', '\t'],
    ['a|b|c', '|'],
    ['"x;y;z",b', ','],
    ['name', ','],
    ['a,b;c;d|e', ';'],
    ['a;b,c', ','],
  ])('detectDelimiter(%j) is %j', (line, delimiter) => {
    expect(detectDelimiter(line)).toBe(delimiter);
  });

  test('firstLine stops at the first line break outside quotes', () => {
    expect(firstLine('"a\nb",c\r\n1,2')).toBe('"a\nb",c');
    expect(firstLine('a,b')).toBeUndefined();
  });
});
