/**
 * One CSV line of a report, as csv-stringify writes it with the options the reports use (comma,
 * `"` quotes doubled, LF line end): a value is quoted when it holds a quote, a comma or a line
 * feed. Written by hand because the reports write a line per row and csv-stringify's per-call
 * set-up cost more than the rest of an unchanged row's line (test/pipeline/report/csv-line.test.ts
 * holds the two equal).
 */

/**
 * A writer of CSV lines with `delimiter` and `lineEnd`: a value is quoted (its quotes doubled) when
 * it holds one of `mustQuote`'s characters. The reports' is `csvLine`; the files fed back as input
 * use the input's own delimiter and line ends (`input-csv-format.ts`).
 */
export function csvLineWriter(
  delimiter: string,
  lineEnd: string,
  mustQuote: string,
  options: { readonly quoteEmpty?: boolean } = {},
): (cells: readonly CsvCell[], rawTail?: string) => string {
  const quoted = new RegExp(`[${mustQuote.replace(/[\\\]^-]/g, '\\$&')}]`);
  const empty = options.quoteEmpty === true ? '""' : '';
  // `rawTail`: text written as it is after the last cell (an unclosed quote's, failed-row-columns.ts).
  return (cells, rawTail) => {
    let line = '';
    for (let i = 0; i < cells.length; i++) {
      const cell = cells[i] ?? null;
      if (i > 0) line += delimiter;
      // An absent value is nothing; the empty string is `empty`.
      if (cell === null) continue;
      line += cell === '' ? empty : quoted.test(cell) ? `"${cell.replaceAll('"', '""')}"` : cell;
    }
    if (rawTail !== undefined) line += `${cells.length > 0 ? delimiter : ''}${rawTail}`;
    return `${line}${lineEnd}`;
  };
}

/** A quote, the delimiter or the record delimiter: the value must be quoted. */
export const csvLine = csvLineWriter(',', '\n', '",\n');

/**
 * A cell: a string, or null for a value that is absent (no value before a create, a field the
 * contact lacked). Only `valueCsvLine` writes the two apart; `csvLine` writes both as nothing.
 */
export type CsvCell = string | null;

/**
 * The lines of the files that list values (changes.csv, `history --csv`): an empty string is a
 * value and is written `""` (as csv-stringify's `quoted_empty`), an absent value (null) is an
 * empty cell with no quotes: a reader tells them apart by the quotes (csv-parse: `cast`'s
 * `context.quoting`). docs/reports.md, "Absent and empty values".
 */
export const valueCsvLine = csvLineWriter(',', '\n', '",\n', { quoteEmpty: true });
