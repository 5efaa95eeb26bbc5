/**
 * Durations in jobs.yaml (`connections.*.timeouts`, `retention.journal`): a whole number with a
 * unit, `500ms`, `30s`, `5m` (or `5min`), `2h`, `90d`. A bare number is refused: seconds or
 * milliseconds would be a guess.
 */
export const DURATION_FORMS = 'a whole number with a unit: 500ms, 30s, 5m, 2h';

/** How long a retention is written (`retention.journal`). */
export const RETENTION_FORMS = 'a whole number with a unit: 90d, 12h, 30s';

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, min: 60_000, h: 3_600_000, d: 86_400_000 };

/** Milliseconds of `text`, or undefined when it is not a duration. */
export function parseDuration(text: string): number | undefined {
  const match = /^\s*(\d+)\s*(ms|s|min|m|h|d)\s*$/.exec(text);
  if (match === null) return undefined;
  const ms = Number(match[1]) * (UNIT_MS[match[2] as string] as number);
  return Number.isSafeInteger(ms) ? ms : undefined;
}
