/**
 * How an input file is laid out as bytes: its encoding, byte order mark, delimiter, line ends and
 * Excel's `sep=` line. The source finds them while it reads the header; rejected.csv and retry.csv
 * are written with the same, so that a file fed back is read exactly as the input was (a
 * windows-1252 export with CRLF gives a windows-1252 file with CRLF, which the job's own
 * `input.encoding` reads right).
 */

export type LineEnd = '\r\n' | '\n' | '\r';

export interface InputLayout {
  /** The encoding the file was read in: the configured one, or the one its BOM names. */
  readonly encoding: string;
  /** The file starts with a byte order mark. */
  readonly bom: boolean;
  /** The delimiter used (detected or given). */
  readonly delimiter: string;
  /** The line end of the file's first line; LF when the file has a single line. */
  readonly lineEnd: LineEnd;
  /** The file starts with Excel's `sep=<delimiter>` line. */
  readonly separatorLine: boolean;
}

/** The first line break of `text` outside quotes; undefined when there is none yet or a CR ends the text (a CRLF may be cut in two). */
export function firstLineEnd(text: string): LineEnd | undefined {
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === '"') quoted = !quoted;
    else if (!quoted && char === '\n') return '\n';
    else if (!quoted && char === '\r') {
      if (i + 1 === text.length) return undefined;
      return text[i + 1] === '\n' ? '\r\n' : '\r';
    }
  }
  return undefined;
}

/** The line end as the console and summary.json name it. */
export function lineEndName(lineEnd: LineEnd): 'CRLF' | 'LF' | 'CR' {
  return lineEnd === '\r\n' ? 'CRLF' : lineEnd === '\n' ? 'LF' : 'CR';
}
