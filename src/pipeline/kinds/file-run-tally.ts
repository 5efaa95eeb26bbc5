/**
 * The tally of a run that reads a file (`run`, `reconcile`): the rows by outcome and the messages
 * by status as rows finish, fed to the error threshold (`run/error-threshold.ts`), and whether the
 * rows need a look. Pure rules over the counts (test/pipeline/run-tally.test.ts is their table);
 * `run-job.ts` only feeds it.
 */
import type { MaxErrors } from '../../config/max-errors.js';
import type { JobAbortError } from '../job-abort.js';
import { crossed, maxErrorsAbort, thresholdCount } from '../run/error-threshold.js';
import { failureCause } from '../report/failure-cause.js';
import type { RowOutcome, RowResult } from '../report/row-outcome.js';

export type RowTally = Record<'total' | RowOutcome, number>;
export type MessageTally = Record<'sent' | 'skipped' | 'failed' | 'unknown', number>;

export class RunTally {
  readonly rows: RowTally = { total: 0, created: 0, updated: 0, unchanged: 0, skipped: 0, failed: 0 };
  readonly messages: MessageTally = { sent: 0, skipped: 0, failed: 0, unknown: 0 };
  /** Rows written without a field (`onInvalid: skip-field`), and the skips by field. */
  readonly fieldsSkipped: { rows: number; byField: Record<string, number> } = { rows: 0, byField: {} };
  /** Rows whose phone was written without its extension, and those phones by field. */
  readonly phoneExtensionsDropped: { rows: number; byField: Record<string, number> } = { rows: 0, byField: {} };
  /** Rows whose tags differ only in case (`VIP;vip`), and the first such row's tags, for the warning. */
  readonly tagsDifferingInCase: { rows: number; firstLine: number; example: string[] } = { rows: 0, firstLine: 0, example: [] };
  /** The failed rows by cause: their own data (rejected.csv) or outside it (run again); report/failure-cause.ts. */
  readonly failedRows = { toFix: 0, toRunAgain: 0 };
  /** What the error threshold is judged on: the rows sent to the platform, and those it failed. */
  readonly threshold = { sent: 0, failed: 0 };

  /** Counts a finished row. */
  add(result: RowResult): void {
    this.rows.total++;
    this.rows[result.outcome]++;
    if (result.fieldsSkipped !== undefined && result.outcome !== 'failed') {
      this.fieldsSkipped.rows++;
      for (const skip of result.fieldsSkipped) this.fieldsSkipped.byField[skip.field] = (this.fieldsSkipped.byField[skip.field] ?? 0) + 1;
    }
    if (result.phoneExtensions !== undefined && result.outcome !== 'failed') {
      this.phoneExtensionsDropped.rows++;
      for (const note of result.phoneExtensions) this.phoneExtensionsDropped.byField[note.field] = (this.phoneExtensionsDropped.byField[note.field] ?? 0) + 1;
    }
    if (result.tagCaseVariants !== undefined && this.tagsDifferingInCase.rows++ === 0) {
      this.tagsDifferingInCase.firstLine = result.line;
      this.tagsDifferingInCase.example = result.tagCaseVariants;
    }
    if (result.outcome === 'failed') this.failedRows[failureCause(result.errorCode) === 'fix' ? 'toFix' : 'toRunAgain']++;
    if (result.messageStatus !== '') this.messages[result.messageStatus]++;
    const counted = thresholdCount(result);
    if (counted.sent) this.threshold.sent++;
    if (counted.failed) this.threshold.failed++;
  }

  /** The job's abort when the rows the platform failed crossed `maxErrors` (error-threshold.ts); `inputDone`: every row there will be is in. */
  thresholdAbort(maxErrors: MaxErrors | undefined, inputDone: boolean, results: string): JobAbortError | undefined {
    return maxErrors !== undefined && crossed(maxErrors, this.threshold, inputDone) ? maxErrorsAbort(this.threshold, maxErrors, results) : undefined;
  }
}

/**
 * Whether a sync's rows need a look: a failed row, a message that failed or may not have
 * arrived, a departed step that was refused or could not act on a key.
 */
export function rowsNeedLook(tally: RowTally, messages: Pick<MessageTally, 'failed' | 'unknown'>, departed: { readonly refused: boolean; readonly failed: number } | undefined): boolean {
  const departedNeedsLook = departed !== undefined && (departed.refused || departed.failed > 0);
  return tally.failed > 0 || messages.failed > 0 || messages.unknown > 0 || departedNeedsLook;
}
