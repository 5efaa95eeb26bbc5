/**
 * Turns the bytes of the input file into UTF-8 bytes for the CSV parser, whatever the file's
 * encoding. UTF-8 input passes through untouched (the fast path: no decode/encode round trip);
 * other encodings go through an iconv-lite decoder, one chunk at a time, so memory stays flat.
 */
import type { ReadStream } from 'node:fs';
import iconv from 'iconv-lite';

const UTF8_LABELS = new Set(['utf-8', 'utf8']);

/** Byte order marks, longest first. A BOM is unambiguous, so it wins over the configured label. */
const BOMS: ReadonlyArray<{ bytes: readonly number[]; encoding: string }> = [
  { bytes: [0xef, 0xbb, 0xbf], encoding: 'utf-8' },
  { bytes: [0xff, 0xfe], encoding: 'utf-16le' },
  { bytes: [0xfe, 0xff], encoding: 'utf-16be' },
];

export interface DecodedInput {
  /** The encoding actually used: the BOM's when the file has one, else the configured one. */
  encoding: string;
  /** UTF-8 bytes of the file, BOM removed. */
  chunks: AsyncGenerator<Buffer, void, undefined>;
}

/** True when iconv-lite (or the UTF-8 fast path) knows the label. */
export function isKnownEncoding(label: string): boolean {
  return UTF8_LABELS.has(label.toLowerCase()) || iconv.encodingExists(label);
}

/**
 * Reads `stream` as `encoding` (a label iconv-lite knows; checked by the caller with
 * `isKnownEncoding`). The returned generator pulls from the stream only when asked, so the
 * consumer's pace is the file's pace.
 */
export async function decodeInput(stream: ReadStream, encoding: string): Promise<DecodedInput> {
  const source = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  // Enough bytes to recognise a BOM; a first chunk shorter than that only happens near EOF.
  let head: Buffer = Buffer.alloc(0);
  let ended = false;
  while (head.length < 3 && !ended) {
    const next = await source.next();
    if (next.done === true) ended = true;
    else head = head.length === 0 ? next.value : Buffer.concat([head, next.value]);
  }
  let effective = encoding;
  for (const bom of BOMS) {
    if (bom.bytes.every((byte, i) => head[i] === byte)) {
      effective = bom.encoding;
      head = head.subarray(bom.bytes.length);
      break;
    }
  }
  const passThrough = UTF8_LABELS.has(effective.toLowerCase());
  return { encoding: passThrough ? 'utf-8' : effective, chunks: passThrough ? rawChunks(head, source, ended) : decodedChunks(head, source, ended, effective) };
}

async function* rawChunks(head: Buffer, source: AsyncIterator<Buffer>, ended: boolean): AsyncGenerator<Buffer, void, undefined> {
  try {
    if (head.length > 0) yield head;
    while (!ended) {
      const next = await source.next();
      if (next.done === true) return;
      yield next.value;
    }
  } finally {
    await source.return?.();
  }
}

async function* decodedChunks(head: Buffer, source: AsyncIterator<Buffer>, ended: boolean, encoding: string): AsyncGenerator<Buffer, void, undefined> {
  // stripBOM: the BOM was already removed above; a U+FEFF later in the file is data.
  const decoder = iconv.getDecoder(encoding, { stripBOM: false });
  try {
    const first = decoder.write(head);
    if (first.length > 0) yield Buffer.from(first, 'utf8');
    while (!ended) {
      const next = await source.next();
      if (next.done === true) break;
      const text = decoder.write(next.value);
      if (text.length > 0) yield Buffer.from(text, 'utf8');
    }
    const tail = decoder.end();
    if (tail !== undefined && tail.length > 0) yield Buffer.from(tail, 'utf8');
  } finally {
    await source.return?.();
  }
}
