/**
 * The units of the kinds that read a file (`run` and `reconcile`): the input's records, read ahead
 * (`row/row-lookahead.ts`), classified by the intake (`row-intake.ts`), the rows that need the API
 * run by the kind's row work (`row/sync-row.ts` or `row/reconcile-row.ts`), each finished row
 * counted by the tally, reported by the kind's report and shown to the progress display. A record
 * the run did not take is counted not reached when it is this shard's. And the input they come
 * from, opened with its header checked.
 */
import type { PlatformSurface } from '../../api/platform-surface.js';
import type { Job } from '../../config/job-types.js';
import { JobAbortError } from '../job-abort.js';
import { mapRow } from '../map/map.js';
import type { RowIntake } from './row-intake.js';
import type { RowLookahead } from '../row/row-lookahead.js';
import { notSentResult } from '../row/row-result.js';
import type { RowSync } from '../row/sync-row.js';
import type { RunTally, RowTally } from './file-run-tally.js';
import type { StopPolicy } from '../run/stop-policy.js';
import type { UnitWork } from '../run/unit-loop.js';
import type { Source } from '../source/source.js';
import { openCheckedSource } from '../source/checked-source.js';
import { HeaderMismatchError, nameRenamedColumns } from '../source/header-check.js';
import { DuplicateRowsStage } from './duplicate-rows-stage.js';
import { SourceError } from '../source/source-error.js';
import type { ContactDraft } from '../map/contact-draft.js';
import type { RowResult } from '../report/row-outcome.js';
import type { SourceRecord } from '../source/source-record.js';
import type { ReportWriteError } from '../report/report.js';
import { reportWriteAbort, writeUnitReport } from '../run/unit-report.js';

/** The calls of a kind's row on the platform's surface: at most (a row taken), and at least (a row not read yet). */
export interface RowCalls {
  atMost(draft: ContactDraft, surface: PlatformSurface): number;
  unreadAtLeast(surface: PlatformSurface, keyField: string): number;
}

/** A row finished, as the engine counts it: the kind's row (`RowSync` for `run`, `RowReconcile` for `reconcile`) and its calls. */
export type RowDone<Row extends RowSync = RowSync> = Row & { readonly calls: number };

/** A kind's work on one row that needs the API. */
export type RowWork<Row extends RowSync = RowSync> = (draft: ContactDraft, cells: string[]) => Promise<Row>;

export interface FileRowsOptions<Row extends RowSync = RowSync> {
  readonly job: Job;
  readonly intake: RowIntake;
  readonly work: RowWork<Row>;
  /** The most calls the kind's work makes on a row (`--max-duration`'s reckoning), from the surface's numbers. */
  readonly callsAtMost: (draft: ContactDraft) => number;
  readonly tally: RunTally;
  readonly policy: StopPolicy;
  /** The kind's report line of a finished row. */
  readonly report: (row: Row) => void;
  readonly mine: (key: string) => boolean;
  readonly onRow?: ((tally: Readonly<RowTally>, result: RowResult) => void) | undefined;
}

/** The rows' work for the engine's loop. */
export function fileRowWork<Row extends RowSync>(options: FileRowsOptions<Row>): UnitWork<SourceRecord, RowDone<Row>> {
  const { job, intake, work, tally, policy, mine, callsAtMost } = options;
  return {
    isMine: (record) => countsAsMine(record, job, mine),
    intake: (record, idle) => {
      const row = intake.classify(record, idle);
      if (row.kind === 'not-mine') return row;
      if (row.kind === 'ended') return { kind: 'ended', done: ended<Row>(row) };
      const { draft, cells } = row;
      return {
        kind: 'dispatch',
        key: draft.key,
        callsAtMost: callsAtMost(draft),
        run: async () => done(await work(draft, cells)),
        notSent: (abort) => ended<Row>({ result: notSentResult(draft, cells, abort) }),
      };
    },
    finish: (row) => {
      tally.add(row.result);
      // A failed write stops taking rows at once: every further row would be lost from the reports.
      policy.abortWith(writeUnitReport(() => options.report(row), ROWS_LEFT));
      options.onRow?.(tally.rows, row.result);
      policy.judgeErrors(false);
    },
  };
}

/**
 * The records of the input, read ahead, until the input breaks: a `SourceError` mid-file ends
 * them and is kept, so the rows in flight finish and the reports are complete (the job aborts
 * with `INPUT_READ_FAILED`, `failure()`).
 */
export function fileRecords(source: Source, ahead: RowLookahead): { readonly records: AsyncIterable<SourceRecord>; failure(): JobAbortError | undefined } {
  let broken: SourceError | undefined;
  return {
    records: ahead.records(untilUnreadable(source.records, (failure) => (broken = failure))),
    failure: () => (broken === undefined ? undefined : inputReadFailed(broken)),
  };
}

/** What the reports of a run of rows keep when a write fails (`run/unit-report.ts`, the one rule). */
export const ROWS_LEFT = 'no row was left half written, and the rows after it were not taken';

/** A report could not be written: the job stops, naming the file and the error. */
export function reportWriteFailed(error: ReportWriteError): JobAbortError {
  return reportWriteAbort(error, ROWS_LEFT);
}

function done<Row extends RowSync>(row: Row): RowDone<Row> {
  return { ...row, calls: row.result.apiCalls };
}

/**
 * A row that ended without the kind's work (no call: at the intake, or not sent): its result
 * alone. What a kind's row adds to `RowSync` is optional (a reconcile's comparison is absent when
 * the key was not read), so the result alone is a row of the kind.
 */
function ended<Row extends RowSync>(row: RowSync): RowDone<Row> {
  return { result: row.result, calls: 0, ...(row.abort === undefined ? {} : { abort: row.abort }) } as RowDone<Row>;
}

/** Whether a record the stopped job did not take belongs to this run (its shard). */
function countsAsMine(record: SourceRecord, job: Job, mine: (key: string) => boolean): boolean {
  if (record.kind === 'malformed') return mine('');
  const mapped = mapRow(record, job);
  return mine(mapped.ok ? mapped.draft.key : '');
}

async function* untilUnreadable<T>(records: AsyncIterable<T>, onFailure: (failure: SourceError) => void): AsyncGenerator<T, void, undefined> {
  try {
    yield* records;
  } catch (error) {
    if (!(error instanceof SourceError)) throw error;
    onFailure(error);
  }
}

function inputReadFailed(failure: SourceError): JobAbortError {
  return new JobAbortError('INPUT_READ_FAILED', `${failure.message}; the rows before the break were taken and are in the reports, the rest were not read`, { cause: failure });
}

/**
 * The input's first read (onDuplicateRows) and the source the rows come from, each opened with
 * the header checked; a column missing that the job's last run had is named as gone from the
 * export (`lastHeader`, the state store's).
 */
export async function openFileInput(job: Job, see: ((key: string) => void) | undefined, lastHeader: readonly string[] | undefined): Promise<{ duplicates: DuplicateRowsStage; source: Source }> {
  try {
    const duplicates = await DuplicateRowsStage.open(job, see);
    return { duplicates, source: await openCheckedSource(job) };
  } catch (error) {
    throw error instanceof HeaderMismatchError && lastHeader !== undefined ? nameRenamedColumns(error, lastHeader) : error;
  }
}
