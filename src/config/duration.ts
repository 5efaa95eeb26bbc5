/**
 * Durations in jobs.yaml (`connections.*.timeouts`): a whole number with a unit, `500ms`, `30s`,
 * `5m` (or `5min`), `2h`. A bare number is refused: seconds or milliseconds would be a guess.
 */
export const DURATION_FORMS = 'a whole number with a unit: 500ms, 30s, 5m, 2h';

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, min: 60_000, h: 3_600_000 };

/** Milliseconds of `text`, or undefined when it is not a duration. */
export function parseDuration(text: string): number | undefined {
  const match = /^\s*(\d+)\s*(ms|s|min|m|h)\s*$/.exec(text);
  if (match === null) return undefined;
  const ms = Number(match[1]) * (UNIT_MS[match[2] as string] as number);
  return Number.isSafeInteger(ms) ? ms : undefined;
}
