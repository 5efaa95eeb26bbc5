/**
 * The reporter: results.csv, rejected.csv and summary.json (the contract in docs/reports.md and docs/architecture.md). Rows are
 * appended as they finish and flushed often, so a killed run leaves valid partial files; files are
 * readable by their owner only, since they hold customer data.
 */
import { closeSync, ftruncateSync, mkdirSync, writeSync } from 'node:fs';
import type { InputLayout } from '../source/input-layout.js';
import { failedRowColumns, type FailedRowColumns } from './failed-row-columns.js';
import { failureCause } from './failure-cause.js';
import { CHANGES_CSV, inputCsvFormat, REPORT_CSV, type CsvFormat } from './input-csv-format.js';
import type { CsvCell } from './csv-line.js';
import { spreadsheetSafe } from './spreadsheet-safe.js';
import type { ChangeLine, RowResult } from './row-outcome.js';
import { renderHtmlReport } from './html-report.js';
import { RunDigest } from './run-digest.js';
import { NO_MASK, type Masker } from './mask.js';
import type { CallLimits, Operation } from '../row/plan.js';
import { reportPaths, type JobSummary, type ReportPaths } from './job-summary.js';
import type { PaceLimit } from '../real-run-estimate.js';
import { ContactSyncError } from '../../failure/contact-sync-error.js';
import { createReplacingFile, NotRegularFileError, OWNER_ONLY, writeFileAtomically } from '../../safe-file.js';

/** What the run report shows beyond the summary: the pace of the calls. */
export interface RunPace {
  /** Requests started in each minute of the run. */
  callsPerMinute: readonly number[];
  /** The budgets the calls went at (summary.json `limits`): the chart's limit line is the contact calls'. */
  limits: readonly PaceLimit[];
}

export const RESULT_COLUMNS = [
  'line',
  'key',
  'outcome',
  'contact_id',
  'fields_changed',
  'tags_added',
  'tags_removed',
  'api_calls',
  'error_code',
  'error_message',
  'message_status',
  'message_error',
  'fields_skipped',
  'warnings',
] as const;

/** `<job>.changes.csv`: one line per field a row changes (or would, in a dry run), and one for its tags (docs/reports.md). */
export const CHANGE_COLUMNS = ['key', 'contact_id', 'field', 'platform_value', 'file_value'] as const;

/** Bytes buffered before a write to disk; a timer flushes sooner when rows come slowly. */
const FLUSH_BYTES = 32 * 1024;
const FLUSH_INTERVAL_MS = 250;

/**
 * What to do when a report file cannot be written, in one place for every message that says it
 * (the job's abort, the CLI's failure); docs/reports.md's `REPORT_WRITE_FAILED` line says the same
 * (`code-help.ts`).
 */
export const REPORT_WRITE_FIX = "free space on the report folder's disk (or choose another with --report-dir), then run again";

/**
 * The fix of one report write failure, by its cause (issue 42): free space for a full disk (and
 * any cause not known), but a refusal of what is at the report's name (a symbolic link, a folder:
 * never written through) is removed, and a folder that may not be written is made writable.
 */
export function reportWriteFix(cause: unknown): string {
  const code = (cause as { code?: unknown } | undefined)?.code;
  if (cause instanceof NotRegularFileError || code === 'ELOOP' || code === 'EISDIR') return 'remove what is at that name (a report is never written through a link or into a folder), or choose another folder with --report-dir, then run again';
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') return 'make the report folder writable by this user (or choose another with --report-dir), then run again';
  return REPORT_WRITE_FIX;
}

/** A report file could not be written (a full disk, a lost mount): the job stops (REPORT_WRITE_FAILED). */
export class ReportWriteError extends ContactSyncError<'REPORT_WRITE_FAILED'> {
  override readonly name = 'ReportWriteError';
  readonly code = 'REPORT_WRITE_FAILED';
  constructor(
    readonly path: string,
    readonly systemCode: string,
    options?: { cause?: unknown },
  ) {
    super(`the report ${path} could not be written (${systemCode})`, options);
  }

  /** What to do about it, by its cause (`reportWriteFix`). */
  get fix(): string {
    return reportWriteFix(this.cause ?? { code: this.systemCode });
  }

  get context(): Readonly<Record<string, unknown>> {
    return { path: this.path, systemCode: this.systemCode };
  }
}

