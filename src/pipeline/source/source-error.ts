/**
 * The one error the CSV source throws: the input cannot be read as a whole (before any row, or
 * an I/O failure mid-file). Row-level problems are not errors but `MalformedRow` records.
 * Like csv-parse's CsvError, the context travels as data (`code`, `file`); `message` is that
 * context rendered for a user, with the fix.
 */
import { ContactSyncError } from '../../failure/contact-sync-error.js';

/**
 * `INPUT_NOT_FOUND`: no file at the path.
 * `INPUT_IS_DIRECTORY`: the path is a folder.
 * `INPUT_UNREADABLE`: the file cannot be opened or read (permissions, I/O error).
 * `INPUT_EMPTY`: no header line at all.
 * `INPUT_ENCODING`: unknown encoding label, or a header that is not text in the encoding given.
 * `INPUT_BAD_HEADER`: the header line itself cannot be parsed (e.g. an unclosed quote).
 * `INPUT_DUPLICATE_HEADER`: two columns have the same name.
 * `INPUT_HEADER_MISMATCH`: columns the job uses are missing from the header (header-check.ts).
 */
export type SourceErrorCode =
  | 'INPUT_NOT_FOUND'
  | 'INPUT_IS_DIRECTORY'
  | 'INPUT_UNREADABLE'
  | 'INPUT_EMPTY'
  | 'INPUT_ENCODING'
  | 'INPUT_BAD_HEADER'
  | 'INPUT_DUPLICATE_HEADER'
  | 'INPUT_HEADER_MISMATCH'
  /** A spreadsheet (xlsx, xls, zip) named like a CSV. */
  | 'INPUT_NOT_CSV';

export class SourceError extends ContactSyncError<SourceErrorCode> {
  override name = 'SourceError';
  readonly code: SourceErrorCode;
  /** The input file as the job names it. */
  readonly file: string;

  constructor(code: SourceErrorCode, file: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.file = file;
  }

  get context(): Readonly<Record<string, unknown>> {
    return { file: this.file };
  }
}
