/**
 * The source stage: a CSV file -> its header, then its rows as a stream of `SourceRecord`s.
 *
 * `readSource` resolves once the header is read, so the job can check it before any API call;
 * the records come after, one at a time, as the consumer asks (flat memory, whatever the size).
 * Rows the file gets wrong (a quote, the column count, bytes that are not text) become
 * `MalformedRow`s with their line, and reading goes on. Only problems with the file as a whole
 * throw a `SourceError`.
 *
 * Lines are physical: the header is line 1 (when nothing precedes it), a row's line is the line
 * its first value is on, a quoted value with line breaks makes its row span several lines and
 * does not shift the numbering of the next rows. Blank lines are skipped but counted.
 */
import { open, stat, type FileHandle } from 'node:fs/promises';
import type { MalformedRow, SourceRecord, SourceRow } from './source-record.js';
import { readCsvBatches, type CsvRecord } from './csv-records.js';
import { inputBytes, isGzip, namedGzip } from './input-bytes.js';
import { decodeInput, isKnownEncoding, type DecodedInput } from './decode.js';
import { detectDelimiter, firstLine } from './delimiter-detect.js';
import { isErrorColumn } from './error-columns.js';
import { firstLineEnd, type InputLayout, type LineEnd } from './input-layout.js';
import { SourceError } from './source-error.js';
import { utf8MisreadCheck } from './utf8-misread.js';

/** Bytes read from a file at a time. */
const READ_CHUNK_BYTES = 64 * 1024;
/** How much of the file `auto` reads, at most, to find the end of the header line. */
const DELIMITER_SAMPLE_BYTES = 1024 * 1024;
/**
 * Four NUL bytes in a row: no text holds them, UTF-16 read as UTF-8 included (it has one NUL
 * beside each ASCII letter, two at most where a character's byte is 00), unless it holds NUL
 * characters; a binary file or one filled with zeros does.
 */
const NUL_RUN = Buffer.alloc(4);
/**
 * U+FFFD is what a decoder puts in place of bytes that are not valid in the encoding; NUL is never
 * text. (A U+FFFD written in the file as valid UTF-8 is refused too: it means text was lost before.)
 */
// eslint-disable-next-line no-control-regex -- NUL is exactly what this looks for
const INVALID_TEXT = /[\u0000\uFFFD]/;

export interface SourceOptions {
  /** Path of the CSV file (already resolved), plain or gzipped. */
  readonly path: string;
  /** How error messages name the input (`standard input` for `--input -`). @default path */
  readonly label?: string;
  /** One character, or `auto` to detect `,` `;` tab `|` from the header line. @default 'auto' */
  readonly delimiter?: string;
  /**
   * A label iconv-lite knows (utf-8, latin1, windows-1252, utf-16le...). A byte order mark at the
   * start of the file overrides it. @default 'utf-8'
   */
  readonly encoding?: string;
  /** Largest row, in bytes; a longer one is a malformed row. @default 8 MiB */
  readonly maxRecordBytes?: number;
  /** Most line breaks inside one row's quoted values before it counts as an unclosed quote. @default 100 */
  readonly maxRecordLines?: number;
}

export interface Source {
  /** Column names in file order, trimmed, BOM removed. An empty name is allowed (and unusable). */
  header: string[];
  /** Physical line of the header: 1 unless blank lines precede it. */
  headerLine: number;
  /** The delimiter used (detected or given). */
  delimiter: string;
  /** The encoding used: `utf-8`, the configured label, or the one a BOM named. */
  encoding: string;
  /** The file's layout as bytes (encoding, BOM, delimiter, line ends): rejected.csv is written with it. */
  layout: InputLayout;
  /** The data rows, read as iterated. Iterate once. Breaking out of the loop closes the file. */
  records: AsyncIterable<SourceRecord>;
  /** Closes the file when the records will not be read to the end (e.g. the header check failed). */
  close(): Promise<void>;
  /**
   * Once the rows are read: when rows failed with CSV_INVALID_BYTES and the file looks like
   * windows-1252 (read as UTF-8), or like UTF-8 (read as a one-byte encoding), the one file-level
   * advice to set input.encoding; undefined otherwise.
   */
  encodingHint(): string | undefined;
}