/**
 * Runs a report write; the ReportWriteError it threw, if any, is returned (the caller turns it into
 * the job's abort), anything else is thrown.
 */
export function reportWriteFailure(write: () => void): ReportWriteError | undefined {
  try {
    write();
    return undefined;
  } catch (error) {
    if (error instanceof ReportWriteError) return error;
    throw error;
  }
}

function systemCodeOf(error: unknown): string {
  if (error instanceof NotRegularFileError) return `${error.kind} is at that name, not a file: remove it`;
  return (error as NodeJS.ErrnoException | undefined)?.code ?? (error instanceof Error ? error.message : String(error));
}

/**
 * Report files flushed together, by one timer and when any of them has a batch: a row's lines in
 * results.csv, rejected.csv and changes.csv reach the disk back to back, so a run killed at any
 * moment leaves the files agreeing (but for the instant between two writes), never a row in one
 * and not in the other for a whole flush interval.
 */
export class CsvFlushGroup {
  readonly #files: CsvFile[] = [];
  readonly #timer: NodeJS.Timeout;

  constructor() {
    this.#timer = setInterval(() => this.flush(), FLUSH_INTERVAL_MS);
    this.#timer.unref();
  }

  add(file: CsvFile): void {
    this.#files.push(file);
  }

  flush(): void {
    for (const file of this.#files) file.flush();
  }

  close(): void {
    clearInterval(this.#timer);
  }
}

/**
 * An append-only report CSV file (owner-readable only), flushed in batches of whole rows. A write that fails, or writes only
 * part of a batch, is undone (the file is cut back to its last whole row) and remembered: the next
 * append or close throws it, so the job stops without a half-written row.
 */
export class CsvFile {
  private readonly fd: number;
  private buffer = '';
  private readonly timer: NodeJS.Timeout | undefined;
  /** Bytes of whole rows on disk. */
  private written = 0;
  private failure: ReportWriteError | undefined;

  constructor(
    private readonly path: string,
    header: readonly string[],
    /** results.csv is for people: cells a spreadsheet would run are neutralised. */
    private readonly neutralise: boolean,
    /** rejected.csv is written as the input was (input-csv-format.ts). @default UTF-8, comma, LF */
    private readonly format: CsvFormat = REPORT_CSV,
    /** Flushed with these other files rather than on a timer of its own. */
    private readonly group?: CsvFlushGroup,
  ) {
    // A new file replaces one left by an earlier run (it keeps neither its mode nor its inode), and no link at the name is followed (safe-file.ts).
    try {
      this.fd = createReplacingFile(path, OWNER_ONLY);
    } catch (error) {
      throw new ReportWriteError(path, systemCodeOf(error), { cause: error });
    }
    this.buffer = format.preamble + format.line(header);
    this.flush();
    this.throwIfFailed();
    if (group === undefined) {
      this.timer = setInterval(() => this.flush(), FLUSH_INTERVAL_MS);
      this.timer.unref();
    } else {
      group.add(this);
    }
  }

  /** `rawTail`: written as it is after the last cell (rejected.csv's unclosed quote). */
  append(cells: readonly CsvCell[], rawTail?: string): void {
    this.throwIfFailed();
    this.buffer += this.format.line(this.neutralise ? cells.map((cell) => (cell === null ? null : spreadsheetSafe(cell))) : cells, rawTail);
    if (this.buffer.length >= FLUSH_BYTES) (this.group ?? this).flush();
    this.throwIfFailed();
  }

  /** Writes the buffered rows; on failure cuts the file back and remembers why (never throws: a timer calls it). */
  flush(): void {
    if (this.buffer === '' || this.failure !== undefined) return;
    const bytes = this.format.encode(this.buffer);
    let done = 0;
    try {
      while (done < bytes.length) {
        const n = writeSync(this.fd, bytes, done, bytes.length - done);
        // A short write is not ignored: the rest is written, or the failure shows.
        if (n <= 0) throw Object.assign(new Error('no byte written'), { code: 'EIO' });
        done += n;
      }
      this.written += bytes.length;
      this.buffer = '';
    } catch (error) {
      clearInterval(this.timer);
      this.failure = new ReportWriteError(this.path, systemCodeOf(error), { cause: error });
      try {
        ftruncateSync(this.fd, this.written);
      } catch {
        // The file keeps a partial last line; the failure is reported all the same.
      }
    }
  }

  throwIfFailed(): void {
    if (this.failure !== undefined) throw this.failure;
  }

  close(): void {
    clearInterval(this.timer);
    this.flush();
    closeSync(this.fd);
    this.throwIfFailed();
  }
}

/** The input as rejected.csv repeats it: its header, and its layout as bytes. */
export interface ReportInput {
  readonly header: readonly string[];
  readonly layout: InputLayout;
}

export class ReportWriter {
  readonly paths: ReportPaths;
  private readonly results: CsvFile;
  private readonly rejected: CsvFile;
  private readonly changes: CsvFile;
  /** results.csv, rejected.csv and changes.csv reach the disk together. */
  private readonly flushGroup = new CsvFlushGroup();
  private readonly failedColumns: FailedRowColumns;
  private readonly digest: RunDigest;
  private closed = false;
  /**
   * `privacy.mask` (mask.ts): changes.csv, report.html and summary.json show the masked fields'
   * values, and the key when its field is masked, masked; results.csv and rejected.csv are the
   * user's rows, kept whole (docs/reports.md, "Masked fields").
   */
  readonly masker: Masker;
  /** The input's cells that hold a masked field's value, by index: the row's own values, masked in its error's text. */
  readonly #maskedCells: ReadonlyArray<readonly [index: number, field: string]>;

  /**
   * `input` is the CSV's own header and layout: rejected.csv repeats them so it can be fed back.
   * `limits`: what one write call of the platform's surface takes, for the least writes the
   * changes needed (the run report).
   */
  constructor(dir: string, job: string, input: ReportInput, limits: CallLimits, masker: Masker = NO_MASK) {
    this.masker = masker;
    this.#maskedCells = input.header.flatMap((name, index) => {
      const field = masker.columns.get(name);
      return field === undefined ? [] : [[index, field] as const];
    });
    this.digest = new RunDigest(limits);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    this.paths = reportPaths(dir, job);
    this.results = new CsvFile(this.paths.results, RESULT_COLUMNS, true, REPORT_CSV, this.flushGroup);
    this.failedColumns = failedRowColumns(input.header);
    // rejected.csv is fed back as input: it keeps the input's values exactly, `=` and `@` included,
    // in the input's encoding, delimiter and line ends.
    this.rejected = new CsvFile(this.paths.rejected, this.failedColumns.header, false, inputCsvFormat(input.layout), this.flushGroup);
    this.changes = new CsvFile(this.paths.changes, CHANGE_COLUMNS, true, CHANGES_CSV, this.flushGroup);
  }

