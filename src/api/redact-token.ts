/**
 * Cuts the channel token out of what the platform answered, before any of it reaches an error, a
 * log line or a report (docs/reliability.md, "The token in an answer"). A server may echo the token
 * in any written form: plain, JSON-escaped (`\/` as PHP and Laravel write it, `\u002F`),
 * percent-encoded (`%2F`). So the raw text is cleared of every such form, and a JSON body is also
 * parsed and cleared string by string (a parser may have joined escapes the raw pass did not know).
 * A server may also echo part of it, or change its case (issue 42): any run of 8 or more
 * characters of the token, in any case, is cut out too.
 */

export const REDACTED = '[redacted]';

/** Tokens at least this long are cut out of answers; real channel tokens are far longer. */
export const MIN_REDACTED_TOKEN_LENGTH = 8;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/** One character of the token in any of the forms a server may write it. */
function characterForms(char: string): string {
  const code = char.charCodeAt(0);
  const hex2 = code.toString(16).padStart(2, '0');
  const hex4 = code.toString(16).padStart(4, '0');
  const forms = [
    escapeRegExp(char),
    // JSON allows a backslash before `/`; some encoders write one before other punctuation too.
    `\\\\${escapeRegExp(char)}`,
    `\\\\u${hex4}`,
  ];
  // Percent-encoding, for the non-alphanumeric characters a URL encoder escapes.
  if (!/[A-Za-z0-9]/.test(char)) forms.push(`%${hex2}`);
  return `(?:${forms.join('|')})`;
}

/** A matcher of the token in every written form (case-insensitive hex digits, exact letters). */
function tokenPattern(token: string): RegExp {
  const body = [...token].map(characterForms).join('');
  // Hex digits of escapes may be either case: `\u002f` and `\u002F`, `%2f` and `%2F`.
  return new RegExp(body.replace(/\\\\u([0-9a-f]{4})/g, (_m, hex: string) => `\\\\u${hexEitherCase(hex)}`).replace(/%([0-9a-f]{2})/g, (_m, hex: string) => `%${hexEitherCase(hex)}`), 'g');
}

function hexEitherCase(hex: string): string {
  return [...hex].map((digit) => (/[a-f]/.test(digit) ? `[${digit}${digit.toUpperCase()}]` : digit)).join('');
}

/**
 * A cutter of every run of at least `MIN_REDACTED_TOKEN_LENGTH` characters of the token, in any
 * case: a truncated or lower-cased echo is the token's secret all the same. Each window of that
 * length in the text is looked up among the token's own windows (lower-cased); the windows found
 * are joined into runs, each run replaced by one `[redacted]`.
 */
function runCutter(token: string): (text: string) => string {
  const width = MIN_REDACTED_TOKEN_LENGTH;
  const lower = token.toLowerCase();
  const windows = new Set<string>();
  for (let at = 0; at + width <= lower.length; at++) windows.add(lower.slice(at, at + width));
  return (text) => {
    if (text.length < width) return text;
    const folded = text.toLowerCase();
    // toLowerCase keeps the length of the text for all but a few letters; when it does not, the
    // text is searched as it is, lower-cased window by window.
    const sameLength = folded.length === text.length;
    let out = '';
    let kept = 0;
    let runEnd = -1;
    for (let at = 0; at + width <= text.length; at++) {
      const window = sameLength ? folded.slice(at, at + width) : text.slice(at, at + width).toLowerCase();
      if (!windows.has(window)) continue;
      if (at > runEnd) {
        out += text.slice(kept, at) + REDACTED;
      }
      runEnd = at + width;
      kept = runEnd;
    }
    return kept === 0 ? text : out + text.slice(kept);
  };
}

/** Every string of a parsed JSON value with the token cut out; `changed` says whether any held it. */
function redactValue(value: unknown, cut: (text: string) => string): { value: unknown; changed: boolean } {
  if (typeof value === 'string') {
    const redacted = cut(value);
    return { value: redacted, changed: redacted !== value };
  }
  if (Array.isArray(value)) {
    let changed = false;
    const items = value.map((item) => {
      const redacted = redactValue(item, cut);
      changed ||= redacted.changed;
      return redacted.value;
    });
    return { value: items, changed };
  }
  if (typeof value === 'object' && value !== null) {
    let changed = false;
    const entries = Object.entries(value).map(([key, item]) => {
      const redactedKey = redactValue(key, cut);
      const redacted = redactValue(item, cut);
      changed ||= redacted.changed || redactedKey.changed;
      return [redactedKey.value as string, redacted.value] as const;
    });
    return { value: Object.fromEntries(entries), changed };
  }
  return { value, changed: false };
}

/**
 * Builds the redactor of one token. A token shorter than `MIN_REDACTED_TOKEN_LENGTH` is no secret
 * worth the price: cutting it out of every body would corrupt the JSON (a token "t" would cut
 * every "data").
 */
export function tokenRedactor(token: string): (text: string) => string {
  if (token.length < MIN_REDACTED_TOKEN_LENGTH) return (text) => text;
  const pattern = tokenPattern(token);
  const cutRuns = runCutter(token);
  const cut = (text: string): string => cutRuns(text.split(token).join(REDACTED));
  return (text) => {
    const raw = cutRuns(text.replace(pattern, REDACTED));
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw) as unknown;
    } catch {
      return raw;
    }
    const redacted = redactValue(parsed, cut);
    return redacted.changed ? JSON.stringify(redacted.value) : raw;
  };
}
