import prand from 'pure-rand';
import { SlidingWindow, WindowPeak, retryAfterSeconds } from '../../src/emulator/sliding-window.js';

describe('SlidingWindow', () => {
  test('never admits more than limit arrivals in any window, and refuses only when the window is full', () => {
    const rng = prand.xoroshiro128plus(7);
    const rate = { limit: 4, periodMs: 100 };
    const window = new SlidingWindow(rate);
    const accepted: number[] = [];
    let t = 0;
    for (let i = 0; i < 2000; i += 1) {
      t += prand.unsafeUniformIntDistribution(0, 40, rng);
      const inWindow = accepted.filter((a) => t - a < rate.periodMs).length;
      const admission = window.tryAdmit(t);
      expect(admission.accepted).toBe(inWindow < rate.limit);
      if (admission.accepted) accepted.push(t);
      else {
        const oldestInWindow = accepted.filter((a) => t - a < rate.periodMs)[0]!;
        expect(admission.retryAfterMs).toBe(oldestInWindow + rate.periodMs - t);
      }
    }
    expect(accepted.length).toBeGreaterThan(100);
  });

  test('remaining is what is left of the limit at a time, and admits nothing', () => {
    const window = new SlidingWindow({ limit: 3, periodMs: 100 });
    expect(window.remaining(0)).toBe(3);
    window.tryAdmit(0);
    window.tryAdmit(50);
    expect([window.remaining(60), window.remaining(60)]).toEqual([1, 1]);
    expect(window.remaining(100)).toBe(2); // the arrival at 0 has left
    expect(window.remaining(150)).toBe(3);
  });

  test('clear empties the window', () => {
    const window = new SlidingWindow({ limit: 1, periodMs: 1000 });
    window.tryAdmit(0);
    expect(window.tryAdmit(1).accepted).toBe(false);
    window.clear();
    expect(window.tryAdmit(2).accepted).toBe(true);
  });

  test.each([
    [1, 1],
    [999, 1],
    [1000, 1],
    [1001, 2],
    [59_001, 60],
  ])('Retry-After for %i ms is %i s (rounded up, at least 1)', (ms, seconds) => {
    expect(retryAfterSeconds(ms)).toBe(seconds);
  });
});

describe('WindowPeak', () => {
  test('gives the arrivals in the window ending at each arrival, as counting them all would', () => {
    const rng = prand.xoroshiro128plus(11);
    const periodMs = 100;
    const peak = new WindowPeak(periodMs);
    const arrivals: number[] = [];
    const wrong: Array<{ at: number; counted: number; expected: number }> = [];
    let t = 0;
    for (let i = 0; i < 3000; i += 1) {
      t += prand.unsafeUniformIntDistribution(0, 30, rng);
      arrivals.push(t);
      const counted = peak.add(t);
      const expected = arrivals.filter((a) => t - a < periodMs).length;
      if (counted !== expected) wrong.push({ at: t, counted, expected });
    }
    expect(wrong).toEqual([]);
  });
});
