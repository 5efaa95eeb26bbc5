/**
 * A forgiving split of ONE physical line into values, for rows the CSV parser refused: it gives
 * the user "what could be read" in rejected.csv, and tells whether the line leaves a quote open.
 * Unlike the parser it never fails: a stray quote inside a value is kept as a character, and a
 * quote left open takes the rest of the line.
 */

export interface SplitLine {
  cells: string[];
  /** A quote opened on this line is still open at its end. */
  quoteOpen: boolean;
  /**
   * With `quoteOpen`: the line from that quote on, as written (the last cell, raw). rejected.csv
   * writes it back so that the row, fed back unfixed, is an unclosed quote again.
   */
  openTail?: string;
}

export function splitLine(line: string, delimiter: string): SplitLine {
  const cells: string[] = [];
  let cell = '';
  let quoted = false;
  let atFieldStart = true;
  let openedAt = 0;
  for (let i = 0; i < line.length; i++) {
    const char = line[i]!;
    if (quoted) {
      if (char === '"') {
        if (line[i + 1] === '"') {
          cell += '"';
          i++;
        } else {
          quoted = false;
        }
      } else {
        cell += char;
      }
    } else if (char === delimiter) {
      cells.push(cell);
      cell = '';
      atFieldStart = true;
      continue;
    } else if (char === '"' && atFieldStart) {
      quoted = true;
      openedAt = i;
    } else {
      cell += char;
    }
    atFieldStart = false;
  }
  cells.push(cell);
  return quoted ? { cells, quoteOpen: true, openTail: line.slice(openedAt) } : { cells, quoteOpen: false };
}
