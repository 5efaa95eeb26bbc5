/**
 * Parses a `Retry-After` header (RFC 9110 section 10.2.3): a number of seconds, or an HTTP date.
 * Returns the wait in milliseconds (never negative), or undefined when the header is absent or
 * unreadable, so the caller backs off on its own.
 */
export function parseRetryAfter(header: string | readonly string[] | undefined, nowMs: number): number | undefined {
  const raw = typeof header === 'string' ? header : header?.[0];
  if (raw === undefined) return undefined;
  const value = raw.trim();
  if (value === '') return undefined;
  // Seconds: a decimal integer by the RFC; fractions are tolerated, signs and units are not.
  if (/^\d+(\.\d+)?$/.test(value)) {
    return Math.ceil(Number(value) * 1000);
  }
  // An HTTP date always names a weekday or a month; this keeps Date.parse from reading "12" or "soon".
  if (!/[a-z]{3}/i.test(value)) return undefined;
  const at = Date.parse(value);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}
