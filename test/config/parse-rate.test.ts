import { formatRate, parseRate } from '../../src/config/index.js';

describe('parseRate', () => {
  test.each([
    ['100/min', { limit: 100, periodMs: 60_000 }],
    ['100/m', { limit: 100, periodMs: 60_000 }],
    ['25/s', { limit: 25, periodMs: 1_000 }],
    ['25/sec', { limit: 25, periodMs: 1_000 }],
    ['5000/h', { limit: 5_000, periodMs: 3_600_000 }],
    [' 200 / min ', { limit: 200, periodMs: 60_000 }],
    ['20/2s', { limit: 20, periodMs: 2_000 }],
    ['100/90s', { limit: 100, periodMs: 90_000 }],
    ['500/5min', { limit: 500, periodMs: 300_000 }],
    ['20 / 2 s', { limit: 20, periodMs: 2_000 }],
    ['1/24h', { limit: 1, periodMs: 86_400_000 }],
  ])('%j is %j', (text, rate) => {
    expect(parseRate(text)).toEqual(rate);
  });

  test.each(['100', '100/minute', '1.5/s', 'fast', '/s', '-1/s'])('%j is refused with the accepted forms', (text) => {
    expect(() => parseRate(text)).toThrow(`${JSON.stringify(text)} is not a rate; write N/s, N/sec, N/m, N/min or N/h, or N per a window of several units such as 20/2s, e.g. 100/min`);
  });

  test('a limit of zero is refused', () => {
    expect(() => parseRate('0/s')).toThrow('"0/s" allows no call at all; write a limit of at least 1, e.g. 100/min');
  });

  test.each([
    ['20/0s', 'no time'],
    ['20/25h', 'more than a day'],
  ])('a window of %j is refused', (text, what) => {
    expect(() => parseRate(text)).toThrow(`${JSON.stringify(text)} has a window of ${what}; write a window from 1 s to 24 h, e.g. 20/2s`);
  });

  test('formatRate writes what parseRate reads', () => {
    for (const text of ['100/min', '25/s', '3/h', '20/2s', '500/5min', '7/2h']) expect(formatRate(parseRate(text))).toBe(text);
    expect(formatRate({ limit: 10, periodMs: 1_500 })).toBe('10/1500ms');
  });
});
