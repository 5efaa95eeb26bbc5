/**
 * Records of a CSV byte stream, each with the PHYSICAL line it starts on, and a way past rows the
 * parser refuses. Built on csv-parse (strict quotes), driven one buffer at a time so memory stays
 * flat and the consumer's pace is the file's pace.
 *
 * Line numbers. csv-parse's `info.lines` is the line where a record ENDS, and it counts a CRLF
 * inside a quoted value twice. So the reader counts for itself: blank lines are NOT skipped by
 * the parser (they come out as one empty value and are dropped here), so every record starts on
 * the line after the previous record's last line, and a record's last line is its first line plus
 * the line breaks inside its values. A line break is CRLF, LF or a lone CR, everywhere.
 *
 * Malformed rows. On any parse error (a stray quote, a quoted value followed by other characters,
 * a quote never closed, a record over `maxRecordBytes`) and on a quoted value spanning more than
 * `maxRecordLines` lines (a quote that was "closed" by a later row's quote), the record becomes a
 * fault at its first line L (with what can be read of its first `maxRecordBytes` bytes) and
 * reading starts again, with a fresh parser, at line L + 1. To do that the reader keeps the bytes
 * written since the start of the record in progress: bounded by the record size limit plus one
 * buffer. After a fault the next writes are small and grow again, so a file with a fault on every
 * row costs a bounded amount of re-parsing per fault.
 *
 * Quote-free chunks. Where no quote can be, a CSV line is its values joined by the delimiter, so
 * a buffer without a quote byte is split directly (decoded once, cut at line breaks, each line at
 * the delimiter): the same records as csv-parse, much faster, held equal by a property test. That
 * needs the parser to hold nothing of an unfinished record. A new parser holds nothing; one that
 * has been written to always holds its last line, since csv-parse keeps the last bytes of a write
 * back to see what follows them (a CR may be half of a CRLF). So after a write the reader checks
 * whether every line but the last is given out and that last line is whole and quote-free: then
 * the parser is at the start of that line, and the reader gives it out itself and goes on with a
 * new parser, splitting directly again. The incomplete last line of a directly split buffer is
 * kept and put in front of the next one. A buffer with a quote, longer than `maxRecordBytes`, or
 * without a line break, and the first write after a fault, go to csv-parse.
 */
import { once } from 'node:events';
import { Parser, type CsvError } from 'csv-parse';
import { splitLine } from './line-split.js';

const LF = 0x0a;
const CR = 0x0d;
const QUOTE = 0x22;
const LINE_BREAK = /\r\n|\n|\r/;
/** Bytes written after a fault; doubles on every clean write. */
const MIN_WRITE_BYTES = 256;
const MAX_WRITE_BYTES = 1 << 20;

/** Records larger than this are refused (a quote left open would otherwise read the whole file). */
export const DEFAULT_MAX_RECORD_BYTES = 8 * 1024 * 1024;
/** A quoted value over more lines than this is taken for a quote that is not closed. */
export const DEFAULT_MAX_RECORD_LINES = 100;

export type CsvFaultCode = 'CSV_UNCLOSED_QUOTE' | 'CSV_MALFORMED';

export type CsvRecord =
  | {
      kind: 'record';
      /** Physical line of the record's first line. */
      line: number;
      /** Physical line of its last line (differs when a quoted value holds line breaks). */
      lastLine: number;
      cells: string[];
    }
  | {
      kind: 'fault';
      line: number;
      code: CsvFaultCode;
      message: string;
      /** The record's first line, split leniently: what could be read. */
      cells: string[];
      /** An unclosed quote's: its first line from the quote on, as written (`SplitLine.openTail`). */
      openQuote?: string;
    };

export interface CsvReadOptions {
  /** One character. */
  readonly delimiter: string;
  /** Largest record, in bytes (roughly: csv-parse counts characters of finished values). @default 8 MiB */
  readonly maxRecordBytes?: number;
  /** Most line breaks inside one record before it is taken for an unclosed quote. @default 100 */
  readonly maxRecordLines?: number;
  /**
   * Split quote-free buffers directly instead of through csv-parse (same records). Only tests
   * turn it off, to compare the two. @default true
   */
  readonly fastPath?: boolean;
  /** For tests: counts of what went which way, added to as the input is read. */
  readonly counts?: CsvReadCounts;
}

