/**
 * The columns of rejected.csv and retry.csv, and a failed row's cells under them: the input's own
 * columns, each once, then `error_code` and `error_message`. A fed-back file already ends with
 * those two: they are replaced, never added again, so that the file of the third generation reads
 * like the first. Cells line up under the input's header; cells beyond it (a row with too many)
 * follow the error columns, every one of them: such a row fed back unfixed still has more cells
 * than the header, so it fails `CSV_COLUMN_COUNT` again instead of parsing cleanly, cut to the
 * header's width, with the tag after a stray delimiter lost. They are quoted in the message too,
 * for a person reading it.
 */
import { ERROR_COLUMNS, isErrorColumn } from '../source/error-columns.js';

export interface FailedRowColumns {
  /** The header of the file. */
  readonly header: readonly string[];
  /** A failed row's line of the file: its cells (the input's, in the input's order), its code and its message. */
  cells(inputCells: readonly string[], errorCode: string, errorMessage: string): string[];
}

export function failedRowColumns(inputHeader: readonly string[]): FailedRowColumns {
  const kept = inputHeader.flatMap((name, index) => (isErrorColumn(name) ? [] : [index]));
  return {
    header: [...kept.map((index) => inputHeader[index]!), ...ERROR_COLUMNS],
    cells: (inputCells, errorCode, errorMessage) => {
      const extra = inputCells.slice(inputHeader.length);
      const message = extra.length === 0 ? errorMessage : `${errorMessage} (cells beyond the header: ${JSON.stringify(extra)})`;
      return [...kept.map((index) => inputCells[index] ?? ''), errorCode, message, ...extra];
    },
  };
}
