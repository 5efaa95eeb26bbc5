/** Names accepted for delimiters that are awkward to write in YAML. */
const NAMED_DELIMITERS: Readonly<Record<string, string>> = {
  tab: '\t',
  '\\t': '\t',
  comma: ',',
  semicolon: ';',
  pipe: '|',
};

/**
 * The delimiter character for `auto`, one character, `tab` or `\t` (written in single quotes or
 * plain, YAML keeps the backslash), `comma`, `semicolon` or `pipe`. Undefined for anything else.
 */
export function parseDelimiter(text: string): string | undefined {
  if (text === 'auto') return 'auto';
  const named = NAMED_DELIMITERS[text.toLowerCase()];
  if (named !== undefined) return named;
  if ([...text].length === 1 && text !== '"' && text !== '\n' && text !== '\r') return text;
  return undefined;
}