export interface CsvReadCounts {
  /** Lines given out without csv-parse (blank ones included). */
  directLines: number;
  /** Writes to csv-parse. */
  parserWrites: number;
  /** Blank lines passed over in bulk, byte by byte, without being split (counted in `directLines` too). */
  bulkBlankLines?: number;
}

/**
 * Reads `input` (UTF-8 bytes, no BOM) as CSV. The first record is the header, like any other.
 * Records come in batches (those of one write), in file order: one await per batch, not per row.
 */
export async function* readCsvBatches(input: AsyncIterable<Buffer>, options: CsvReadOptions): AsyncGenerator<CsvRecord[], void, undefined> {
  const reader = new RecordReader(input[Symbol.asyncIterator](), options);
  try {
    yield* reader.batches();
  } finally {
    await reader.close();
  }
}

type FaultCause = { kind: 'parse'; error: CsvError } | { kind: 'lines'; breaks: number };

/** One csv-parse instance, written synchronously and drained after each write. */
class ParserSegment {
  private readonly parser: Parser;
  /** The first error csv-parse reported, and how many records it had pushed before it. */
  fault: { error: CsvError; recordsBefore: number } | undefined;
  /** An error csv-parse did not route to `on_skip` (none is known); rethrown, never swallowed. */
  private failure: Error | undefined;

  constructor(delimiter: string, maxRecordBytes: number) {
    this.parser = new Parser({
      delimiter,
      quote: '"',
      escape: '"',
      record_delimiter: ['\r\n', '\n', '\r'],
      bom: false,
      relax_column_count: true,
      relax_quotes: false,
      skip_empty_lines: false,
      skip_records_with_error: true,
      max_record_size: maxRecordBytes,
      on_skip: (error) => {
        if (this.fault === undefined && error !== undefined) this.fault = { error, recordsBefore: this.parser.readableLength };
        return undefined;
      },
    });
    this.parser.on('error', (error: Error) => (this.failure ??= error));
  }

  /** csv-parse parses inside `write` (a Transform calls `_transform` at once when idle). */
  write(chunk: Buffer): string[][] {
    this.parser.write(chunk);
    if (this.failure !== undefined) throw this.failure;
    return this.drain();
  }

  async end(): Promise<string[][]> {
    const finished = once(this.parser, 'finish');
    this.parser.end();
    await finished;
    if (this.failure !== undefined) throw this.failure;
    return this.drain();
  }

  destroy(): void {
    this.parser.destroy();
  }

  private drain(): string[][] {
    const limit = this.fault?.recordsBefore ?? Number.POSITIVE_INFINITY;
    const records: string[][] = [];
    while (records.length < limit) {
      const record = this.parser.read() as string[] | null;
      if (record === null) break;
      records.push(record);
    }
    return records;
  }
}

class RecordReader {
  private readonly delimiter: string;
  private readonly maxRecordBytes: number;
  private readonly maxRecordLines: number;
  /** Quote-free buffers may be split directly: on, and the delimiter is one ASCII byte. */
  private readonly fastPath: boolean;
  private readonly counts: CsvReadCounts | undefined;
  /**
   * The next bytes may be split directly: `segment` has been written nothing since it was made at
   * the start of a record. (After a fault it is new too, but its first write goes to csv-parse.)
   */
  private direct: boolean;
  /** The incomplete last line of the last buffer split directly: no line break, no quote, not counted in `nextLine`. */
  private lineTail: Buffer | undefined;
  /** The bytes written to `segment` end with a line break (or none are written). */
  private writtenEndsAtBreak = true;
  /**
   * A try to leave the parser found it inside a quoted value: quote-free bytes cannot end that
   * value, so no more tries (each a write cut short) until a write holds a quote.
   */
  private inQuotes = false;
  /** Bytes to read before the source: the rest of a sliced buffer, or a replay after a fault. */
  private readonly pending: Buffer[] = [];
  /** A CR held back from the end of the last buffer, so no write ends between CR and LF. */
  private carry: Buffer | undefined;
  private sourceDone = false;
  private segment: ParserSegment;
  /** Buffers written to `segment`, from the start of the record in progress on. */
  private retained: Array<{ bytes: Buffer; startLine: number }> = [];
  /** Line of the next byte written. */
  private nextLine = 1;
  /** Last line of the last record (or fault) given out. */
  private lastEndLine = 0;
  private writeBytes = MAX_WRITE_BYTES;
  /** After a fault whose line was not complete yet: the rest of that line is dropped. */
  private skipping: { line: number; cause: FaultCause; head: Buffer[]; headBytes: number } | undefined;
  private out: CsvRecord[] = [];