export async function readSource(options: SourceOptions): Promise<Source> {
  const file = options.label ?? options.path;
  const encoding = options.encoding ?? 'utf-8';
  if (!isKnownEncoding(encoding)) {
    throw new SourceError('INPUT_ENCODING', file, `${file}: encoding ${JSON.stringify(encoding)} is not known; set input.encoding to a label such as utf-8, windows-1252, latin1 or utf-16le`);
  }
  const handle = await openInput(options.path, file);
  const gzip = await inspectHead(options.path, file, handle);
  let decoded: DecodedInput;
  try {
    decoded = await decodeInput(inputBytes(handle, gzip, READ_CHUNK_BYTES), encoding);
  } catch (error) {
    await handle.close().catch(() => undefined);
    throw unreadable(file, error);
  }
  let csv: AsyncGenerator<CsvRecord[], void, undefined> | undefined;
  try {
    const excel = await excelSeparatorLine(file, decoded.chunks, options.delimiter ?? 'auto');
    const sample = await sampleHeader(file, excel.chunks, excel.delimiter);
    csv = readCsvBatches(sample.chunks, { delimiter: sample.delimiter, maxRecordBytes: options.maxRecordBytes, maxRecordLines: options.maxRecordLines });
    const first = await csv.next();
    const firstBatch = first.done === true ? [] : first.value;
    const misread = utf8Misreads(decoded.encoding);
    const { header, line } = checkHeaderRecord(file, decoded.encoding, firstBatch[0], misread);
    const records = dataRecords(file, header, firstBatch.slice(1), csv, misread);
    return {
      header,
      headerLine: line,
      delimiter: sample.delimiter,
      encoding: decoded.encoding,
      layout: { encoding: decoded.encoding, bom: decoded.bom, delimiter: sample.delimiter, lineEnd: sample.lineEnd, separatorLine: excel.separatorLine },
      records,
      encodingHint: () => {
        if (misread !== undefined && misread.rows > 0) {
          const rows = misread.rows === 1 ? '1 row holds' : `${misread.rows} rows hold`;
          return `${file}: this file looks like UTF-8, not ${decoded.encoding} (${rows} UTF-8's two-byte letters, such as "Ã©" for "é"); set input.encoding: utf-8, or save the file as ${decoded.encoding}`;
        }
        const looksLike = decoded.looksLike();
        return looksLike === undefined
          ? undefined
          : `${file}: this file looks like ${looksLike}, not UTF-8 (its bad bytes are single accented letters or quotes); set input.encoding: ${looksLike}`;
      },
      close: async () => {
        // A generator never started skips its `finally`: close the reader underneath too.
        await records.return(undefined);
        await csv?.return(undefined);
      },
    };
  } catch (error) {
    await (csv ?? decoded.chunks).return(undefined).catch(() => undefined);
    throw error instanceof SourceError ? error : unreadable(file, error);
  }
}

async function openInput(path: string, file: string): Promise<FileHandle> {
  try {
    const stats = await stat(path);
    if (stats.isDirectory()) {
      throw new SourceError('INPUT_IS_DIRECTORY', file, `${file}: is a folder, not a file; set input.path to the CSV file`);
    }
    // A pipe or a device here would block a worker thread for ever or never end (the CLI saves a
    // pipe first and refuses a device: cli/input-override.ts); the reads below seek.
    if (!stats.isFile()) {
      throw new SourceError('INPUT_UNREADABLE', file, `${file}: is not a regular file (a pipe, a device or a socket); save the export to a file, or pipe it in with --input -`);
    }
    return await open(path, 'r');
  } catch (error) {
    if (error instanceof SourceError) throw error;
    if (isErrnoException(error) && error.code === 'ENOENT') {
      throw new SourceError('INPUT_NOT_FOUND', file, `${file}: the input file does not exist; check input.path (a relative path is resolved from the folder of the jobs file)`, { cause: error });
    }
    throw unreadable(file, error);
  }
}

