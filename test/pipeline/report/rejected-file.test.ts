/**
 * rejected.csv is fed back through the job's own `input:` settings: written in the input's
 * encoding, BOM, delimiter, Excel `sep=` line and line ends, with the input's own columns once,
 * it reads back to the same values, generation after generation.
 */
import { V1_SURFACE } from '../../../src/api/v1/surface.js';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import iconv from 'iconv-lite';
import { failedResult } from '../../../src/pipeline/row/row-result.js';
import { ReportWriter } from '../../../src/pipeline/report/report.js';
import { readSource, type SourceOptions } from '../../../src/pipeline/source/source.js';
import type { RowResult } from '../../../src/pipeline/report/row-outcome.js';
import { tempDir } from '../../helpers/temp-dir.js';

const dir = tempDir('contact-sync-rejected-');
let files = 0;

/** Reads `path`, fails every row into a rejected.csv; returns that file's path and the rows read. */
async function rejectAll(options: SourceOptions, result: (line: number, cells: string[]) => RowResult = (line, cells) => failedResult(line, cells[0] ?? '', cells, 'INVALID_EMAIL', `line ${line}: the email is not an address`)) {
  const source = await readSource(options);
  const report = new ReportWriter(join(dir, `r${++files}`), 'job', { header: source.header, layout: source.layout }, V1_SURFACE);
  const rows: Array<Record<string, string>> = [];
  for await (const record of source.records) {
    if (record.kind !== 'row') continue;
    rows.push({ ...record.values });
    report.add(result(record.line, record.cells));
  }
  expect(report.closeRows()).toBeUndefined();
  return { path: report.paths.rejected, header: source.header, rows };
}

async function readRows(options: SourceOptions): Promise<{ header: string[]; rows: Array<Record<string, string>> }> {
  const source = await readSource(options);
  const rows: Array<Record<string, string>> = [];
  for await (const record of source.records) if (record.kind === 'row') rows.push({ ...record.values });
  return { header: source.header, rows };
}

function write(name: string, bytes: Buffer | string): string {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return path;
}

const withoutErrors = (row: Record<string, string>): Record<string, string> => Object.fromEntries(Object.entries(row).filter(([name]) => name !== 'error_code' && name !== 'error_message'));

describe('rejected.csv as bytes', () => {
  test.each<[string, Buffer, string]>([
    ['UTF-8, LF', Buffer.from('customer_id,name,note\nC1,Renée,"a, b"\nC2,Müller,"say ""hi"""\n', 'utf8'), 'utf-8'],
    ['UTF-8 with a BOM, CRLF', Buffer.from('\uFEFFcustomer_id,name,note\r\nC1,Renée,x\r\nC2,Zoë,y\r\n', 'utf8'), 'utf-8'],
    ['windows-1252, CRLF', iconv.encode('customer_id,name,note\r\nC1,Renée,costs 5€\r\nC2,Müller,“quoted”\r\n', 'windows-1252'), 'windows-1252'],
    ['latin1, semicolons, CR', iconv.encode('customer_id;name;note\rC1;José;Besançon\rC2;Zoë;a;b\r', 'latin1'), 'latin1'],
    ['UTF-16LE with a BOM, tabs', iconv.encode('customer_id\tname\tnote\r\nC1\t渡辺\tx\r\nC2\tZoë\ty\r\n', 'utf-16le', { addBOM: true }), 'utf-16le'],
    ["Excel's sep= line", Buffer.from('sep=;\r\ncustomer_id;name;note\r\nC1;Renée;"a;b"\r\n', 'utf8'), 'utf-8'],
  ])('%s: written in the input\'s encoding, BOM, delimiter and line ends, and read back to the same values', async (what, bytes, encoding) => {
    const input = write(`input-${files}.csv`, bytes);
    const first = await rejectAll({ path: input, encoding });
    const written = readFileSync(first.path);
    const back = await readRows({ path: first.path, encoding });
    expect(back.header).toEqual([...first.header, 'error_code', 'error_message']);
    expect(back.rows.map(withoutErrors)).toEqual(first.rows);
    expect(back.rows.map((row) => row.error_code)).toEqual(first.rows.map(() => 'INVALID_EMAIL'));
    const lineEnd = what.includes('CRLF') || what.includes('sep=') || what.includes('UTF-16') ? '\r\n' : what.includes(', CR') ? '\r' : '\n';
    const text = iconv.decode(written, encoding === 'utf-16le' ? 'utf-16le' : encoding, { stripBOM: false });
    expect(text.split(lineEnd).length).toBe(first.rows.length + (what.includes('sep=') ? 3 : 2));
    expect(written.subarray(0, 3).equals(bytes.subarray(0, 3))).toBe(true);
  });

  test('the windows-1252 file holds windows-1252 bytes: é is one byte, never UTF-8\'s two', async () => {
    const input = write('cp1252.csv', iconv.encode('customer_id,name\r\nC1,Renée\r\n', 'windows-1252'));
    const { path } = await rejectAll({ path: input, encoding: 'windows-1252' });
    expect(readFileSync(path).toString('latin1')).toBe('customer_id,name,error_code,error_message\r\nC1,Ren\u00e9e,INVALID_EMAIL,line 2: the email is not an address\r\n');
  });
});

