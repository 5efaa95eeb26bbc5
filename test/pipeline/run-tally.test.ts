/**
 * The tally's rules as a table (issue 27): when the error threshold stops a run, how a run ended,
 * and the exit code that follows.
 */
import type { MaxErrors } from '../../src/config/max-errors.js';
import type { DepartedSummary } from '../../src/pipeline/departed/settle-departed.js';
import { JobAbortError } from '../../src/pipeline/job-abort.js';
import { crossed, exitCodeOf, MAX_ERRORS_PERCENT_MIN_ROWS, RunTally, statusOf, type RowTally } from '../../src/pipeline/run-tally.js';
import type { RowResult } from '../../src/pipeline/types.js';

const rows = (total: number, failed: number): RowTally => ({ total, created: total - failed, updated: 0, unchanged: 0, skipped: 0, failed });

describe('the error threshold', () => {
  it.each<[string, MaxErrors | undefined, RowTally, boolean, boolean]>([
    ['no threshold', undefined, rows(10, 10), false, false],
    ['a count, not crossed', { count: 5 }, rows(100, 5), false, false],
    ['a count, crossed at once', { count: 5 }, rows(6, 6), false, true],
    ['a share, before enough rows', { percent: 5 }, rows(MAX_ERRORS_PERCENT_MIN_ROWS - 1, 50), false, false],
    ['a share, with enough rows', { percent: 5 }, rows(MAX_ERRORS_PERCENT_MIN_ROWS, 6), false, true],
    ['a share, at the end of a short file', { percent: 5 }, rows(20, 2), true, true],
    ['a share, at its limit', { percent: 5 }, rows(100, 5), true, false],
  ])('%s', (_case, maxErrors, tally, atEnd, expected) => {
    expect(crossed(maxErrors, tally, atEnd)).toBe(expected);
  });

  it('names the counts, the threshold and the rejected file', () => {
    const tally = new RunTally();
    const failed = { outcome: 'failed', messageStatus: '' } as RowResult;
    for (let i = 0; i < 6; i++) tally.add(failed);
    expect(tally.thresholdAbort({ count: 5 }, false, 'r/crm.rejected.csv')?.message).toBe(
      '6 of the 6 rows finished so far failed, over --max-errors 5; see the failed rows in r/crm.rejected.csv, fix them and run again',
    );
    expect(tally.rows).toEqual({ total: 6, created: 0, updated: 0, unchanged: 0, skipped: 0, failed: 6 });
  });
});

describe('how a run ended, and its exit code', () => {
  const sigterm = (() => {
    const controller = new AbortController();
    controller.abort('SIGTERM');
    return controller.signal;
  })();
  const sigint = (() => {
    const controller = new AbortController();
    controller.abort('SIGINT');
    return controller.signal;
  })();
  const abort = new JobAbortError('INVALID_TOKEN', '401');
  const refused = { refused: true, failed: 0 } as DepartedSummary;
  const clean = { refused: false, failed: 0 } as DepartedSummary;
  const none = { failed: 0, unknown: 0 };

  it.each<[string, Parameters<typeof statusOf>, RowTally, { failed: number; unknown: number }, DepartedSummary | undefined, string, number]>([
    ['every row well', [undefined, undefined, undefined], rows(10, 0), none, undefined, 'completed', 0],
    ['a row failed', [undefined, undefined, undefined], rows(10, 1), none, undefined, 'completed', 1],
    ['a message may not have arrived', [undefined, undefined, undefined], rows(10, 0), { failed: 0, unknown: 1 }, undefined, 'completed', 1],
    ['the departed step refused', [undefined, undefined, undefined], rows(10, 0), none, refused, 'completed', 1],
    ['the departed step went well', [undefined, undefined, undefined], rows(10, 0), none, clean, 'completed', 0],
    ['--limit reached', [undefined, undefined, 'limit'], rows(5, 0), none, undefined, 'completed', 0],
    ['the deadline', [undefined, undefined, 'deadline'], rows(5, 1), none, undefined, 'deadline', 4],
    ['SIGINT', [undefined, sigint, 'signal'], rows(5, 0), none, undefined, 'interrupted', 130],
    ['SIGTERM', [undefined, sigterm, 'signal'], rows(5, 1), none, undefined, 'interrupted', 143],
    ['an abort, even with a signal', [abort, sigterm, 'signal'], rows(5, 0), none, undefined, 'aborted', 3],
  ])('%s', (_case, statusArgs, tally, messages, departed, status, exitCode) => {
    const ended = statusOf(...statusArgs);
    expect([ended, exitCodeOf(ended, statusArgs[1], tally, messages, departed)]).toEqual([status, exitCode]);
  });
});
