/**
 * How a report CSV is written as bytes. results.csv and the other reports for people and scripts
 * are UTF-8, comma, LF. rejected.csv and retry.csv are fed back as input, through the job's own
 * `input:` settings: they are written as the input was (its encoding, BOM, delimiter, line ends
 * and Excel's `sep=` line), so that a windows-1252 export comes back windows-1252 and reads right,
 * byte for byte, instead of as "RenÃ©e".
 */
import iconv from 'iconv-lite';
import type { InputLayout } from '../source/input-layout.js';
import { csvLine, csvLineWriter, valueCsvLine, type CsvCell } from './csv-line.js';

export interface CsvFormat {
  /** Written once, before the header: a byte order mark, Excel's `sep=` line. */
  readonly preamble: string;
  /** One record, its line end included; `rawTail` is written as it is after the last cell. */
  line(cells: readonly CsvCell[], rawTail?: string): string;
  /** The text as the file's bytes. */
  encode(text: string): Buffer;
}

/** The reports for people and scripts: UTF-8, comma, LF. */
export const REPORT_CSV: CsvFormat = { preamble: '', line: csvLine, encode: (text) => Buffer.from(text, 'utf8') };

/** changes.csv: the reports' CSV, with an empty value written `""` and an absent one as nothing (`valueCsvLine`). */
export const CHANGES_CSV: CsvFormat = { ...REPORT_CSV, line: valueCsvLine };

/** The input's own layout, for the files that are fed back. */
export function inputCsvFormat(layout: InputLayout): CsvFormat {
  const { delimiter, lineEnd } = layout;
  const utf8 = layout.encoding.toLowerCase() === 'utf-8' || layout.encoding.toLowerCase() === 'utf8';
  return {
    preamble: `${layout.bom ? '\uFEFF' : ''}${layout.separatorLine ? `sep=${delimiter}${lineEnd}` : ''}`,
    // A cell is quoted when it holds a quote, the delimiter or a line break, as csv-parse reads it back.
    line: csvLineWriter(delimiter, lineEnd, `"\r\n${delimiter}`),
    // Text read from the file encodes back to its bytes; a character the encoding lacks (only in a
    // message) becomes "?". No BOM of the encoder's own: the preamble has the file's, if it had one.
    encode: utf8 ? (text) => Buffer.from(text, 'utf8') : (text) => iconv.encode(text, layout.encoding, { addBOM: false }),
  };
}