  constructor(
    private readonly source: AsyncIterator<Buffer>,
    options: CsvReadOptions,
  ) {
    this.delimiter = options.delimiter;
    this.maxRecordBytes = options.maxRecordBytes ?? DEFAULT_MAX_RECORD_BYTES;
    this.maxRecordLines = options.maxRecordLines ?? DEFAULT_MAX_RECORD_LINES;
    const delimiterCode = this.delimiter.length === 1 ? this.delimiter.charCodeAt(0) : -1;
    this.fastPath = options.fastPath !== false && delimiterCode > 0 && delimiterCode < 0x80 && delimiterCode !== QUOTE && delimiterCode !== LF && delimiterCode !== CR;
    this.counts = options.counts;
    this.direct = this.fastPath;
    this.segment = new ParserSegment(this.delimiter, this.maxRecordBytes);
  }

  async *batches(): AsyncGenerator<CsvRecord[], void, undefined> {
    for (;;) {
      const chunk = await this.nextBuffer();
      if (chunk === undefined) {
        if (this.lineTail !== undefined) {
          // The last line, without a line break: csv-parse reads it, and then the end.
          this.pending.push(this.lineTail);
          this.lineTail = undefined;
          continue;
        }
        if (this.skipping !== undefined) this.finishSkip();
        const segment = this.segment;
        this.accept(await segment.end());
        if (this.out.length > 0) yield this.takeOut();
        // A fault at the end (an unclosed quote) restarted the reader: go on with its replay.
        if (this.segment === segment) return;
        continue;
      }
      this.feed(chunk);
      if (this.out.length > 0) yield this.takeOut();
    }
  }

  async close(): Promise<void> {
    this.segment.destroy();
    await this.source.return?.();
  }

  private takeOut(): CsvRecord[] {
    const out = this.out;
    this.out = [];
    return out;
  }

  /** The next bytes to parse; never ends with a CR unless it is the last byte of the input. */
  private async nextBuffer(): Promise<Buffer | undefined> {
    for (;;) {
      let chunk = this.pending.shift();
      if (chunk === undefined && !this.sourceDone) {
        const next = await this.source.next();
        if (next.done === true) this.sourceDone = true;
        else chunk = next.value;
      }
      if (chunk === undefined) {
        const last = this.carry;
        this.carry = undefined;
        return last;
      }
      if (this.carry !== undefined) {
        chunk = Buffer.concat([this.carry, chunk]);
        this.carry = undefined;
      }
      if (chunk[chunk.length - 1] === CR) {
        this.carry = chunk.subarray(chunk.length - 1);
        chunk = chunk.subarray(0, chunk.length - 1);
      }
      if (chunk.length > 0) return chunk;
    }
  }

  /** Puts bytes back in front of the input (before a held-back CR, which follows them). */
  private pushBack(bytes: Buffer): void {
    if (this.carry !== undefined) {
      this.pending.unshift(this.carry);
      this.carry = undefined;
    }
    this.pending.unshift(bytes);
  }

