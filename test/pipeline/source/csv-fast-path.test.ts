/**
 * The CSV reader splits quote-free buffers itself instead of writing them to csv-parse. These
 * tests hold it to giving exactly the records the same reader gives with that off (every buffer
 * through csv-parse), on random inputs cut into random chunks, and check that it is used.
 */
import { Readable } from 'node:stream';
import { readCsvBatches, type CsvReadCounts, type CsvReadOptions, type CsvRecord } from '../../../src/pipeline/source/csv-records.js';
import { seededRandom } from '../../helpers/seeded-random.js';

type Next = () => number;
const pick = <T>(next: Next, items: readonly T[]): T => items[Math.floor(next() * items.length)]!;

async function read(chunks: readonly Buffer[], options: CsvReadOptions): Promise<CsvRecord[]> {
  const records: CsvRecord[] = [];
  for await (const batch of readCsvBatches(Readable.from(chunks), options)) records.push(...batch);
  return records;
}

const EOLS = ['\n', '\r\n', '\r'];
/** Unquoted values: empty, spaces, multi-byte characters (2, 3 and 4 bytes), a tab. */
const PLAIN = ['', ' ', 'a', 'b1', 'Zoë', 'Łódź', '日本語', '😀x', 'x y', ' pad ', '\t', 'C0000001', 'u@example.com'];
/** Lines csv-parse refuses: a stray quote, text after a closing quote, a quote never closed. */
const MALFORMED = ['a"b,c', '"x"y,z', 'p,"unclosed', '"k"j', 's,t"'];
/** Bytes that are not UTF-8: the decoded text must be the same whichever way the line is read. */
const INVALID = [Buffer.from([0xff]), Buffer.from([0xe2, 0x82]), Buffer.from([0xc3]), Buffer.from([0xf0, 0x9f, 0x98])];

/** A random CSV: mostly plain rows, some quoted values and faults, blank lines, mixed line breaks. */
function randomCsv(next: Next, delimiter: string): Buffer {
  const fileEol = pick(next, EOLS);
  const mixed = next() < 0.3;
  const quoting = next() < 0.5 ? 0 : next() * 0.3;
  const parts: Buffer[] = [];
  // Now and then a longer file: more writes after each fault, and rows over maxRecordBytes cut at other places.
  const rows = Math.floor(next() * (next() < 0.1 ? 300 : 40));
  for (let r = 0; r < rows; r++) {
    const eol = mixed ? pick(next, EOLS) : fileEol;
    const kind = next();
    if (kind < 0.08) {
      parts.push(Buffer.from(''));
    } else if (kind < 0.13) {
      parts.push(Buffer.from(pick(next, [' ', '  ', '\t', ' \t '])));
    } else if (kind < 0.13 + quoting * 0.3) {
      parts.push(Buffer.from(pick(next, MALFORMED).replaceAll(',', delimiter)));
    } else {
      const columns = 1 + Math.floor(next() * 6);
      const cells: Buffer[] = [];
      for (let c = 0; c < columns; c++) {
        const roll = next();
        if (roll < quoting) {
          const inner = [pick(next, PLAIN), next() < 0.4 ? pick(next, EOLS) : '', next() < 0.3 ? '""' : '', next() < 0.3 ? delimiter : '', pick(next, PLAIN)].join('');
          cells.push(Buffer.from(`"${inner}"`));
        } else if (roll < quoting + 0.02) {
          cells.push(pick(next, INVALID));
        } else {
          cells.push(Buffer.from(pick(next, PLAIN)));
        }
      }
      parts.push(Buffer.concat(cells.flatMap((cell, i) => (i === 0 ? [cell] : [Buffer.from(delimiter), cell]))));
    }
    // The last line goes without a line break now and then.
    if (r < rows - 1 || next() < 0.7) parts.push(Buffer.from(eol));
  }
  return Buffer.concat(parts);
}

