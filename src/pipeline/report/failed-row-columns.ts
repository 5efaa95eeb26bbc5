/**
 * The columns of rejected.csv and retry.csv, and a failed row's cells under them: the input's own
 * columns, each once, then `error_code` and `error_message`. A fed-back file already ends with
 * those two: they are replaced, never added again, so that the file of the third generation reads
 * like the first. Cells line up under the input's header; cells beyond it (a row with too many)
 * follow the error columns, every one of them: such a row fed back unfixed still has more cells
 * than the header, so it fails `CSV_COLUMN_COUNT` again instead of parsing cleanly, cut to the
 * header's width, with the tag after a stray delimiter lost. They are quoted in the message too,
 * for a person reading it.
 *
 * A row with a quote never closed (`CSV_UNCLOSED_QUOTE`) is garbage once written as cells: the open
 * cell holds the rest of the line, and fed back it parses cleanly into the wrong columns. So what
 * could be read stands under the header, and after the error columns (and any cells beyond the
 * header) the line from its open quote on is written as it was, quote and all, as the last thing
 * on the line: fed back unfixed, the row is an unclosed quote again, with the same code, and reading
 * goes on at the next line; its cells read the same, so the line is the same generation after
 * generation. To fix it, correct the cells under the header and delete that tail.
 *
 * A row with fewer cells than the header (`CSV_COLUMN_COUNT`: a cell lost to a missing delimiter
 * or a line cut short) is written with its missing cells empty under the header, so that each
 * column keeps its name; fed back unfixed it would then parse cleanly and land with those fields
 * empty. So one cell follows the error columns, saying how many are missing: the row, fed back
 * unfixed, has a cell beyond the header and fails again. To fix it, fill the row's cells and
 * delete that last cell.
 */
import { ERROR_COLUMNS, isErrorColumn } from '../source/error-columns.js';

export interface FailedRowLine {
  /** The cells, under the header, then the error columns, then any beyond the header. */
  readonly cells: string[];
  /** The unclosed quote's text, written as it is after the cells. */
  readonly rawTail: string | undefined;
}

export interface FailedRowColumns {
  /** The header of the file. */
  readonly header: readonly string[];
  /**
   * A failed row's line of the file: its cells (the input's, in the input's order), its code, its
   * message, and the unclosed quote's text (`MalformedRow.openQuote`: then the last cell is what
   * could be read of it).
   */
  line(inputCells: readonly string[], errorCode: string, errorMessage: string, openQuote?: string): FailedRowLine;
}

export function failedRowColumns(inputHeader: readonly string[]): FailedRowColumns {
  const kept = inputHeader.flatMap((name, index) => (isErrorColumn(name) ? [] : [index]));
  return {
    header: [...kept.map((index) => inputHeader[index]!), ...ERROR_COLUMNS],
    line: (inputCells, errorCode, errorMessage, openQuote) => {
      // The open cell is the line's last; beyond the header, the raw tail stands for it.
      const extra = openQuote === undefined ? inputCells.slice(inputHeader.length) : inputCells.slice(inputHeader.length, -1);
      const missing = openQuote === undefined && errorCode === 'CSV_COLUMN_COUNT' ? inputHeader.length - inputCells.length : 0;
      if (missing > 0) {
        const cells = missing === 1 ? '1 cell is missing' : `${missing} cells are missing`;
        const note = `${cells}: fill the row's cells, then delete this last cell`;
        return {
          cells: [...kept.map((index) => inputCells[index] ?? ''), errorCode, `${errorMessage} (${cells}: they stand empty under the header, and a last cell after the error columns keeps the row failing until it is fixed: fill the row's cells, then delete that cell)`, note],
          rawTail: undefined,
        };
      }
      let message = extra.length === 0 ? errorMessage : `${errorMessage} (cells beyond the header: ${JSON.stringify(extra)})`;
      if (openQuote !== undefined) message += ' (the line from its open quote on follows the error columns, as written: correct the cells under the header, then delete it)';
      return { cells: [...kept.map((index) => inputCells[index] ?? ''), errorCode, message, ...extra], rawTail: openQuote };
    },
  };
}