  private feed(input: Buffer): void {
    let chunk = input;
    if (this.lineTail !== undefined) {
      chunk = Buffer.concat([this.lineTail, chunk]);
      this.lineTail = undefined;
    }
    // The parser holds nothing: a quote-free buffer is split here.
    if (this.direct && this.splitDirectly(chunk)) return;
    if (this.skipping !== undefined) {
      const lineBreak = findLineBreak(chunk, 0);
      if (lineBreak === undefined) {
        this.keepSkipped(chunk);
        return;
      }
      this.keepSkipped(chunk.subarray(0, lineBreak.start));
      this.finishSkip();
      chunk = chunk.subarray(lineBreak.end);
      if (chunk.length === 0) return;
    }
    if (chunk.length > this.writeBytes) {
      let cut = this.writeBytes;
      // Never between a CR and its LF (a CR before another CR is a line break of its own).
      if (chunk[cut - 1] === CR && chunk[cut] === LF) cut++;
      if (cut < chunk.length) {
        this.pushBack(chunk.subarray(cut));
        chunk = chunk.subarray(0, cut);
      }
    }
    if (this.inQuotes && chunk.indexOf(QUOTE) !== -1) this.inQuotes = false;
    const lastLine = this.fastPath && !this.direct && !this.inQuotes ? this.cutAtQuoteFreeLine(chunk) : undefined;
    if (lastLine !== undefined && lastLine.end < chunk.length) {
      this.pushBack(chunk.subarray(lastLine.end));
      chunk = chunk.subarray(0, lastLine.end);
    }
    this.retained.push({ bytes: chunk, startLine: this.nextLine });
    this.nextLine += countLineBreaks(chunk);
    this.writtenEndsAtBreak = chunk[chunk.length - 1] === LF || chunk[chunk.length - 1] === CR;
    this.direct = false;
    const segment = this.segment;
    if (this.counts !== undefined) this.counts.parserWrites++;
    this.accept(segment.write(chunk));
    if (this.segment !== segment) return;
    // Keep only the buffers from the one holding the start of the record in progress.
    const firstOpenLine = this.lastEndLine + 1;
    while (this.retained.length >= 2 && this.retained[1]!.startLine < firstOpenLine) this.retained.shift();
    this.writeBytes = Math.min(MAX_WRITE_BYTES, this.writeBytes * 2);
    if (!this.fastPath) return;
    if (this.writtenEndsAtBreak && this.lastEndLine + 1 === this.nextLine) {
      // Every line written is given out: the parser is between records.
      this.newParser();
    } else if (lastLine !== undefined && this.lastEndLine + 2 === this.nextLine) {
      // Every line but the last is given out, and the last is whole and quote-free: the parser
      // is at its start. It is given out here, as csv-parse would give it, and a new parser follows.
      this.newParser();
      this.splitLines(chunk.toString('utf8', lastLine.start, lastLine.end), this.nextLine - 1);
    } else if (lastLine !== undefined) {
      // The line break before that line is inside a quoted value (else the record before ends there).
      this.inQuotes = true;
    }
  }

  /**
   * Splits the complete lines of a quote-free `chunk` (the parser holding nothing) and keeps its
   * incomplete last line for the next; false, having done nothing, when csv-parse must read it.
   */
  private splitDirectly(chunk: Buffer): boolean {
    if (chunk.length > this.maxRecordBytes || chunk.indexOf(QUOTE) !== -1) return false;
    const end = Math.max(chunk.lastIndexOf(LF), chunk.lastIndexOf(CR)) + 1;
    // No complete line: csv-parse takes it (a line longer than a buffer is not copied again and again).
    if (end === 0) return false;
    // Runs of blank lines (a file padded with millions of them) are passed over byte by byte,
    // never decoded or split; the lines between them are split as usual.
    const crlf = chunk.indexOf(CR) !== -1;
    let from = this.skipBlankLines(chunk, 0, end);
    while (from < end) {
      const until = nextBlankRun(chunk, from, end, crlf);
      this.splitLines(chunk.toString('utf8', from, until), this.nextLine);
      from = this.skipBlankLines(chunk, until, end);
    }
    if (end < chunk.length) this.lineTail = chunk.subarray(end);
    this.writeBytes = Math.min(MAX_WRITE_BYTES, this.writeBytes * 2);
    return true;
  }

  /**
   * Passes over the empty lines of `chunk` from `from` (the start of a line) on, counting them as
   * `splitLines` would; returns where the first line with content starts (or `end`).
   */
  private skipBlankLines(chunk: Buffer, from: number, end: number): number {
    let at = from;
    let breaks = 0;
    while (at < end) {
      const byte = chunk[at];
      if (byte === LF) breaks++;
      else if (byte === CR) {
        if (chunk[at + 1] !== LF) breaks++;
      } else break;
      at++;
    }
    if (breaks === 0) return at;
    this.nextLine += breaks;
    this.lastEndLine = this.nextLine - 1;
    if (this.counts !== undefined) {
      this.counts.directLines += breaks;
      this.counts.bulkBlankLines = (this.counts.bulkBlankLines ?? 0) + breaks;
    }
    return at;
  }

  /**
   * Gives out the lines of `text` (which ends with a line break), the first on `firstLine`, as
   * csv-parse and `accept` would: a line is its values between delimiters, and a line of one
   * blank value is dropped but counted.
   */
  private splitLines(text: string, firstLine: number): void {
    const lines = text.indexOf('\r') === -1 ? text.split('\n') : text.split(LINE_BREAK);
    // The text ends with a line break: the last piece is the empty string after it.
    const count = lines.length - 1;
    for (let i = 0; i < count; i++) {
      const cells = lines[i]!.split(this.delimiter);
      if (cells.length === 1 && cells[0]!.trim() === '') continue;
      this.out.push({ kind: 'record', line: firstLine + i, lastLine: firstLine + i, cells });
    }
    this.nextLine = firstLine + count;
    this.lastEndLine = this.nextLine - 1;
    if (this.counts !== undefined) this.counts.directLines += count;
  }