function unreadable(file: string, error: unknown): SourceError {
  // zlib's codes (Z_BUF_ERROR, Z_DATA_ERROR): the gzip data itself is damaged or cut short (a copy that did not finish).
  if (isErrnoException(error) && error.code?.startsWith('Z_') === true) {
    return new SourceError('INPUT_UNREADABLE', file, `${file}: the gzip data is damaged or cut short (${error.message}); compress the export again, or check that its copy finished`, { cause: error });
  }
  const reason = isErrnoException(error) ? (error.code ?? error.message) : error instanceof Error ? error.message : String(error);
  return new SourceError('INPUT_UNREADABLE', file, `${file}: the input file cannot be read (${reason}); check that it exists and that this user may read it`, { cause: error });
}

/** Duck-typed: errors from another realm (a test VM) fail `instanceof Error`. */
function isErrnoException(error: unknown): error is NodeJS.ErrnoException {
  return typeof error === 'object' && error !== null && 'code' in error && 'message' in error;
}

/**
 * The delimiter (given, or detected from the header line) and the input with the bytes read to
 * find it put back in front.
 */
/** Zip (xlsx, ods) and the old OLE2 .xls: a spreadsheet, not a CSV, whatever its name. */
const SPREADSHEET_SIGNATURES: ReadonlyArray<readonly number[]> = [
  [0x50, 0x4b, 0x03, 0x04],
  [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1],
];

/**
 * The file's first bytes: a spreadsheet is refused, and gzip is recognised (true: read through
 * gunzip). A `.gz` name on a file that is not gzip is refused rather than read as text.
 */
async function inspectHead(path: string, file: string, handle: FileHandle): Promise<boolean> {
  const buffer = Buffer.alloc(8);
  const { bytesRead } = await handle.read(buffer, 0, 8, 0);
  const head = buffer.subarray(0, bytesRead);
  if (isGzip(head)) return true;
  if (namedGzip(path)) {
    await handle.close();
    throw new SourceError('INPUT_UNREADABLE', file, `${file}: the name ends in .gz but the file is not gzip (it does not start with gzip's bytes 1f 8b); compress it with gzip, or drop the .gz from its name`);
  }
  if (SPREADSHEET_SIGNATURES.some((signature) => signature.every((byte, i) => head[i] === byte))) {
    await handle.close();
    throw new SourceError(
      'INPUT_NOT_CSV',
      file,
      `${file}: this is an Excel (or other zip) file, not a CSV, whatever its name; open it in the spreadsheet and save it as "CSV UTF-8", then point input.path at that file`,
    );
  }
  return false;
}

/**
 * Excel's `sep=;` first line names the delimiter: it is honoured and read as a blank line (so the
 * header is line 2 and every line number stays the file's own). A delimiter set in jobs.yaml that
 * says otherwise is an error naming both.
 */
async function excelSeparatorLine(
  file: string,
  chunks: AsyncGenerator<Buffer, void, undefined>,
  delimiter: string,
): Promise<{ delimiter: string; separatorLine: boolean; chunks: AsyncGenerator<Buffer, void, undefined> }> {
  const head: Buffer[] = [];
  let bytes = 0;
  while (bytes < 8) {
    const next = await chunks.next();
    if (next.done === true) break;
    head.push(next.value);
    bytes += next.value.length;
  }
  const joined = Buffer.concat(head);
  const match = /^sep=(.)(?=\r?\n|$)/.exec(joined.subarray(0, 16).toString('utf8'));
  if (match === null) return { delimiter, separatorLine: false, chunks: prepend(head, chunks) };
  const named = match[1]!;
  if (delimiter !== 'auto' && delimiter !== named) {
    await chunks.return(undefined);
    throw new SourceError(
      'INPUT_BAD_HEADER',
      file,
      `${file}: line 1 says sep=${named} (Excel's delimiter line) but input.delimiter is ${JSON.stringify(delimiter)}; remove input.delimiter, or set it to ${JSON.stringify(named)}`,
    );
  }
  return { delimiter: named, separatorLine: true, chunks: prepend([joined.subarray(Buffer.byteLength(match[0]))], chunks) };
}

/**
 * The first line of the file, read ahead and put back: its line end (rejected.csv is written with
 * the file's own) and, with `auto`, the delimiter of the header line.
 */
