/**
 * Turns the bytes of the input file into UTF-8 bytes for the CSV parser, whatever the file's
 * encoding. UTF-8 input passes through untouched (the fast path: no decode/encode round trip);
 * other encodings go through an iconv-lite decoder, one chunk at a time, so memory stays flat.
 */
import { isUtf8 } from 'node:buffer';
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
  /** The file starts with a byte order mark (removed from `chunks`). */
  bom: boolean;
  /** UTF-8 bytes of the file, BOM removed. */
  chunks: AsyncGenerator<Buffer, void, undefined>;
  /**
   * Read as UTF-8, a file that is not: the encoding it looks like, from the bytes read so far.
   * Undefined when it is valid UTF-8, was read in another encoding, or the evidence is thin.
   */
  looksLike(): 'windows-1252' | undefined;
}

/**
 * What the bytes that are not UTF-8 look like. In a windows-1252 (or latin1) file an accented
 * letter or a curly quote is one byte of 0x80 to 0xFF between ASCII bytes (`caf\xe9`); in a
 * damaged UTF-8 file the bad bytes come in runs. Most lone high bytes: windows-1252.
 */
export class EncodingEvidence {
  lone = 0;
  runs = 0;

  /** Counts a chunk's runs of bytes of 0x80 and up, when the chunk is not valid UTF-8. */
  observe(chunk: Buffer): void {
    if (isUtf8(chunk)) return;
    let i = 0;
    while (i < chunk.length) {
      if (chunk[i]! < 0x80) {
        i++;
        continue;
      }
      const start = i;
      while (i < chunk.length && chunk[i]! >= 0x80) i++;
      const run = chunk.subarray(start, i);
      // A run that is itself valid UTF-8 (an é written right) is not evidence either way.
      if (isUtf8(run)) continue;
      if (run.length === 1) this.lone++;
      else this.runs++;
    }
  }

  looksLike(): 'windows-1252' | undefined {
    return this.lone > 0 && this.lone >= this.runs ? 'windows-1252' : undefined;
  }
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
export async function decodeInput(stream: AsyncIterable<Buffer>, encoding: string): Promise<DecodedInput> {
  const source = stream[Symbol.asyncIterator]();
  // Enough bytes to recognise a BOM; a first chunk shorter than that only happens near EOF.
  let head: Buffer = Buffer.alloc(0);
  let ended = false;
  while (head.length < 3 && !ended) {
    const next = await source.next();
    if (next.done === true) ended = true;
    else head = head.length === 0 ? next.value : Buffer.concat([head, next.value]);
  }
  let effective = encoding;
  let hasBom = false;
  for (const bom of BOMS) {
    if (bom.bytes.every((byte, i) => head[i] === byte)) {
      effective = bom.encoding;
      head = head.subarray(bom.bytes.length);
      hasBom = true;
      break;
    }
  }
  const passThrough = UTF8_LABELS.has(effective.toLowerCase());
  if (!passThrough) return { encoding: effective, bom: hasBom, chunks: decodedChunks(head, source, ended, effective), looksLike: () => undefined };
  const evidence = new EncodingEvidence();
  return { encoding: 'utf-8', bom: hasBom, chunks: rawChunks(head, source, ended, evidence), looksLike: () => evidence.looksLike() };
}

async function* rawChunks(head: Buffer, source: AsyncIterator<Buffer>, ended: boolean, evidence: EncodingEvidence): AsyncGenerator<Buffer, void, undefined> {
  try {
    if (head.length > 0) {
      evidence.observe(head);
      yield head;
    }
    while (!ended) {
      const next = await source.next();
      if (next.done === true) return;
      evidence.observe(next.value);
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
