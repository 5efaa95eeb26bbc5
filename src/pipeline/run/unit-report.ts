/**
 * The unit report's life, one rule for every kind of run: a write to the report of the units that
 * failed (a full disk, a lost mount: `ReportWriteError`) is the run's abort (`REPORT_WRITE_FAILED`),
 * taken at once, for every further unit would be lost from the reports; a close that failed is the
 * run's abort too. Anything else a write throws (a bug) is thrown on. The kind says, in `left`,
 * what its report kept whole and what was not taken.
 */
import { JobAbortError } from '../job-abort.js';
import { ReportWriteError } from '../report/report.js';

/** The run's abort for a report that could not be written: the file and the error, what `left` says, the fix. */
export function reportWriteAbort(error: ReportWriteError, left: string): JobAbortError {
  return new JobAbortError('REPORT_WRITE_FAILED', `${error.message}; ${left}: ${error.fix}`, { cause: error });
}

/** Runs a write of the report (a finished unit's lines, or a step's); its failure is returned as the run's abort. */
export function writeUnitReport(write: () => void, left: string): JobAbortError | undefined {
  try {
    write();
    return undefined;
  } catch (error) {
    if (!(error instanceof ReportWriteError)) throw error;
    return reportWriteAbort(error, left);
  }
}

/** A report closed: its failure (the files end at their last whole line), if any, as the run's abort. */
export function closedUnitReport(failure: ReportWriteError | undefined, left: string): JobAbortError | undefined {
  return failure === undefined ? undefined : reportWriteAbort(failure, left);
}