/** Cuts `bytes` into chunks of random sizes, some of one byte, some right after a CR (before its LF). */
function randomChunks(next: Next, bytes: Buffer): Buffer[] {
  const style = next();
  const size = (): number => {
    if (style < 0.15) return 1;
    if (style < 0.45) return 1 + Math.floor(next() * 9);
    if (style < 0.8) return 1 + Math.floor(next() * 120);
    return 1 + Math.floor(next() * bytes.length);
  };
  const chunks: Buffer[] = [];
  let offset = 0;
  while (offset < bytes.length) {
    let end = Math.min(bytes.length, offset + size());
    if (next() < 0.3) {
      const cr = bytes.indexOf(0x0d, offset);
      if (cr !== -1 && cr + 1 < bytes.length) end = cr + 1;
    }
    chunks.push(bytes.subarray(offset, end));
    offset = end;
  }
  return chunks;
}

test('random inputs in random chunks give the same records with the fast path as through csv-parse alone', async () => {
  const next = seededRandom(20240611);
  const totals: CsvReadCounts = { directLines: 0, parserWrites: 0 };
  let inputs = 0;
  for (let round = 0; round < 1500; round++) {
    const delimiter = pick(next, [',', ',', ',', ';', '\t']);
    const bytes = randomCsv(next, delimiter);
    const chunks = randomChunks(next, bytes);
    const limits = { maxRecordBytes: next() < 0.2 ? 24 : 4096, maxRecordLines: next() < 0.3 ? 2 : 100 };
    const expected = await read(chunks, { delimiter, ...limits, fastPath: false });
    const counts: CsvReadCounts = { directLines: 0, parserWrites: 0 };
    const got = await read(chunks, { delimiter, ...limits, counts });
    if (JSON.stringify(got) !== JSON.stringify(expected)) {
      // The input, to replay it, then the difference.
      expect({ round, text: bytes.toString('latin1'), chunks: chunks.map((chunk) => chunk.length), limits, delimiter }).toBeUndefined();
    }
    expect(got).toEqual(expected);
    totals.directLines += counts.directLines;
    totals.parserWrites += counts.parserWrites;
    inputs++;
  }
  expect(inputs).toBe(1500);
  // The fast path did most of the lines, and csv-parse still did its share.
  expect(totals.directLines).toBeGreaterThan(5_000);
  expect(totals.parserWrites).toBeGreaterThan(5_000);
  // Some seconds of work: room for a busy machine.
}, 120_000);

