/**
 * `validate --problems FILE`: every row problem of the check as CSV, one row each
 * (`job,input,line,error_code,error_message,key`, the error columns named as rejected.csv's), for
 * a person who has more than the 50 the console shows. `key` came last (issue 34), so scripts that
 * read the first five columns by place keep working; it is the key cell as results.csv shows it.
 * Cells are made safe for spreadsheets, as the reports' are.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { csvLine } from '../pipeline/report/csv-line.js';
import { spreadsheetSafe } from '../pipeline/report/spreadsheet-safe.js';
import { UsageError } from './usage-error.js';

export const PROBLEM_COLUMNS = ['job', 'input', 'line', 'error_code', 'error_message', 'key'] as const;

export class ProblemsFile {
  rows = 0;

  private constructor(
    readonly path: string,
    private readonly fd: number,
  ) {}

  /** Creates (or empties) the file and writes its header; a path that cannot be written is exit 2. */
  static create(path: string): ProblemsFile {
    let fd: number;
    try {
      fd = openSync(path, 'w');
    } catch (error) {
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
