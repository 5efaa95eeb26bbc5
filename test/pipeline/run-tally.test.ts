/**
 * The tally's rules as a table (issue 27): when the error threshold stops a run, how a run ended,
 * and the exit code that follows.
 */
import type { MaxErrors } from '../../src/config/max-errors.js';
import type { DepartedSummary } from '../../src/pipeline/departed/settle-departed.js';
import { JobAbortError } from '../../src/pipeline/job-abort.js';
import { crossed, MAX_ERRORS_PERCENT_MIN_ROWS, thresholdCount, type ThresholdCounts } from '../../src/pipeline/run/error-threshold.js';
import { exitCodeOf } from '../../src/pipeline/run/exit-code.js';
import { rowsNeedLook, RunTally, type RowTally } from '../../src/pipeline/kinds/file-run-tally.js';
import { statusOf } from '../../src/pipeline/run/stop-policy.js';
import type { RowResult } from '../../src/pipeline/report/row-outcome.js';

const rows = (total: number, failed: number): RowTally => ({ total, created: total - failed, updated: 0, unchanged: 0, skipped: 0, failed });

describe('the error threshold', () => {
  const counts = (sent: number, failed: number): ThresholdCounts => ({ sent, failed });

  it.each<[string, MaxErrors | undefined, ThresholdCounts, boolean, boolean]>([
    ['no threshold', undefined, counts(10, 10), false, false],
    ['a count, not crossed', { count: 5 }, counts(100, 5), false, false],
    ['a count, crossed at once', { count: 5 }, counts(6, 6), false, true],
    ['a share, before enough rows sent', { percent: 5 }, counts(MAX_ERRORS_PERCENT_MIN_ROWS - 1, 50), false, false],
    ['a share, with enough rows sent', { percent: 5 }, counts(MAX_ERRORS_PERCENT_MIN_ROWS, 6), false, true],
    ['a share, once the input is done (a short file, or every row --limit takes)', { percent: 5 }, counts(20, 2), true, true],
    ['a share, at its limit', { percent: 5 }, counts(100, 5), true, false],
    ['a share, no row sent', { percent: 5 }, counts(0, 0), true, false],
  ])('%s', (_case, maxErrors, tally, inputDone, expected) => {
    expect(crossed(maxErrors, tally, inputDone)).toBe(expected);
  });

  const row = (outcome: RowResult['outcome'], apiCalls: number, errorCode: RowResult['errorCode'] = ''): Pick<RowResult, 'outcome' | 'apiCalls' | 'errorCode'> => ({ outcome, apiCalls, errorCode });

  it.each<[string, Pick<RowResult, 'outcome' | 'apiCalls' | 'errorCode'>, { sent: boolean; failed: boolean }]>([
    ['a row written', row('created', 3), { sent: true, failed: false }],
    ['an unchanged row settled without a call', row('unchanged', 0), { sent: false, failed: false }],
    ['a row invalid before any call (its own data)', row('failed', 0, 'INVALID_EMAIL'), { sent: false, failed: false }],
    ['a row the decision refused after its search (its own data)', row('failed', 1, 'DUPLICATE_CONTACTS'), { sent: true, failed: false }],
    ['a row the platform failed', row('failed', 2, 'SERVER_ERROR'), { sent: true, failed: true }],
    ['a row refused for a field the workspace lacks', row('failed', 2, 'FORBIDDEN'), { sent: true, failed: true }],
    ['a row not sent because the job stopped', row('failed', 0, 'ABORTED'), { sent: false, failed: false }],
  ])('what counts: %s', (_case, result, expected) => {
    expect(thresholdCount(result)).toEqual(expected);
  });

  it('a file 40% bad in its data never crosses 5%: only the rows the platform failed count, over the rows sent', () => {
    const tally = new RunTally();
    for (let i = 0; i < 400; i++) {
      tally.add({ outcome: i % 5 < 2 ? 'failed' : 'created', apiCalls: i % 5 < 2 ? 0 : 3, errorCode: i % 5 < 2 ? 'INVALID_EMAIL' : '', messageStatus: '' } as RowResult);
      expect(tally.thresholdAbort({ percent: 5 }, false, 'r/crm.results.csv')).toBeUndefined();
    }
    expect(tally.thresholdAbort({ percent: 5 }, true, 'r/crm.results.csv')).toBeUndefined();
    expect(tally.threshold).toEqual({ sent: 240, failed: 0 });
  });

  it('names the counts, the threshold and where the codes are', () => {
    const tally = new RunTally();
    const failed = { outcome: 'failed', apiCalls: 1, errorCode: 'SERVER_ERROR', messageStatus: '' } as RowResult;
    for (let i = 0; i < 6; i++) tally.add(failed);
    expect(tally.thresholdAbort({ count: 5 }, false, 'r/crm.results.csv')?.message).toBe(
      '6 of the 6 rows sent to the platform so far failed there, over --max-errors 5 (rows refused for their own data do not count); ' +
        'the error_code of those rows in r/crm.results.csv says what the platform refused: fix that, then run again',
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
    expect([ended, exitCodeOf(ended, statusArgs[1], rowsNeedLook(tally, messages, departed))]).toEqual([status, exitCode]);
  });
});