describe('named cases', () => {
  const lines = (count: number, from = 1): string => Array.from({ length: count }, (_, i) => `C${from + i},Name ${from + i},é${i}`).join('\r\n') + '\r\n';
  const rowsOf = (records: CsvRecord[]): Array<[number, string]> => records.map((record) => [record.line, record.cells[0]!]);

  test('a quote-free file in one chunk never reaches csv-parse', async () => {
    const counts: CsvReadCounts = { directLines: 0, parserWrites: 0 };
    const text = `id,name\n\n  \nC1,Zoë\r\nC2,,\rC3\n`;
    const records = await read([Buffer.from(text)], { delimiter: ',', counts });
    expect(records).toEqual([
      { kind: 'record', line: 1, lastLine: 1, cells: ['id', 'name'] },
      { kind: 'record', line: 4, lastLine: 4, cells: ['C1', 'Zoë'] },
      { kind: 'record', line: 5, lastLine: 5, cells: ['C2', '', ''] },
      { kind: 'record', line: 6, lastLine: 6, cells: ['C3'] },
    ]);
    expect(records).toEqual(await read([Buffer.from(text)], { delimiter: ',', fastPath: false }));
    expect(counts).toEqual({ directLines: 6, parserWrites: 0, bulkBlankLines: 1 });
  });

  test('after a chunk with a quote goes through csv-parse, the next quote-free chunks are split directly again', async () => {
    const counts: CsvReadCounts = { directLines: 0, parserWrites: 0 };
    const chunks = [lines(10), 'C11,"two\r\nlines",x\r\nC12,"a ""b""",y\r\n', lines(10, 13), lines(10, 23)].map((text) => Buffer.from(text));
    const records = await read(chunks, { delimiter: ',', counts });
    expect(records).toEqual(await read(chunks, { delimiter: ',', fastPath: false }));
    expect(rowsOf(records).slice(9, 13)).toEqual([
      [10, 'C10'],
      [11, 'C11'],
      [13, 'C12'],
      [14, 'C13'],
    ]);
    expect(records[10]).toEqual({ kind: 'record', line: 11, lastLine: 12, cells: ['C11', 'two\r\nlines', 'x'] });
    // The first 10 lines and the last 20: csv-parse wrote the quoted chunk and the first line after it, and gave out
    // none of that line (the parser keeps the end of a write back), which the reader then split itself.
    expect(counts).toEqual({ directLines: 30, parserWrites: 2 });
  });

  test('a quote-free chunk inside a quoted value still open: after one try on its first line, the rest goes to csv-parse whole', async () => {
    const counts: CsvReadCounts = { directLines: 0, parserWrites: 0 };
    const chunks = ['id,note\nC1,"starts\n', 'goes on\nand on\nand on\n', 'ends",x\nC2,y\nC3,z\n', 'C4,w\nC5,v\n'].map((text) => Buffer.from(text));
    const records = await read(chunks, { delimiter: ',', counts });
    expect(records).toEqual(await read(chunks, { delimiter: ',', fastPath: false }));
    expect(records[1]).toEqual({ kind: 'record', line: 2, lastLine: 6, cells: ['C1', 'starts\ngoes on\nand on\nand on\nends', 'x'] });
    expect(rowsOf(records).slice(2)).toEqual([
      [7, 'C2'],
      [8, 'C3'],
      [9, 'C4'],
      [10, 'C5'],
    ]);
    // The chunk with the quote, the first line of the next (a try), the rest of it, the chunk
    // that closes the quote, the first line of the last chunk (the quote closed: a try again,
    // which works); then its last line is split directly, like the line given out by the try.
    expect(counts).toEqual({ directLines: 2, parserWrites: 5 });
  });

  test('a file ending without a line break, whole and in chunks, quote-free and after a quote', async () => {
    for (const text of ['id,name\nC1,a\nC2,b', 'id,name\r\nC1,"a"\r\nC2,b', 'id,name\rC1,a\rC2,  ', 'id,name\n\nC1']) {
      const bytes = Buffer.from(text);
      const expected = await read([bytes], { delimiter: ',', fastPath: false });
      expect(await read([bytes], { delimiter: ',' })).toEqual(expected);
      for (let cut = 1; cut < bytes.length; cut++) {
        expect(await read([bytes.subarray(0, cut), bytes.subarray(cut)], { delimiter: ',' })).toEqual(expected);
      }
    }
    expect(rowsOf(await read([Buffer.from('id,name\nC1,a\nC2,b')], { delimiter: ',' }))).toEqual([
      [1, 'id'],
      [2, 'C1'],
      [3, 'C2'],
    ]);
  });

  test('a delimiter of several bytes, or not ASCII, and rows over maxRecordBytes, go to csv-parse', async () => {
    for (const delimiter of ['§', '::']) {
      const counts: CsvReadCounts = { directLines: 0, parserWrites: 0 };
      const text = `id${delimiter}name\nC1${delimiter}a\n`;
      const records = await read([Buffer.from(text)], { delimiter, counts });
      expect(records.map((record) => record.cells)).toEqual([
        ['id', 'name'],
        ['C1', 'a'],
      ]);
      expect(counts.directLines).toBe(0);
    }
    const counts: CsvReadCounts = { directLines: 0, parserWrites: 0 };
    const long = Buffer.from(`id,name\nC1,${'x'.repeat(40)}\nC2,b\n`);
    const records = await read([long], { delimiter: ',', maxRecordBytes: 32, counts });
    expect(records).toEqual(await read([long], { delimiter: ',', maxRecordBytes: 32, fastPath: false }));
    expect(records.map((record) => [record.kind, record.line])).toEqual([
      ['record', 1],
      ['fault', 2],
      ['record', 3],
    ]);
  });
});
