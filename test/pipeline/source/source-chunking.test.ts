import { Readable } from 'node:stream';
import { readCsvBatches, type CsvRecord } from '../../../src/pipeline/source/csv-records.js';
import { seededRandom } from '../../helpers/seeded-random.js';

function chunked(bytes: Buffer, sizes: () => number): Readable {
  const chunks: Buffer[] = [];
  for (let offset = 0; offset < bytes.length; ) {
    const size = Math.max(1, sizes());
    chunks.push(bytes.subarray(offset, offset + size));
    offset += size;
  }
  return Readable.from(chunks);
}

async function parse(input: AsyncIterable<Buffer>, maxRecordLines = 100): Promise<CsvRecord[]> {
  const records: CsvRecord[] = [];
  for await (const batch of readCsvBatches(input, { delimiter: ',', maxRecordLines, maxRecordBytes: 4096 })) records.push(...batch);
  return records;
}

const EOLS = ['\n', '\r\n', '\r'];

/** A CSV of well-formed rows with known first lines, and its expected records. */
function wellFormed(next: () => number): { text: string; expected: Array<{ line: number; cells: string[] }> } {
  const eol = EOLS[Math.floor(next() * EOLS.length)]!;
  const expected: Array<{ line: number; cells: string[] }> = [];
  let text = '';
  let line = 1;
  const rows = 1 + Math.floor(next() * 30);
  for (let r = 0; r < rows; r++) {
    while (next() < 0.2) {
      text += eol;
      line++;
    }
    const cells: string[] = [];
    const encoded: string[] = [];
    for (let c = 0; c < 3; c++) {
      const kind = next();
      if (kind < 0.5) {
        const value = `v${r}${c}`;
        cells.push(value);
        encoded.push(value);
      } else {
        const breaks = Math.floor(next() * 3);
        const value = [`q${r}`, ...Array.from({ length: breaks }, (_, b) => (next() < 0.3 ? '' : `x"${b}`))].join(eol);
        cells.push(value);
        encoded.push(`"${value.replace(/"/g, '""')}"`);
      }
    }
    expected.push({ line, cells });
    text += encoded.join(',');
    line += cells.reduce((sum, cell) => sum + (cell.split(eol).length - 1), 0);
    if (r < rows - 1 || next() < 0.5) {
      text += eol;
      line++;
    }
  }
  return { text, expected };
}

test('well-formed rows come out on their physical lines, however the bytes are chunked', async () => {
  const next = seededRandom(42);
  for (let round = 0; round < 150; round++) {
    const { text, expected } = wellFormed(next);
    const bytes = Buffer.from(text);
    const records = await parse(chunked(bytes, () => Math.ceil(next() * 9)));
    expect(records).toEqual(expected.map(({ line, cells }) => ({ kind: 'record', line, lastLine: expect.any(Number), cells })));
  }
});

test('rows with faults give the same records whole or in chunks of a few bytes', async () => {
  const next = seededRandom(7);
  const pieces = ['a,b,c', '"x\ny",z,w', '', 'p,"unclosed,q', 's,t"u,v', '"k"j,l,m', '"""",2,3', 'e,"f\r\ng",h', '1,2'];
  for (let round = 0; round < 150; round++) {
    const eol = EOLS[Math.floor(next() * EOLS.length)]!;
    const count = 1 + Math.floor(next() * 15);
    const text = Array.from({ length: count }, () => pieces[Math.floor(next() * pieces.length)]!).join(eol);
    const bytes = Buffer.from(text);
    const whole = await parse(chunked(bytes, () => bytes.length), 3);
    const inChunks = await parse(chunked(bytes, () => Math.ceil(next() * 5)), 3);
    expect(inChunks).toEqual(whole);
    // Lines only go forward, and every line with content is accounted for by some record.
    const lines = whole.map((record) => record.line);
    expect([...lines].sort((a, b) => a - b)).toEqual(lines);
    expect(new Set(lines).size).toBe(lines.length);
  }
});

test('a write cut after a fault that lands between CR CR and LF does not shift the lines after it', async () => {
  // Line 1 is a fault: the reader then writes 256 bytes, cut at the first CR of CR CR LF. A quote
  // opened in the next write and refused in the one after must be found on its own line.
  const text = ['a"b', ...Array<string>(128).fill('x')].join('\n') + '\r\r\n' + Array<string>(250).fill('y\n').join('') + 'k,"open more"x,1\ne,f\n';
  // Through csv-parse alone: the fast path would split the quote-free replay itself, without the cut.
  for (const fastPath of [false, true]) {
    const records: CsvRecord[] = [];
    for await (const batch of readCsvBatches(Readable.from([Buffer.from(text)]), { delimiter: ',', fastPath })) records.push(...batch);
    expect(records.slice(-2).map((record) => [record.kind, record.line, record.cells])).toEqual([
      ['fault', 381, ['k', 'open morex', '1']],
      ['record', 382, ['e', 'f']],
    ]);
  }
});

test('a row over maxRecordBytes is the same fault whether or not its end was read when the parser refused it', async () => {
  // Read whole, the line's end is there when the size is refused; in chunks of 10 bytes it is not.
  // Either way the fault is what its first maxRecordBytes bytes hold: a quote still open there.
  const bytes = Buffer.from(`id,name\n1,"${'x'.repeat(30)}",b\n2,c\n`);
  for (const fastPath of [false, true]) {
    for (const size of [bytes.length, 10]) {
      const chunks = Array.from({ length: Math.ceil(bytes.length / size) }, (_, i) => bytes.subarray(i * size, (i + 1) * size));
      const records: CsvRecord[] = [];
      for await (const batch of readCsvBatches(Readable.from(chunks), { delimiter: ',', maxRecordBytes: 24, fastPath })) records.push(...batch);
      expect(records.map((record) => [record.line, record.kind === 'fault' ? record.code : record.kind, record.cells])).toEqual([
        [1, 'record', ['id', 'name']],
        [2, 'CSV_UNCLOSED_QUOTE', ['1', 'x'.repeat(21)]],
        [3, 'record', ['2', 'c']],
      ]);
    }
  }
});
