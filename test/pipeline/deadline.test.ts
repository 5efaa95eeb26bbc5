/** `--max-duration`: when to stop taking rows so those in flight finish by the deadline. */
import { pastTakingTime, timeToFinishMs } from '../../src/pipeline/deadline.js';

describe('the deadline', () => {
  // 100 calls a minute: 600 ms between calls.
  const estimate = { inFlight: 8, callsPerRow: 2, spacingMs: 600, slowestRowMs: 1500 };

  it('rows in flight need their calls at the allowed pace, plus the slowest row seen', () => {
    // 8 rows x 2 calls x 600 ms + 1.5 s.
    expect(timeToFinishMs(estimate)).toBe(11_100);
  });

  it('takes a row only while it and those in flight can still finish before the deadline', () => {
    const deadline = 1_000_000;
    expect(pastTakingTime(deadline - 11_101, deadline, estimate)).toBe(false);
    expect(pastTakingTime(deadline - 11_100, deadline, estimate)).toBe(true);
    expect(pastTakingTime(deadline - 60_000, deadline, { ...estimate, inFlight: 100 })).toBe(true);
  });
});
