import type { Rate } from '../limits.js';

const PERIOD_MS: Readonly<Record<string, number>> = {
  s: 1_000,
  sec: 1_000,
  m: 60_000,
  min: 60_000,
  h: 3_600_000,
};

/**
 * `N/unit` or `N/<count><unit>` (`20/2s`: a window of two seconds, as the platform counts it),
 * spaces allowed around the slash. The JSON Schema carries it as a pattern.
 */
export const RATE_PATTERN = /^\s*(\d+)\s*\/\s*(\d+)?\s*(s|sec|m|min|h)\s*$/;

/** The accepted forms, for messages and docs. */
export const RATE_FORMS = 'N/s, N/sec, N/m, N/min or N/h, or N per a window of several units such as 20/2s';

/**
 * Parses a rate such as `100/min` or `25/s` into `{limit, periodMs}`.
 * @throws RangeError naming the accepted forms when `text` is not one of them.
 */
export function parseRate(text: string): Rate {
  const match = RATE_PATTERN.exec(text);
  const limit = match ? Number(match[1]) : NaN;
  const units = match?.[2] === undefined ? 1 : Number(match[2]);
  const unitMs = match ? PERIOD_MS[match[3] ?? ''] : undefined;
  if (unitMs === undefined || !Number.isSafeInteger(limit)) {
    throw new RangeError(`${JSON.stringify(text)} is not a rate; write ${RATE_FORMS}, e.g. 100/min`);
  }
  if (units < 1 || units * unitMs > 24 * 3_600_000) {
    throw new RangeError(`${JSON.stringify(text)} has a window of ${units === 0 ? 'no time' : 'more than a day'}; write a window from 1 s to 24 h, e.g. 20/2s`);
  }
  const periodMs = units * unitMs;
  if (limit < 1) {
    throw new RangeError(`${JSON.stringify(text)} allows no call at all; write a limit of at least 1, e.g. 100/min`);
  }
  return { limit, periodMs };
}

/** The inverse of parseRate, e.g. `{100, 60000}` -> `100/min`, `{20, 2000}` -> `20/2s`. */
export function formatRate(rate: Rate): string {
  for (const [unit, ms] of [['h', 3_600_000], ['min', 60_000], ['s', 1_000]] as const) {
    if (rate.periodMs % ms === 0) {
      const units = rate.periodMs / ms;
      return `${rate.limit}/${units === 1 ? '' : units}${unit}`;
    }
  }
  return `${rate.limit}/${rate.periodMs}ms`;
}
