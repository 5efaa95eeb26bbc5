/**
 * A UTF-8 file read as windows-1252 decodes without one bad byte ("RenÃ©e"): it is caught as the
 * opposite mistake is, each such row CSV_INVALID_BYTES naming what it means, and one file-level
 * hint; real windows-1252 text is read as it is.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import iconv from 'iconv-lite';
import { readSource, type SourceOptions } from '../../../src/pipeline/source/source.js';
import { utf8MisreadCheck } from '../../../src/pipeline/source/utf8-misread.js';
import type { SourceRecord } from '../../../src/pipeline/source/source-record.js';
import { tempDir } from '../../helpers/temp-dir.js';

const dir = tempDir('contact-sync-misread-');

function write(name: string, bytes: Buffer): string {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return path;
}

async function readAll(options: SourceOptions): Promise<{ records: SourceRecord[]; hint: string | undefined }> {
  const source = await readSource(options);
  const records: SourceRecord[] = [];
  for await (const record of source.records) records.push(record);
  return { records, hint: source.encodingHint() };
}

describe('utf8MisreadCheck', () => {
  const check = utf8MisreadCheck('windows-1252')!;

  test.each([
    ['RenÃ©e', 'Renée'],
    ['MÃ¼ller', 'Müller'],
    ['SÃ£o Paulo â€“ 5â‚¬', 'São Paulo – 5€'],
  ])('%s is UTF-8 read as windows-1252: it means %s', (read, meant) => {
    expect(check(read)).toBe(meant);
  });

  test.each(['Renée', 'Müller', 'costs 5€', '“quoted”', 'plain ASCII', 'Ärger über 5 €', 'Ã', 'naïve café'])('%s is windows-1252 text as it is', (text) => {
    expect(check(text)).toBeUndefined();
  });

  test('no check for UTF-8 or encodings of several bytes a character', () => {
    expect(utf8MisreadCheck('utf-8')).toBeUndefined();
    expect(utf8MisreadCheck('utf-16le')).toBeUndefined();
    expect(utf8MisreadCheck('latin1')).toBeDefined();
  });
});

describe('a UTF-8 file with input.encoding: windows-1252', () => {
  test('each row holding UTF-8 letters is CSV_INVALID_BYTES naming the value and what it means; the others are read; one hint', async () => {
    const path = write('utf8.csv', Buffer.from('customer_id,name\r\nC1,Renée\r\nC2,Ann\r\nC3,Müller\r\n', 'utf8'));
    const { records, hint } = await readAll({ path, encoding: 'windows-1252', label: 'customers.csv' });
    expect(records.map((record) => (record.kind === 'row' ? record.values.name : record.code))).toEqual(['CSV_INVALID_BYTES', 'Ann', 'CSV_INVALID_BYTES']);
    expect(records[0]).toMatchObject({
      message: 'line 2, column "name": "RenÃ©e" is UTF-8 text read as windows-1252 (it means "Renée"); set input.encoding: utf-8 if the file was saved as UTF-8, or fix the value',
    });
    expect(hint).toBe(
      'customers.csv: this file looks like UTF-8, not windows-1252 (2 rows hold UTF-8\'s two-byte letters, such as "Ã©" for "é"); set input.encoding: utf-8, or save the file as windows-1252',
    );
  });

  test('a header holding UTF-8 letters stops the file (INPUT_ENCODING)', async () => {
    const path = write('utf8-header.csv', Buffer.from('customer_id,prénom\nC1,Ann\n', 'utf8'));
    const error = await readSource({ path, encoding: 'windows-1252', label: 'customers.csv' }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({
      code: 'INPUT_ENCODING',
      message: 'customers.csv: the header reads "prÃ©nom" for "prénom": the file is UTF-8, read as windows-1252; set input.encoding: utf-8, or save the file as windows-1252',
    });
  });

  test('a real windows-1252 file is read as it is, with no hint', async () => {
    const path = write('cp1252.csv', iconv.encode('customer_id,name\r\nC1,Renée\r\nC2,Müller – 5€\r\n', 'windows-1252'));
    const { records, hint } = await readAll({ path, encoding: 'windows-1252' });
    expect(records.map((record) => (record.kind === 'row' ? record.values.name : record.code))).toEqual(['Renée', 'Müller – 5€']);
    expect(hint).toBeUndefined();
  });
});