  /**
   * For a parser that may hold part of a record: when `chunk` is quote-free, where its first
   * whole line with content ends (whole: it starts after a line break), so that a write up to
   * there may leave the parser at that line's start. Undefined when there is no such line.
   */
  private cutAtQuoteFreeLine(chunk: Buffer): { start: number; end: number } | undefined {
    if (chunk.length > this.maxRecordBytes || chunk.indexOf(QUOTE) !== -1) return undefined;
    let atLineStart = this.writtenEndsAtBreak;
    let from = 0;
    for (;;) {
      const lineBreak = findLineBreak(chunk, from);
      if (lineBreak === undefined) return undefined;
      // A line with content: csv-parse's look-ahead then stops inside it, past the line break before it.
      if (atLineStart && lineBreak.start > from) return { start: from, end: lineBreak.end };
      atLineStart = true;
      from = lineBreak.end;
    }
  }

  /** A new parser, at the start of a record: the next bytes may be split directly. */
  private newParser(): void {
    this.segment.destroy();
    this.segment = new ParserSegment(this.delimiter, this.maxRecordBytes);
    this.retained = [];
    this.writtenEndsAtBreak = true;
    this.inQuotes = false;
    this.direct = true;
  }

  private accept(records: string[][]): void {
    for (const cells of records) {
      const line = this.lastEndLine + 1;
      const breaks = countCellLineBreaks(cells);
      if (breaks > this.maxRecordLines) {
        this.restart(line, { kind: 'lines', breaks });
        return;
      }
      this.lastEndLine = line + breaks;
      // A blank (or blank-looking) line: csv-parse gives it as one empty value.
      if (cells.length === 1 && cells[0]!.trim() === '') continue;
      this.out.push({ kind: 'record', line, lastLine: line + breaks, cells });
    }
    const fault = this.segment.fault;
    if (fault !== undefined) this.restart(this.lastEndLine + 1, { kind: 'parse', error: fault.error });
  }

  /** The record starting on `line` is a fault; parsing starts again on `line + 1`. */
  private restart(line: number, cause: FaultCause): void {
    this.segment.destroy();
    this.segment = new ParserSegment(this.delimiter, this.maxRecordBytes);
    this.direct = false;
    this.writtenEndsAtBreak = true;
    this.inQuotes = false;
    this.writeBytes = MIN_WRITE_BYTES;
    const bytes = Buffer.concat(this.retained.map((buffer) => buffer.bytes));
    const firstLine = this.retained[0]?.startLine ?? this.nextLine;
    this.retained = [];
    this.lastEndLine = line;
    this.nextLine = line + 1;
    const start = offsetOfLine(bytes, firstLine, line);
    const lineBreak = findLineBreak(bytes, start);
    if (lineBreak === undefined) {
      // The line goes on past what was read: drop the rest of it as it comes.
      this.skipping = { line, cause, head: [], headBytes: 0 };
      this.keepSkipped(bytes.subarray(start));
      return;
    }
    // At most maxRecordBytes of it, as when its end is not read yet: the same fault wherever the writes ended.
    this.out.push(this.fault(line, cause, bytes.subarray(start, Math.min(lineBreak.start, start + this.maxRecordBytes))));
    if (lineBreak.end < bytes.length) this.pushBack(bytes.subarray(lineBreak.end));
  }

  private keepSkipped(bytes: Buffer): void {
    const skipping = this.skipping!;
    const room = this.maxRecordBytes - skipping.headBytes;
    if (room <= 0 || bytes.length === 0) return;
    const kept = bytes.subarray(0, room);
    skipping.head.push(kept);
    skipping.headBytes += kept.length;
  }

  private finishSkip(): void {
    const skipping = this.skipping!;
    this.skipping = undefined;
    this.out.push(this.fault(skipping.line, skipping.cause, Buffer.concat(skipping.head)));
  }

