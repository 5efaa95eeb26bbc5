/**
 * The error threshold (`maxErrors`, `--max-errors`): what counts toward it, over what, and when it
 * stops a run. Pure; a kind's tally feeds it the units as they finish (test/pipeline/run-tally.test.ts
 * is its table, docs/configuration.md says it for users).
 *
 * The threshold is there to stop a run that the platform is failing (a field missing in the
 * workspace, a broken token, an outage): each such row spends calls of the channel's budget for
 * nothing. A row the file itself gets wrong (an invalid email, no key, a duplicate contact) is
 * refused before its write and costs at most its search: it is reported, and `validate` finds it
 * before any run, so it does not count. Nor does the share count over the file's rows: an
 * unchanged row of a nightly re-run calls nothing, and a thousand failing writes among a million
 * unchanged rows would never reach a share of the file.
 */
import { describeMaxErrors, type MaxErrors } from '../../config/max-errors.js';
import { JobAbortError } from '../job-abort.js';
import { failureCause } from '../report/failure-cause.js';
import type { RowResult } from '../report/row-outcome.js';
import { counted } from '../report/counted.js';

/** Rows sent to the platform a share waits for before it may stop a run: 1 failure in 3 rows is no trend. */
export const MAX_ERRORS_PERCENT_MIN_ROWS = 100;

/** What the threshold is judged on: the rows the platform was called for, and those it failed. */
export interface ThresholdCounts {
  /** Finished rows that made at least one call. */
  readonly sent: number;
  /** Of those, the rows that failed for a cause outside their own data (`failure-cause.ts`: `run-again`). */
  readonly failed: number;
}

/** How one finished row counts toward the threshold. */
export function thresholdCount(result: Pick<RowResult, 'outcome' | 'apiCalls' | 'errorCode'>): { sent: boolean; failed: boolean } {
  const sent = result.apiCalls > 0;
  return { sent, failed: sent && result.outcome === 'failed' && failureCause(result.errorCode) === 'run-again' };
}

/**
 * Whether `counts` crossed `maxErrors`. A count is crossed at once; a share waits for
 * `MAX_ERRORS_PERCENT_MIN_ROWS` rows sent, unless `inputDone`: the run read its whole input, so
 * the rows sent are all there will be (a short file is judged whole).
 */
export function crossed(maxErrors: MaxErrors | undefined, counts: ThresholdCounts, inputDone: boolean): boolean {
  if (maxErrors === undefined) return false;
  if ('count' in maxErrors) return counts.failed > maxErrors.count;
  if (!inputDone && counts.sent < MAX_ERRORS_PERCENT_MIN_ROWS) return false;
  return counts.sent > 0 && (counts.failed / counts.sent) * 100 > maxErrors.percent;
}

/** The job's abort when the threshold is crossed: the counts, the threshold, and where the rows' codes are. */
export function maxErrorsAbort(counts: ThresholdCounts, maxErrors: MaxErrors, results: string): JobAbortError {
  return new JobAbortError(
    'MAX_ERRORS',
    `${counts.failed} of the ${counted(counts.sent, 'row')} sent to the platform so far failed there, over --max-errors ${describeMaxErrors(maxErrors)} ` +
      `(rows refused for their own data do not count); the error_code of those rows in ${results} says what the platform refused: fix that, then run again`,
  );
}
