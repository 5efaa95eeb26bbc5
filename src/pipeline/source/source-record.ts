/** The records the reader gives: a data row as read from the CSV, or a row it could not parse. */
import type { RowErrorCode } from '../report/error-codes.js';

/** A data row as read from the CSV. */
export interface SourceRow {
  kind: 'row';
  /** Physical line of the row's first line in the file (header = line 1). */
  line: number;
  /** Cells by header name. */
  values: Record<string, string>;
  /** Cells in file order, for rejected.csv. */
  cells: string[];
}

/** A row the reader could not parse; it becomes a failed row and the file goes on. */
export interface MalformedRow {
  kind: 'malformed';
  line: number;
  code: RowErrorCode;
  message: string;
  /** What could be read of the row, for rejected.csv. */
  cells: string[];
  /**
   * A quote never closed: the row's first line from that quote on, as written. rejected.csv ends
   * the row with it, so that fed back unfixed the row is an unclosed quote again (the last of
   * `cells` is what could be read of it).
   */
  openQuote?: string;
}

export type SourceRecord = SourceRow | MalformedRow;