describe('rejected.csv fed back, generation after generation', () => {
  test('the error columns of a fed-back file are replaced, never repeated, and the values stay the same', async () => {
    const input = write('gen0.csv', iconv.encode('customer_id,name,email\r\nC1,Renée,bad\r\nC2,Müller,also bad\r\n', 'windows-1252'));
    const gen1 = await rejectAll({ path: input, encoding: 'windows-1252' });
    const gen2 = await rejectAll({ path: gen1.path, encoding: 'windows-1252' }, (line, cells) => failedResult(line, cells[0] ?? '', cells, 'INVALID_PHONE', 'second'));
    const gen3 = await rejectAll({ path: gen2.path, encoding: 'windows-1252' });
    const back = await readRows({ path: gen3.path, encoding: 'windows-1252' });
    expect(back.header).toEqual(['customer_id', 'name', 'email', 'error_code', 'error_message']);
    expect(back.rows.map(withoutErrors)).toEqual([
      { customer_id: 'C1', name: 'Renée', email: 'bad' },
      { customer_id: 'C2', name: 'Müller', email: 'also bad' },
    ]);
    // Each generation's own reason, not the one before.
    expect(gen3.rows.map((row) => row.error_code)).toEqual(['INVALID_PHONE', 'INVALID_PHONE']);
    expect(readFileSync(gen3.path)).toEqual(readFileSync(gen1.path));
  });

  test('a rejected file of an earlier version, its error columns twice, is read (they are ignored) and written with them once', async () => {
    const input = write('twice.csv', 'customer_id,name,error_code,error_message,error_code,error_message\nC1,Ann,INVALID_EMAIL,old,INVALID_EMAIL,older\n');
    const gen = await rejectAll({ path: input });
    expect(readFileSync(gen.path, 'utf8')).toBe('customer_id,name,error_code,error_message\nC1,Ann,INVALID_EMAIL,line 2: the email is not an address\n');
  });

  test('cells beyond the header follow the error columns and are quoted in the message, so nothing is lost', async () => {
    const input = write('extra.csv', 'customer_id,name\nC1,Ann\n');
    const gen = await rejectAll({ path: input }, (line) => failedResult(line, 'C1', ['C1', 'Ann', 'extra'], 'CSV_COLUMN_COUNT', 'line 2: 3 values'));
    expect(readFileSync(gen.path, 'utf8')).toBe('customer_id,name,error_code,error_message\nC1,Ann,CSV_COLUMN_COUNT,"line 2: 3 values (cells beyond the header: [""extra""])",extra\n');
  });

  test('a row that failed for a cause outside its data (ABORTED, INVALID_TOKEN) is not in rejected.csv', async () => {
    const input = write('abort.csv', 'customer_id,name\nC1,Ann\nC2,Bob\nC3,Cy\n');
    const codes = ['INVALID_TOKEN', 'ABORTED', 'INVALID_EMAIL'] as const;
    const gen = await rejectAll({ path: input }, (line, cells) => failedResult(line, cells[0] ?? '', cells, codes[line - 2] ?? 'ABORTED', 'why'));
    expect(readFileSync(gen.path, 'utf8')).toBe('customer_id,name,error_code,error_message\nC3,Cy,INVALID_EMAIL,why\n');
  });
});
