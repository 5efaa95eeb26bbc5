/**
 * `delimiter: auto`: the delimiter is the candidate seen most often in the header line, outside
 * quotes. The header is the one line whose every value is a plain name, so it is the most reliable
 * sample; data lines can hold commas in addresses or semicolons in tag lists.
 */

/** Candidates, in the order that breaks a tie. */
export const DELIMITER_CANDIDATES = [',', ';', '\t', '|'] as const;

/**
 * The first line of `text`, up to its first line break outside quotes, or undefined when `text`
 * holds no such break yet (read more, or take the whole text at the end of the file).
 */
export function firstLine(text: string): string | undefined {
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === '"') quoted = !quoted;
    else if (!quoted && (char === '\n' || char === '\r')) return text.slice(0, i);
  }
  return undefined;
}

/**
 * The delimiter of a header line: the most frequent of `,` `;` tab `|` outside quotes; `,` when
 * none appears (a single-column file).
 */
export function detectDelimiter(headerLine: string): string {
  const counts = new Map<string, number>(DELIMITER_CANDIDATES.map((candidate) => [candidate, 0]));
  let quoted = false;
  for (const char of headerLine) {
    if (char === '"') quoted = !quoted;
    else if (!quoted && counts.has(char)) counts.set(char, (counts.get(char) ?? 0) + 1);
  }
  let best: string = DELIMITER_CANDIDATES[0];
  let bestCount = 0;
  for (const candidate of DELIMITER_CANDIDATES) {
    const count = counts.get(candidate) ?? 0;
    if (count > bestCount) {
      best = candidate;
      bestCount = count;
    }
  }
  return best;
}
