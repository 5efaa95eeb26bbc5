import type { Rate } from '../limits.js';

const PERIOD_MS: Readonly<Record<string, number>> = {
  s: 1_000,
  sec: 1_000,
  m: 60_000,
  min: 60_000,
  h: 3_600_000,
};

/** `N/unit`, spaces allowed around the slash. The JSON Schema carries it as a pattern. */
export const RATE_PATTERN = /^\s*(\d+)\s*\/\s*(s|sec|m|min|h)\s*$/;

/** The accepted forms, for messages and docs. */
export const RATE_FORMS = 'N/s, N/sec, N/m, N/min or N/h';

/**
 * Parses a rate such as `100/min` or `25/s` into `{limit, periodMs}`.
 * @throws RangeError naming the accepted forms when `text` is not one of them.
 */
export function parseRate(text: string): Rate {
  const match = RATE_PATTERN.exec(text);
  const limit = match ? Number(match[1]) : NaN;
  const periodMs = match ? PERIOD_MS[match[2] ?? ''] : undefined;
  if (periodMs === undefined || !Number.isSafeInteger(limit)) {
    throw new RangeError(`${JSON.stringify(text)} is not a rate; write ${RATE_FORMS}, e.g. 100/min`);
  }
  if (limit < 1) {
    throw new RangeError(`${JSON.stringify(text)} allows no call at all; write a limit of at least 1, e.g. 100/min`);
  }
  return { limit, periodMs };
}

/** The inverse of parseRate for the units it knows, e.g. `{100, 60000}` -> `100/min`. */
export function formatRate(rate: Rate): string {
  const unit = rate.periodMs === 1_000 ? 's' : rate.periodMs === 60_000 ? 'min' : rate.periodMs === 3_600_000 ? 'h' : undefined;
  return unit === undefined ? `${rate.limit}/${rate.periodMs}ms` : `${rate.limit}/${unit}`;
}
