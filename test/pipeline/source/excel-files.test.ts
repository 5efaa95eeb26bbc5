/** What Excel leaves in a "CSV": a `sep=;` first line, or a workbook saved under a .csv name. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readSource } from '../../../src/pipeline/source/source.js';
import type { SourceRecord } from '../../../src/pipeline/source/source-record.js';
import { tempDir } from '../../helpers/temp-dir.js';

function file(content: string | Buffer): string {
  const path = join(tempDir('excel-'), 'export.csv');
  writeFileSync(path, content);
  return path;
}

async function rows(path: string, delimiter = 'auto'): Promise<{ header: string[]; headerLine: number; delimiter: string; records: SourceRecord[] }> {
  const source = await readSource({ path, delimiter });
  const records: SourceRecord[] = [];
  for await (const record of source.records) records.push(record);
  return { header: source.header, headerLine: source.headerLine, delimiter: source.delimiter, records };
}

describe('Excel files', () => {
  it('a sep=; first line names the delimiter and is not the header; line numbers stay the file\'s', async () => {
    const read = await rows(file('sep=;\r\ncustomer_id;name\r\nC1;Ann, Lee\r\nC2;Bob\r\n'));
    expect(read.delimiter).toBe(';');
    expect(read.header).toEqual(['customer_id', 'name']);
    expect(read.headerLine).toBe(2);
    expect(read.records.map((record) => [record.line, record.kind === 'row' ? record.values : record.code])).toEqual([
      [3, { customer_id: 'C1', name: 'Ann, Lee' }],
      [4, { customer_id: 'C2', name: 'Bob' }],
    ]);
  });

  it('a sep= line that contradicts input.delimiter is an error naming both', async () => {
    await expect(rows(file('sep=;\ncustomer_id,name\n'), ',')).rejects.toThrow(/line 1 says sep=; \(Excel's delimiter line\) but input\.delimiter is ","; remove input\.delimiter, or set it to ";"/);
  });

  it.each([
    ['an xlsx (zip) workbook', Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, 0x06, 0x00, 0x08, 0x00])],
    ['an old xls workbook', Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0x00, 0x00])],
  ])('%s named .csv is recognised: "export it as CSV", not an encoding hint', async (_name, bytes) => {
    await expect(rows(file(bytes))).rejects.toThrow(/this is an Excel \(or other zip\) file, not a CSV, whatever its name; open it in the spreadsheet and save it as "CSV UTF-8"/);
  });
});
