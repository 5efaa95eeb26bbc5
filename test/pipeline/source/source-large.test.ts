import { createWriteStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readSource } from '../../../src/pipeline/source/source.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'source-large-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Writes `rows` rows; every 1000th row has a two-line note, every 997th a stray quote. */
async function writeBigCsv(path: string, rows: number): Promise<{ lastLine: number; malformed: number; lineOf: number[] }> {
  const out = createWriteStream(path);
  out.write('customer_id,name,note\r\n');
  let line = 1;
  let malformed = 0;
  let buffer = '';
  const lineOf: number[] = [];
  for (let i = 1; i <= rows; i++) {
    line++;
    lineOf[i] = line;
    if (i % 997 === 0) {
      buffer += `${i},bad"quote,x\r\n`;
      malformed++;
    } else if (i % 1000 === 0) {
      buffer += `${i},name${i},"two\r\nlines"\r\n`;
      line++;
    } else {
      buffer += `${i},name${i},note ${i}\r\n`;
    }
    if (buffer.length > 64 * 1024) {
      if (!out.write(buffer)) await once(out, 'drain');
      buffer = '';
    }
  }
  out.end(buffer);
  await once(out, 'finish');
  return { lastLine: line, malformed, lineOf };
}

test('100k rows stream through, each on its own line, with stray quotes and multi-line values among them', async () => {
  const path = join(dir, 'big.csv');
  const expected = await writeBigCsv(path, 100_000);
  const source = await readSource({ path });
  let rows = 0;
  let malformed = 0;
  let lastLine = 0;
  let lastId = '';
  const misplaced: string[] = [];
  for await (const record of source.records) {
    const id = record.kind === 'row' ? (record.values.customer_id ?? '') : (record.cells[0] ?? '');
    if (record.line !== expected.lineOf[Number(id)]) misplaced.push(`${id}@${record.line}`);
    lastLine = record.line;
    lastId = id;
    if (record.kind === 'row') rows++;
    else malformed++;
  }
  expect(misplaced).toEqual([]);
  expect(rows + malformed).toBe(100_000);
  expect(malformed).toBe(expected.malformed);
  // Row 100000 has a two-line note: its first line is the file's second-to-last line.
  expect(lastLine).toBe(expected.lastLine - 1);
  expect(lastId).toBe('100000');
  // CPU-bound: a budget for a machine busy with other work, not a pace.
}, 120_000);

test('a 1 MB value parses, quoted with line breaks or not', async () => {
  const big = 'x'.repeat(1024 * 1024);
  const quoted = `${'y'.repeat(512 * 1024)}\n"${'z'.repeat(512 * 1024)}`;
  const path = join(dir, 'wide.csv');
  writeFileSync(path, `customer_id,note\n1,${big}\n2,"${quoted.replace(/"/g, '""')}"\n3,small\n`);
  const source = await readSource({ path });
  const records = [];
  for await (const record of source.records) records.push(record);
  expect(records.map((record) => record.line)).toEqual([2, 3, 5]);
  expect(records[0]?.kind === 'row' && records[0].values.note).toBe(big);
  expect(records[1]?.kind === 'row' && records[1].values.note).toBe(quoted);
  // CPU-bound: a budget for a machine busy with other work, not a pace.
}, 120_000);

test.each([
  ['utf-8', (text: string) => Buffer.from(text, 'utf8')],
  ['utf-16le', (text: string) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')])],
])('multi-byte characters split across read chunks decode intact (%s)', async (encoding, encode) => {
  const lines = ['customer_id,name'];
  for (let i = 1; i <= 20_000; i++) lines.push(`${i},Zoë 渡辺 ${i}`);
  const path = join(dir, `chunks-${encoding}.csv`);
  writeFileSync(path, encode(`${lines.join('\n')}\n`));
  const source = await readSource({ path, encoding });
  let count = 0;
  let intact = 0;
  for await (const record of source.records) {
    count++;
    if (record.kind === 'row' && record.values.name === `Zoë 渡辺 ${record.values.customer_id}` && record.line === count + 1) intact++;
  }
  expect(count).toBe(20_000);
  expect(intact).toBe(20_000);
});
