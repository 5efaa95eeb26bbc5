/**
 * One CSV line of a report, as csv-stringify writes it with the options the reports use (comma,
 * `"` quotes doubled, LF line end): a value is quoted when it holds a quote, a comma or a line
 * feed. Written by hand because the reports write a line per row and csv-stringify's per-call
 * set-up cost more than the rest of an unchanged row's line (test/pipeline/report/csv-line.test.ts
 * holds the two equal).
 */

/** A quote, the delimiter or the record delimiter: the value must be quoted. */
const MUST_QUOTE = /[",\n]/;

export function csvLine(cells: readonly string[]): string {
  let line = '';
  for (let i = 0; i < cells.length; i++) {
    const cell = cells[i] ?? '';
    if (i > 0) line += ',';
    line += MUST_QUOTE.test(cell) ? `"${cell.replaceAll('"', '""')}"` : cell;
  }
  return `${line}\n`;
}