  private fault(line: number, cause: FaultCause, firstLineBytes: Buffer): CsvRecord {
    const split = splitLine(firstLineBytes.toString('utf8'), this.delimiter);
    const resumed = `reading went on at line ${line + 1}`;
    const doubleQuotes = 'double a quote that is part of a value and quote the whole value, e.g. "John ""JJ"" Smith"';
    const unclosed = (how: string): CsvRecord => ({
      kind: 'fault',
      line,
      code: 'CSV_UNCLOSED_QUOTE',
      message: `line ${line}: a quote opened on this line is not closed (${how}); ${resumed}. Close the quote, or ${doubleQuotes}`,
      cells: split.cells,
      ...(split.openTail === undefined ? {} : { openQuote: split.openTail }),
    });
    const malformed = (what: string, fix: string): CsvRecord => ({
      kind: 'fault',
      line,
      code: 'CSV_MALFORMED',
      message: `line ${line}: ${what}; ${fix}`,
      cells: split.cells,
    });
    if (cause.kind === 'lines') {
      return unclosed(`the quoted value runs over ${cause.breaks + 1} lines, more than the ${this.maxRecordLines + 1} allowed`);
    }
    const code = cause.error.code;
    if (code === 'CSV_QUOTE_NOT_CLOSED') return unclosed('the file ends inside it');
    if (code === 'CSV_INVALID_CLOSING_QUOTE') {
      if (split.quoteOpen) return unclosed('a later quote ends it in the middle of a value');
      return malformed('a quoted value is followed by other characters before the next delimiter', doubleQuotes);
    }
    if (code === 'CSV_MAX_RECORD_SIZE') {
      if (split.quoteOpen) return unclosed(`the value runs past ${this.maxRecordBytes} bytes`);
      return malformed(`the row is longer than ${this.maxRecordBytes} bytes`, 'split the row or shorten its values');
    }
    if (code === 'INVALID_OPENING_QUOTE') return malformed('a quote inside a value that does not start with a quote', doubleQuotes);
    return malformed(`the row cannot be parsed (${code})`, 'check its quotes and delimiters');
  }
}

/**
 * Where the lines with content from `from` (a line start) end: just past the line break before
 * the first blank line after them, or `end`. `crlf`: the chunk holds a CR.
 */
function nextBlankRun(chunk: Buffer, from: number, end: number, crlf: boolean): number {
  let until = end;
  const lf = chunk.indexOf('\n\n', from);
  if (lf !== -1 && lf + 1 < until) until = lf + 1;
  if (crlf) {
    const crlfs = chunk.indexOf('\r\n\r\n', from);
    if (crlfs !== -1 && crlfs + 2 < until) until = crlfs + 2;
    const crs = chunk.indexOf('\r\r', from);
    if (crs !== -1 && crs + 1 < until) until = crs + 1;
  }
  return until;
}

/** Where the line break at or after `from` starts and ends, or undefined when there is none. */
function findLineBreak(bytes: Buffer, from: number): { start: number; end: number } | undefined {
  const lf = bytes.indexOf(LF, from);
  const crSearchEnd = lf === -1 ? bytes.length : lf;
  const cr = bytes.subarray(0, crSearchEnd).indexOf(CR, from);
  if (cr !== -1) return { start: cr, end: bytes[cr + 1] === LF ? cr + 2 : cr + 1 };
  if (lf !== -1) return { start: lf, end: lf + 1 };
  return undefined;
}

/** Offset of the start of `line` in `bytes`, whose first byte is on `firstLine`. */
function offsetOfLine(bytes: Buffer, firstLine: number, line: number): number {
  let offset = 0;
  for (let current = firstLine; current < line; current++) {
    const lineBreak = findLineBreak(bytes, offset);
    if (lineBreak === undefined) return bytes.length;
    offset = lineBreak.end;
  }
  return offset;
}

/** Line breaks in a buffer that does not end between a CR and its LF. */
function countLineBreaks(bytes: Buffer): number {
  let count = 0;
  for (let i = bytes.indexOf(LF); i !== -1; i = bytes.indexOf(LF, i + 1)) count++;
  for (let i = bytes.indexOf(CR); i !== -1; i = bytes.indexOf(CR, i + 1)) {
    if (bytes[i + 1] !== LF) count++;
  }
  return count;
}

function countCellLineBreaks(cells: readonly string[]): number {
  let count = 0;
  for (const cell of cells) {
    if (cell.indexOf('\n') === -1 && cell.indexOf('\r') === -1) continue;
    for (let i = 0; i < cell.length; i++) {
      const char = cell.charCodeAt(i);
      if (char === LF || (char === CR && cell.charCodeAt(i + 1) !== LF)) count++;
    }
  }
  return count;
}