  /** The departed step's writes, for the run report's "least the data needed" (`RunDigest.addDepartedWrites`). */
  addDepartedWrites(operations: readonly Pick<Operation, 'kind'>[]): void {
    this.digest.addDepartedWrites(operations);
  }

  /**
   * A contact verification repaired (`verify`): its lines in changes.csv, the platform's value (the
   * drift) and the state's (what the job last wrote), and its writes in the run report's "least the
   * data needed".
   */
  addRepair(key: string, changes: readonly ChangeLine[], writes: readonly Pick<Operation, 'kind'>[]): void {
    this.digest.addDepartedWrites(writes);
    for (const change of changes) this.changes.append([this.masker.key(key), change.contactId === '' ? null : change.contactId, change.field, ...this.#shownValues(change)]);
  }

  add(result: RowResult): void {
    // The run report shows what changes.csv shows: masked fields and a masked key, masked.
    this.digest.add(this.masker.active ? this.#shown(result) : result);
    this.results.append([
      String(result.line),
      result.key,
      result.outcome,
      result.contactId,
      result.fieldsChanged.join(';'),
      result.tagsAdded.join(';'),
      result.tagsRemoved.join(';'),
      String(result.apiCalls),
      result.errorCode,
      result.errorMessage,
      result.messageStatus,
      result.messageError,
      (result.fieldsSkipped ?? []).map((skip) => `${skip.field} (${skip.code}: ${skip.reason})`).join('; '),
      rowWarnings(result),
    ]);
    // Only a row that failed for its own data is to fix. One that failed for a cause outside it
    // (the job stopped, the platform failed) has nothing to fix: it is in results.csv, and the same
    // command run again takes it, as it takes the rows not reached (failure-cause.ts).
    if (result.outcome === 'failed' && failureCause(result.errorCode) === 'fix') {
      const line = this.failedColumns.line(result.cells, result.errorCode, result.errorMessage, result.openQuote);
      this.rejected.append(line.cells, line.rawTail);
    }
    // What was written (a dry run: what would be), field by field; a failed row wrote nothing it reports.
    if ((result.outcome === 'created' || result.outcome === 'updated') && result.changes !== undefined) {
      for (const change of result.changes) {
        // A created contact's id is known once the create answered: the row's own.
        const contactId = change.contactId !== '' ? change.contactId : result.contactId.includes(';') ? '' : result.contactId;
        this.changes.append([this.masker.key(result.key), contactId === '' ? null : contactId, change.field, ...this.#shownValues(change)]);
      }
    }
  }

  /** A change's values as changes.csv and the run report show them (an absent value stays absent). */
  #shownValues(change: ChangeLine): [string | null, string | null] {
    const show = (value: string | null): string | null => (value === null ? null : this.masker.field(change.field, value));
    return [show(change.platformValue), show(change.fileValue)];
  }

  /** The row as the run report shows it: its key, its error's text and its changes masked. */
  #shown(result: RowResult): RowResult {
    return {
      ...result,
      key: this.masker.key(result.key),
      errorMessage: this.masker.text(
        result.errorMessage,
        [result.key],
        this.#maskedCells.map(([index, field]) => [field, result.cells[index] ?? ''] as const),
      ),
      ...(result.changes === undefined ? {} : { changes: result.changes.map((change) => ({ ...change, ...shownPair(this.#shownValues(change)) })) }),
    };
  }

  /** Flushes and closes the CSVs; the first write failure, if any (the files end at their last whole row). */
  closeRows(): ReportWriteError | undefined {
    this.flushGroup.close();
    let failure: ReportWriteError | undefined;
    for (const file of [this.results, this.rejected, this.changes]) {
      try {
        file.close();
      } catch (error) {
        if (!(error instanceof ReportWriteError)) throw error;
        failure ??= error;
      }
    }
    return failure;
  }

  /**
   * Writes the run report, then summary.json last (each through a rename: never half written; a
   * script that waits for summary.json finds the others done). The first write failure, if any.
   */
  writeSummary(summary: JobSummary, pace: RunPace = { callsPerMinute: [], limits: [] }): ReportWriteError | undefined {
    return reportWriteFailure(() => {
      // The summary is masked where it is made (`Masker.deep`); once more here costs nothing and keeps
      // any other caller's summary from leaving unmasked.
      const shown = this.masker.deep(summary);
      writeWhole(this.paths.html, renderHtmlReport({ summary: shown, digest: this.digest, ...pace, paths: this.paths }));
      writeWhole(this.paths.summary, `${JSON.stringify(shown, null, 2)}\n`);
    });
  }

  /** closeRows, then writeSummary; throws the first failure. */
  close(summary: JobSummary, pace?: RunPace): void {
    if (this.closed) return;
    this.closed = true;
    const failure = this.closeRows() ?? this.writeSummary(summary, pace);
    if (failure !== undefined) throw failure;
  }
}

function shownPair([platformValue, fileValue]: [string | null, string | null]): Pick<ChangeLine, 'platformValue' | 'fileValue'> {
  return { platformValue, fileValue };
}

/** Writes a whole report file through a rename (never half written, never through a planted link), or throws ReportWriteError. */
export function writeWhole(path: string, text: string): void {
  try {
    writeFileAtomically(path, text, OWNER_ONLY);
  } catch (error) {
    throw new ReportWriteError(path, systemCodeOf(error), { cause: error });
  }
}

/**
 * results.csv's `warnings`: what the row wrote other than the file said, though it did not fail: a
 * phone written without its extension (E.164 has none).
 */
export function rowWarnings(result: Pick<RowResult, 'phoneExtensions'>): string {
  return (result.phoneExtensions ?? [])
    .map((note) => `${note.field}: the extension ${JSON.stringify(note.extension)} of ${JSON.stringify(note.value)} is not written (the platform's phone is E.164, which has none; the phone transform's extensionField keeps it in a field of its own)`)
    .join('; ');
}