async function sampleHeader(
  file: string,
  chunks: AsyncGenerator<Buffer, void, undefined>,
  delimiter: string,
): Promise<{ delimiter: string; lineEnd: LineEnd; chunks: AsyncGenerator<Buffer, void, undefined> }> {
  const sample: Buffer[] = [];
  let sampleBytes = 0;
  let lineEnd: LineEnd | undefined;
  let headerLine: string | undefined;
  while ((lineEnd === undefined || headerLine === undefined) && sampleBytes < DELIMITER_SAMPLE_BYTES) {
    const next = await chunks.next();
    if (next.done === true) break;
    if (next.value.includes(NUL_RUN)) {
      await chunks.return(undefined);
      throw new SourceError(
        'INPUT_NOT_CSV',
        file,
        `${file}: is not text, so not a CSV: its start holds NUL bytes in a row (a binary file, a disk image, or a file a crash or a full disk filled with zeros); point input.path at the CSV export, or export it again`,
      );
    }
    sample.push(next.value);
    sampleBytes += next.value.length;
    const text = Buffer.concat(sample).toString('utf8');
    lineEnd = firstLineEnd(text);
    // Blank lines before the header do not count as the header line.
    headerLine = firstLine(text.replace(/^[\r\n]+/, ''));
  }
  const text = Buffer.concat(sample).toString('utf8');
  // A file of one line has no line end of its own: LF, as the other reports. A CR that ends the file is a line end.
  lineEnd ??= text.endsWith('\r') ? '\r' : '\n';
  headerLine ??= text.replace(/^[\r\n]+/, '');
  return { delimiter: delimiter === 'auto' ? detectDelimiter(headerLine) : delimiter, lineEnd, chunks: prepend(sample, chunks) };
}

async function* prepend(head: readonly Buffer[], rest: AsyncGenerator<Buffer, void, undefined>): AsyncGenerator<Buffer, void, undefined> {
  try {
    yield* head;
    yield* rest;
  } finally {
    await rest.return(undefined);
  }
}

/** The one-byte encoding's check for UTF-8 text read in it, and the rows it failed. */
interface Utf8Misreads {
  readonly check: (text: string) => string | undefined;
  readonly encoding: string;
  rows: number;
}

function utf8Misreads(encoding: string): Utf8Misreads | undefined {
  const check = utf8MisreadCheck(encoding);
  return check === undefined ? undefined : { check, encoding, rows: 0 };
}

function checkHeaderRecord(file: string, encoding: string, record: CsvRecord | undefined, misread: Utf8Misreads | undefined): { header: string[]; line: number } {
  if (record === undefined) {
    throw new SourceError('INPUT_EMPTY', file, `${file}: the file is empty; it needs a header line naming the columns (e.g. customer_id,email)`);
  }
  if (record.kind === 'fault') {
    const problem = record.code === 'CSV_UNCLOSED_QUOTE' ? 'a quote opened in it is not closed' : 'a quote in it is misplaced';
    throw new SourceError('INPUT_BAD_HEADER', file, `${file}: the header (line ${record.line}) cannot be read: ${problem}; fix the header line (column names need no quotes)`);
  }
  const header = record.cells.map((name, index) => (index === 0 ? name.replace(/^\uFEFF/, '') : name).trim());
  if (header.some((name) => name.includes('\u0000'))) {
    throw new SourceError('INPUT_ENCODING', file, `${file}: the header holds NUL bytes, so the file is probably UTF-16 without a byte order mark; set input.encoding to utf-16le (or utf-16be)`);
  }
  if (header.some((name) => name.includes('\uFFFD'))) {
    throw new SourceError('INPUT_ENCODING', file, `${file}: the header holds bytes that are not valid ${encoding}; set input.encoding to the encoding the file was saved in (e.g. windows-1252 or latin1)`);
  }
  const misreadName = misread === undefined ? undefined : header.find((name) => misread.check(name) !== undefined);
  if (misreadName !== undefined) {
    const meant = misread?.check(misreadName) ?? '';
    throw new SourceError(
      'INPUT_ENCODING',
      file,
      `${file}: the header reads ${JSON.stringify(misreadName)} for ${JSON.stringify(meant)}: the file is UTF-8, read as ${encoding}; set input.encoding: utf-8, or save the file as ${encoding}`,
    );
  }
  const seen = new Map<string, number>();
  header.forEach((name, index) => {
    // A rejected file of an earlier version repeats the error columns; they are ignored anyway.
    if (name === '' || isErrorColumn(name)) return;
    const earlier = seen.get(name);
    if (earlier !== undefined) {
      throw new SourceError('INPUT_DUPLICATE_HEADER', file, `${file}: column ${JSON.stringify(name)} appears twice in the header (columns ${earlier + 1} and ${index + 1}); rename or remove one of them`);
    }
    seen.set(name, index);
  });
  return { header, line: record.line };
}

