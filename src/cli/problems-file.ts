/**
 * `validate --problems FILE`: every row problem of the check as CSV, one row each
 * (`job,input,line,error_code,error_message,key`, the error columns named as rejected.csv's), for
 * a person who has more than the 50 the console shows. `key` came last (issue 34), so scripts that
 * read the first five columns by place keep working; it is the key cell as results.csv shows it.
 * Cells are made safe for spreadsheets, as the reports' are. It holds customer values, so it is
 * owner-only, as the reports are.
 */
import { closeSync, writeSync } from 'node:fs';
import { csvLine } from '../pipeline/report/csv-line.js';
import { spreadsheetSafe } from '../pipeline/report/spreadsheet-safe.js';
import { createReplacingFile, NotRegularFileError, OWNER_ONLY } from '../safe-file.js';
import { UsageError } from './usage-error.js';

export const PROBLEM_COLUMNS = ['job', 'input', 'line', 'error_code', 'error_message', 'key'] as const;

export class ProblemsFile {
  rows = 0;

  private constructor(
    readonly path: string,
    private readonly fd: number,
  ) {}

  /**
   * Creates (or replaces) the file, mode 0600, and writes its header; a path that cannot be
   * written, or that names a link, a device or a folder, is exit 2.
   */
  static create(path: string): ProblemsFile {
    let fd: number;
    try {
      fd = createReplacingFile(path, OWNER_ONLY);
    } catch (error) {
      if (error instanceof NotRegularFileError) {
        throw new UsageError(`--problems: ${path} is ${error.kind}, not a file; name a new or regular file (the problems are written to a file, not to a console or a pipe); nothing was checked`);
      }
      const code = (error as NodeJS.ErrnoException).code ?? String(error);
      throw new UsageError(`--problems: ${path} cannot be written (${code}); name a file in a folder that exists and can be written; nothing was checked`);
    }
    const file = new ProblemsFile(path, fd);
    file.write(PROBLEM_COLUMNS);
    return file;
  }

  add(job: string, input: string, line: number, key: string, code: string, message: string): void {
    this.write([job, input, String(line), code, message, key].map(spreadsheetSafe));
    this.rows++;
  }

  close(): void {
    closeSync(this.fd);
  }

  private write(cells: readonly string[]): void {
    writeSync(this.fd, csvLine(cells));
  }
}
