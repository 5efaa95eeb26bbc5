import { Writable } from 'node:stream';
import { ApiCallStats } from '../../src/api/call-stats.js';
import { createProgressDisplay, estimateRemainingMs } from '../../src/cli/progress-display.js';

const tally = (total: number, failed = 0) => ({ total, created: total - failed, updated: 0, unchanged: 0, skipped: 0, failed });

describe('progress', () => {
  it('estimates the time left from the calls per row so far at the allowed rate', () => {
    // 100 rows done with 300 calls: 3 calls a row; 900 rows left = 2,700 calls at 100/min = 27 min.
    expect(estimateRemainingMs(tally(100), 1000, 300, { limit: 100, periodMs: 60_000 })).toBe(27 * 60_000);
    expect(estimateRemainingMs(tally(0), 1000, 0, { limit: 100, periodMs: 60_000 })).toBeUndefined();
    expect(estimateRemainingMs(tally(10), undefined, 30, { limit: 100, periodMs: 60_000 })).toBeUndefined();
  });

  it('off a terminal, prints a progress line at each interval with the counts, calls and ETA', async () => {
    let text = '';
    const stream = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        text += chunk.toString();
        callback();
      },
    });
    const stats = new ApiCallStats();
    const display = createProgressDisplay({ mode: 'lines', expectedRows: 10, stats, rate: { limit: 100, periodMs: 60_000 }, stream, lineIntervalSeconds: 0.02 });
    stats.recordRequest('searchContacts', false);
    stats.recordRequest('createContact', false);
    display.update(tally(2, 1));
    await new Promise((resolve) => setTimeout(resolve, 60));
    display.stop();
    expect(text).toMatch(/^progress: 2\/10 rows \(created 1, updated 0, unchanged 0, skipped 0, failed 1\), 2 calls \([\d.]+\/min\), ETA 5s\n/);
  });
});
