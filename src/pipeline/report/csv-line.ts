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
export function csvLineWriter(delimiter: string, lineEnd: string, mustQuote: string): (cells: readonly string[], rawTail?: string) => string {
  const quoted = new RegExp(`[${mustQuote.replace(/[\\\]^-]/g, '\\$&')}]`);
  // `rawTail`: text written as it is after the last cell (an unclosed quote's, failed-row-columns.ts).
  return (cells, rawTail) => {
    let line = '';
    for (let i = 0; i < cells.length; i++) {
      const cell = cells[i] ?? '';
      if (i > 0) line += delimiter;
      line += quoted.test(cell) ? `"${cell.replaceAll('"', '""')}"` : cell;
    }
    if (rawTail !== undefined) line += `${cells.length > 0 ? delimiter : ''}${rawTail}`;
    return `${line}${lineEnd}`;
  };
}

/** A quote, the delimiter or the record delimiter: the value must be quoted. */
export const csvLine = csvLineWriter(',', '\n', '",\n');
