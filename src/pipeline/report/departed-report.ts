/**
 * `<job>.departed.csv` (with `onMissing`): one row per key that left the input, and what the
 * departed step did to its contact (docs/reports.md). For people: cells a spreadsheet would run
 * are neutralised.
 */
import { join } from 'node:path';
import { CsvFile, reportWriteFailure, type ReportWriteError } from './report.js';

export const DEPARTED_COLUMNS = ['key', 'contact_id', 'action', 'outcome', 'api_calls', 'error_code', 'error_message'] as const;

/**
 * `updated`: the action changed the contact; `unchanged`: it already was so (or `keep`, or a
 * dry run's contact that needs no call); `skipped`: not acted on (the step was refused, the
 * contact is gone); `failed`: a call failed (tried again by the next complete run).
 */
export type DepartedOutcome = 'updated' | 'unchanged' | 'skipped' | 'failed';

export interface DepartedRow {
  readonly key: string;
  readonly contactId: string;
  readonly action: string;
  readonly outcome: DepartedOutcome;
  readonly apiCalls: number;
  readonly errorCode: string;
  readonly errorMessage: string;
}

export function departedPath(dir: string, reportName: string): string {
  return join(dir, `${reportName}.departed.csv`);
}

export class DepartedReport {
  readonly #file: CsvFile;

  constructor(readonly path: string) {
    this.#file = new CsvFile(path, DEPARTED_COLUMNS, true);
  }

  /** @throws ReportWriteError when the file cannot take the row */
  add(row: DepartedRow): void {
    this.#file.append([row.key, row.contactId, row.action, row.outcome, String(row.apiCalls), row.errorCode, row.errorMessage]);
  }

  /** Flushes and closes; the write failure, if any (the file ends at its last whole row). */
  close(): ReportWriteError | undefined {
    return reportWriteFailure(() => this.#file.close());
  }
}
