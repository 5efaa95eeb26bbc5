/**
 * `reconcile`'s kind of run (docs/reconcile.md): the file compared with the platform, written to
 * nothing but its reports and the state store. Its row work is `reconcileRow` (read, compare,
 * refresh the state); its reports are diff.csv, reconcile.json and reconcile.html
 * (`report/reconcile-report.ts`); after the rows, when it read its whole input and the job's
 * marker paged, the marked contacts the file lacks; its exit code follows diff(1): 1 when the file
 * and the platform differ, as when a row failed.
 */
import type { JobAbortError } from '../job-abort.js';
import type { JobSummary } from '../report/job-summary.js';
import type { ReconcileReport } from '../report/reconcile-report.js';
import type { ReconcileSummary } from '../report/reconcile-summary.js';
import type { ContactIndex } from '../row/contact-index.js';
import type { KeySighting } from './key-sighting.js';
import { rowsNeedLook } from './file-run-tally.js';
import type { RowReconcile } from '../row/reconcile-row.js';
import type { RunKind } from '../run/run-engine.js';
import type { SourceRecord } from '../source/source-record.js';
import { KEY_READ_CALLS } from '../row/row-calls.js';
import { closedUnitReport, reportWriteAbort, writeUnitReport } from '../run/unit-report.js';
import { fileRowWork, ROWS_LEFT, type FileRowsOptions, type RowCalls, type RowDone } from './file-rows.js';
import { fileRunSummary, type FileRunFacts } from './file-run-summary.js';

/** Why a reconcile without `match.prefetch` cannot list the contacts the file lacks (reconcile.json, docs/reconcile.md). */
export const NO_EXTRA_WITHOUT_PREFETCH =
  'the job has no match.prefetch: only a marker field shared by the job\'s contacts lets them be listed; add one (docs/configuration.md, match.prefetch)';

/** A reconcile row only reads its key: one read, whatever the surface (it writes nothing). */
export const RECONCILE_ROW_CALLS: RowCalls = { atMost: () => KEY_READ_CALLS, unreadAtLeast: () => KEY_READ_CALLS };

export interface ReconcileKindOptions {
  readonly facts: FileRunFacts;
  readonly rows: Omit<FileRowsOptions<RowReconcile>, 'report'>;
  readonly input: { readonly records: AsyncIterable<SourceRecord>; failure(): JobAbortError | undefined };
  readonly report: ReconcileReport;
  /** The marked contacts the pages read, and the keys the file had: the contacts it lacks. Absent without `match.prefetch`. */
  readonly extra?: { readonly index: ContactIndex; readonly seen: KeySighting } | undefined;
  /** Whether the job has `match.prefetch` (reconcile.json says why the contacts the file lacks were not listed). */
  readonly prefetched: boolean;
}

export interface ReconcileEnding {
  /** The run's figures (its times, calls and stop); a reconcile writes no summary.json. */
  readonly summary: JobSummary;
  /** reconcile.json's content. */
  readonly reconcile: ReconcileSummary;
  /** The files the reconcile wrote, for the console. */
  readonly reportFiles: string[];
}

export function reconcileKind(options: ReconcileKindOptions): RunKind<SourceRecord, RowDone<RowReconcile>, ReconcileEnding> {
  const { facts, report, extra } = options;
  const { tally } = facts;
  let extraListed = false;
  return {
    units: options.input.records,
    work: fileRowWork({ ...options.rows, report: (row) => report.add(row.result, row.comparison) }),
    unitsEnded: () => options.input.failure(),
    afterUnits: () => {
      if (extra === undefined) return Promise.resolve(undefined);
      const abort = writeUnitReport(() => listExtra(extra.index, extra.seen, options.rows.mine, report), ROWS_LEFT);
      extraListed = abort === undefined;
      return Promise.resolve(abort);
    },
    closeUnits: () => closedUnitReport(report.closeRows(), ROWS_LEFT),
    // Its rows are all `unchanged` (it writes nothing): its journal line keeps its keys' figures.
    journalRows: () => reconciledKeys(report),
    needsLook: () => rowsNeedLook(tally.rows, tally.messages, undefined) || report.differences > 0,
    summarize: (end) => {
      // privacy.mask: the console and the log take these objects, their texts masked (report/mask.ts).
      const summary = report.masker.deep(fileRunSummary(facts, end));
      const reconcile = report.masker.deep(reconcileSummary(report, summary, { runId: facts.runId, extraListed, prefetched: options.prefetched }));
      const reportFiles = [report.paths.diff, report.paths.summary, report.paths.html];
      const failure = report.writeSummary(reconcile);
      if (failure === undefined) return { summary: { summary, reconcile, reportFiles } };
      const abort = reportWriteAbort(failure, ROWS_LEFT);
      reconcile.status = 'aborted';
      reconcile.aborted ??= { code: abort.code, message: abort.message };
      return { summary: { summary, reconcile, reportFiles }, abort };
    },
  };
}

/** The marked contacts (prefetch index) whose key no row of this run had, in the index's order. */
function listExtra(index: ContactIndex, seen: KeySighting, mine: (key: string) => boolean, report: ReconcileReport): void {
  for (const [key, contacts] of index.entries()) {
    if (mine(key) && !seen.has(key)) report.addExtra(key, contacts);
  }
}

/** The keys of a reconcile by status, `inFile` first, as reconcile.json's `keys`. */
function reconciledKeys(report: ReconcileReport): ReconcileSummary['keys'] {
  const { keys } = report;
  return { inFile: keys.same + keys.differs + keys.missing + keys.duplicate + keys.failed, ...keys };
}

/** reconcile.json, from the report's counts and the run's summary (its times, calls and stop). */
function reconcileSummary(report: ReconcileReport, summary: JobSummary, run: { runId: number | undefined; extraListed: boolean; prefetched: boolean }): ReconcileSummary {
  return {
    job: summary.job,
    runId: run.runId === undefined ? null : String(run.runId),
    startedAt: summary.startedAt,
    finishedAt: summary.finishedAt,
    durationMs: summary.durationMs,
    status: summary.status ?? 'completed',
    keys: reconciledKeys(report),
    fields: report.fieldCounts(),
    extra: run.extraListed
      ? { listed: true }
      : { listed: false, reason: run.prefetched ? 'the reconcile did not read its whole input (stopped early, --limit or an abort)' : NO_EXTRA_WITHOUT_PREFETCH },
    apiCalls: summary.apiCalls,
    notReached: summary.rows.notReached ?? 0,
    ...(summary.aborted === undefined ? {} : { aborted: summary.aborted }),
  };
}