async function* dataRecords(
  file: string,
  header: readonly string[],
  firstBatch: readonly CsvRecord[],
  csv: AsyncGenerator<CsvRecord[], void, undefined>,
  misread: Utf8Misreads | undefined,
): AsyncGenerator<SourceRecord, void, undefined> {
  // A column named __proto__ would be lost on a plain object; only then pay for null-prototype ones.
  const newValues = header.includes('__proto__') ? () => Object.create(null) as Record<string, string> : () => ({}) as Record<string, string>;
  try {
    for (const record of firstBatch) yield toSourceRecord(record, header, newValues, misread);
    for (;;) {
      let next: IteratorResult<CsvRecord[], void>;
      try {
        next = await csv.next();
      } catch (error) {
        throw unreadable(file, error);
      }
      if (next.done === true) return;
      for (const record of next.value) yield toSourceRecord(record, header, newValues, misread);
    }
  } finally {
    await csv.return(undefined);
  }
}

function toSourceRecord(record: CsvRecord, header: readonly string[], newValues: () => Record<string, string>, misread: Utf8Misreads | undefined): SourceRecord {
  if (record.kind === 'fault') {
    const row: MalformedRow = { kind: 'malformed', line: record.line, code: record.code, message: record.message, cells: record.cells };
    if (record.openQuote !== undefined) row.openQuote = record.openQuote;
    return row;
  }
  const { line, cells } = record;
  if (cells.length !== header.length) {
    const span = record.lastLine > line ? ` (it spans lines ${line}-${record.lastLine}: a quoted value holds line breaks; check for a quote that is not closed)` : '';
    const values = cells.length === 1 ? '1 value' : `${cells.length} values`;
    return malformed(line, 'CSV_COLUMN_COUNT', `line ${line}: ${values} but the header has ${header.length} columns${span}; quote values that contain the delimiter, and check for a missing or extra delimiter`, cells);
  }
  const values = newValues();
  for (let i = 0; i < cells.length; i++) {
    const cell = cells[i]!;
    const name = header[i]!;
    if (INVALID_TEXT.test(cell)) {
      const what = cell.includes('\u0000') ? 'a NUL byte' : 'bytes that are not valid text in the encoding of the file (shown as \uFFFD)';
      return malformed(line, 'CSV_INVALID_BYTES', `line ${line}, column ${JSON.stringify(name)}: ${what}; fix the value, or set input.encoding to the encoding the file was saved in`, cells);
    }
    // UTF-8 read as a one-byte encoding decodes without a bad byte: written, it would be "RenÃ©e".
    const meant = misread?.check(cell);
    if (meant !== undefined && misread !== undefined) {
      misread.rows++;
      return malformed(
        line,
        'CSV_INVALID_BYTES',
        `line ${line}, column ${JSON.stringify(name)}: ${JSON.stringify(cell)} is UTF-8 text read as ${misread.encoding} (it means ${JSON.stringify(meant)}); set input.encoding: utf-8 if the file was saved as UTF-8, or fix the value`,
        cells,
      );
    }
    if (name !== '') values[name] = cell;
  }
  const row: SourceRow = { kind: 'row', line, values, cells };
  return row;
}

function malformed(line: number, code: MalformedRow['code'], message: string, cells: string[]): MalformedRow {
  return { kind: 'malformed', line, code, message, cells };
}
