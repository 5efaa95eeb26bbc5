import { parseRetryAfter } from '../../src/api/retry-after.js';

const NOW = Date.parse('2025-01-01T00:00:00Z');

describe('parseRetryAfter', () => {
  it('reads a number of seconds as milliseconds', () => {
    expect(parseRetryAfter('1', NOW)).toBe(1_000);
    expect(parseRetryAfter(' 120 ', NOW)).toBe(120_000);
    expect(parseRetryAfter('0', NOW)).toBe(0);
  });

  it('rounds fractional seconds up to the next millisecond', () => {
    expect(parseRetryAfter('1.5', NOW)).toBe(1_500);
    expect(parseRetryAfter('0.0004', NOW)).toBe(1);
  });

  it('reads an HTTP date as the time left until then', () => {
    expect(parseRetryAfter('Wed, 01 Jan 2025 00:00:30 GMT', NOW)).toBe(30_000);
  });

  it('reads an HTTP date in the past as no wait', () => {
    expect(parseRetryAfter('Tue, 31 Dec 2024 23:59:00 GMT', NOW)).toBe(0);
  });

  it('takes the first value of a repeated header', () => {
    expect(parseRetryAfter(['2', '9'], NOW)).toBe(2_000);
  });

  it.each([['soon'], [''], ['-5'], ['5s'], ['1e3'], ['12 apples'], ['Someday, 99 Foo 2025']])(
    'returns undefined for the unreadable value %j',
    (value) => {
      expect(parseRetryAfter(value, NOW)).toBeUndefined();
    },
  );

  it('returns undefined when the header is absent', () => {
    expect(parseRetryAfter(undefined, NOW)).toBeUndefined();
    expect(parseRetryAfter([], NOW)).toBeUndefined();
  });
});
