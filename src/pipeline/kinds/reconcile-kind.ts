/**
 * `reconcile`'s kind of run (docs/reconcile.md): the file compared with the platform, written to
 * nothing but its reports and the state store. Its row work is `reconcileRow` (read, compare,
 * refresh the state); its reports are diff.csv, reconcile.json and reconcile.html
 * (`report/reconcile-report.ts`); after the rows, when it read its whole input and the job's
 * marker paged, the marked contacts the file lacks; its exit code follows diff(1): 1 when the file
 * and the platform differ, as when a row failed.
 */
import type { ContactsApi } from '../../api/contacts-api.js';
import { ApiError } from '../../api/errors.js';
import type { Job } from '../../config/job-types.js';
import type { KnownContact } from '../../state/known-contact.js';
import type { ChangeJournalStore } from '../../state/state-port.js';
import { abortReason } from '../abort-reason.js';
import type { JobAbortError } from '../job-abort.js';
import type { DiffAction } from '../report/reconcile-summary.js';
import { planTagExtra } from '../row/finish-plan.js';
import { writeKnownContact } from '../row/write.js';
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

/**
 * With `--merge-duplicates` a row may merge its key's contacts: reckoned (`--max-duration`) as a key
 * held by two, its read, the merge, the survivor read back and a tags call. A key held by more
 * makes one merge more each, beyond the reckoning: rare, and said in docs/reconcile.md.
 */
export const RECONCILE_MERGE_ROW_CALLS: RowCalls = { atMost: () => KEY_READ_CALLS + 3, unreadAtLeast: () => KEY_READ_CALLS };

export interface ReconcileKindOptions {
  readonly facts: FileRunFacts;
  readonly rows: Omit<FileRowsOptions<RowReconcile>, 'report'>;
  readonly input: { readonly records: AsyncIterable<SourceRecord>; failure(): JobAbortError | undefined };
  readonly report: ReconcileReport;
  /** The marked contacts the pages read, and the keys the file had: the contacts it lacks. Absent without `match.prefetch`. */
  readonly extra?: { readonly index: ContactIndex; readonly seen: KeySighting } | undefined;
  readonly job: Job;
  /** Whether the job has `match.prefetch` (reconcile.json says why the contacts the file lacks were not listed). */
  readonly prefetched: boolean;
  /** `--merge-duplicates` / `--tag-extras`: reconcile's own writes (reconcile.json `finish`), and what they go through. */
  readonly finish?: ReconcileFinish | undefined;
  readonly writer: FinishWriter;
}

/** What reconcile writes to the platform beside its comparison (issue 46, docs/reconcile.md "Finishing the job"). */
export interface ReconcileFinish {
  /** List what would be written; write nothing to the platform. */
  readonly dryRun: boolean;
  /** `--merge-duplicates` (a surface that merges; the rows do it: `reconcile-row.ts`). */
  readonly mergeDuplicates: boolean;
  /** `--tag-extras TAG`: the tag. */
  readonly tagExtras?: string | undefined;
}

/** The client and the journal reconcile's own writes go through. */
export interface FinishWriter {
  readonly api: ContactsApi;
  readonly journal?: ChangeJournalStore | undefined;
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
    work: fileRowWork({ ...options.rows, report: (row) => report.add(row.result, row.comparison, row.finish) }),
    unitsEnded: () => options.input.failure(),
    afterUnits: async () => {
      if (extra === undefined) return undefined;
      const found = extraContacts(extra.index, extra.seen, options.rows.mine);
      const tag = options.finish?.tagExtras;
      const tagged = tag === undefined ? undefined : await tagExtras(found, { tag, ...options.writer }, options.finish?.dryRun === true, options.job);
      if (tagged?.abort !== undefined) return tagged.abort;
      const abort = writeUnitReport(() => {
        for (const [index, [key, contacts]] of found.entries()) report.addExtra(key, contacts, tagged?.lines[index]);
      }, ROWS_LEFT);
      extraListed = abort === undefined;
      return abort;
    },
    closeUnits: () => closedUnitReport(report.closeRows(), ROWS_LEFT),
    // Its rows are all `unchanged` (it writes nothing): its journal line keeps its keys' figures.
    journalRows: () => reconciledKeys(report),
    needsLook: () => rowsNeedLook(tally.rows, tally.messages, undefined) || report.differences > 0,
    summarize: (end) => {
      // privacy.mask: the console and the log take these objects, their texts masked (report/mask.ts).
      const summary = report.masker.deep(fileRunSummary(facts, end));
      const finished = report.finishSummary({ dryRun: options.finish?.dryRun === true, merge: options.finish?.mergeDuplicates === true, tag: options.finish?.tagExtras });
      const reconcile = report.masker.deep({ ...reconcileSummary(report, summary, { runId: facts.runId, extraListed, prefetched: options.prefetched }), ...(finished === undefined ? {} : { finish: finished }) });
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
function extraContacts(index: ContactIndex, seen: KeySighting, mine: (key: string) => boolean): Array<[string, KnownContact[]]> {
  return [...index.entries()].filter(([key]) => mine(key) && !seen.has(key));
}

type ExtraTagged = { readonly action: DiffAction; readonly error?: { readonly code: string; readonly message: string } };

/**
 * `--tag-extras TAG`: each contact of the marker set the file lacks gets TAG (`planTagExtra`),
 * through the one writer, journalled under the reconcile's run (add-tags lines: undo of the
 * reconcile takes the tag away). One line per key: the first failure's error, else what was done.
 * What stops the job (a refused token) stops it here too.
 */
async function tagExtras(found: ReadonlyArray<[string, KnownContact[]]>, tagging: FinishWriter & { readonly tag: string }, dryRun: boolean, job: Job): Promise<{ lines: ExtraTagged[]; abort?: JobAbortError }> {
  const lines: ExtraTagged[] = [];
  const journal = tagging.journal ?? { journalChange: () => undefined };
  for (const [key, contacts] of found) {
    let line: ExtraTagged = { action: 'already-tagged' };
    for (const contact of contacts) {
      const plan = planTagExtra(contact, tagging.tag, tagging.api.surface);
      if (plan.operations.length === 0) continue;
      if (dryRun) {
        line = { action: 'would-tag' };
        continue;
      }
      try {
        await writeKnownContact(tagging.api, plan, key, contact.id, journal);
        if (line.action !== 'tag-failed') line = { action: 'tagged' };
      } catch (error) {
        const abort = abortReason(error, job, `tagging the contact of key ${key} (--tag-extras)`);
        if (abort !== undefined) return { lines, abort };
        if (!(error instanceof ApiError)) throw error;
        line = { action: 'tag-failed', error: { code: error.code, message: error.message } };
      }
    }
    lines.push(line);
  }
  return { lines };
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
