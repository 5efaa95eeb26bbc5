/**
 * The two kinds of run that read a file, each wired by its own function and returning its own
 * result: `runSync` (`run`: the file made true on the platform) and `runReconcile` (the file
 * compared with it, docs/reconcile.md), each a kind of the one run engine (`run/run-engine.ts`).
 * Both open their run one way (`kinds/file-run.ts`, `openFileRun`), saying what they are before
 * their rows (`FileRunShape`), then bring their `RunKind` (`kinds/sync-kind.ts`,
 * `kinds/reconcile-kind.ts`): reports, step after the rows, summary.
 */
import type { PrefetchChoice } from './row/prefetch-choice.js';
import { snapshotInput } from './source/input-snapshot.js';
import { knownKeysNow } from './departed/settle-departed.js';
import { departedPath } from './report/departed-report.js';
import { ReportWriter } from './report/report.js';
import { jobMasker } from './report/mask.js';
import { syncRow } from './row/sync-row.js';
import { reconcileRow } from './row/reconcile-row.js';
import { ReconcileReport } from './report/reconcile-report.js';
import { runEngine } from './run/run-engine.js';
import { RECONCILE_MERGE_ROW_CALLS, RECONCILE_ROW_CALLS, reconcileKind, type ReconcileEnding, type ReconcileFinish } from './kinds/reconcile-kind.js';
import { SYNC_ROW_CALLS, syncKind, type SyncEnding } from './kinds/sync-kind.js';
import type { ContactDraft } from './map/contact-draft.js';
import { openFileRun, type FileRunEnd, type RunJobOptions } from './kinds/file-run.js';
export type { FileRunEnd, RunJobOptions } from './kinds/file-run.js';

/** A `run`'s result: summary.json's content, its files, the departed report. */
export type SyncRun = SyncEnding & FileRunEnd;
/** A `reconcile`'s result: its figures, reconcile.json's content, its files. */
export type ReconcileRun = ReconcileEnding & FileRunEnd;

const RECONCILE_PAGES: PrefetchChoice = { use: true, reason: 'reconcile: only the pages list the marked contacts the file lacks' };

/** `run`: the file made true on the platform; a guarded run judges and writes from one copy of its input (source/input-snapshot.ts). */
export async function runSync(options: RunJobOptions): Promise<SyncRun> {
  if (options.job.guards === undefined) return syncOnInput(options);
  const snapshot = await snapshotInput(options.job.input, options.temporaryDir);
  try {
    return await syncOnInput({ ...options, job: { ...options.job, input: snapshot.input } });
  } finally {
    await snapshot.release();
  }
}

async function syncOnInput(options: RunJobOptions): Promise<SyncRun> {
  const run = await openFileRun(options, {
    readsEveryKey: false,
    writes: true,
    calls: SYNC_ROW_CALLS,
    openReport: (reportName, source) => new ReportWriter(options.reportDir, reportName, { header: source.header, layout: source.layout }, options.api.surface, jobMasker(options.job)),
    thresholdFile: (report) => report.paths.results,
  });
  const { report, seen, context, facts, rows, input, engine, source, reportName, partial, policy } = run;
  const { state, job } = options;
  const ended = await runEngine(
    syncKind({
      facts,
      input,
      report,
      layout: source.layout,
      withheld: context.withheld,
      rows: { ...rows, work: (draft, cells) => syncRow(draft, cells, context) },
      departed: seen === undefined || state === undefined ? undefined : { state, seen, reportPath: departedPath(options.reportDir, reportName), maxSharePercent: options.maxMissingPercent, knownBefore: knownKeysNow(state, rows.mine) },
      departedWhyNot: partial ?? (state === undefined ? 'there is no state store yet (a first run, or a dry run before one): no key is known to have left' : undefined),
      verify: job.verify === undefined || state === undefined ? undefined : { state, policy: policy.afterUnits() },
    }),
    engine,
  );
  return run.end(ended);
}

/**
 * `reconcile`: reads the platform for every key, whatever the state store believes (no row is
 * settled without it, no earlier reconcile's read stands for a search), changes nothing but its
 * reports and the state (no guard, no header kept, no departed step), and pages whenever the job
 * has a marker: only the pages list the contacts the file lacks.
 */
export async function runReconcile(options: RunJobOptions & { readonly finish?: ReconcileFinish | undefined }): Promise<ReconcileRun> {
  const run = await openFileRun(options, {
    readsEveryKey: true,
    writes: false,
    pagesWhenMarked: RECONCILE_PAGES,
    calls: options.finish?.mergeDuplicates === true ? RECONCILE_MERGE_ROW_CALLS : RECONCILE_ROW_CALLS,
    openReport: (reportName) => new ReconcileReport(options.reportDir, reportName, jobMasker(options.job), options.finish !== undefined),
    thresholdFile: (report) => report.paths.diff,
  });
  const { report, seen, index, facts, rows, input, engine, prefetched } = run;
  const { api, job, state } = options;
  const extra = index !== undefined && seen !== undefined ? { index, seen } : undefined;
  const { finish } = options;
  const merge = finish?.mergeDuplicates === true ? { dryRun: finish.dryRun } : undefined;
  const work = (draft: ContactDraft, cells: string[]): ReturnType<typeof reconcileRow> => reconcileRow(draft, cells, { api, job, ...(state ? { state } : {}), ...(index ? { index } : {}), ...(merge ? { merge } : {}) });
  return run.end(await runEngine(reconcileKind({ facts, input, report, extra, prefetched, job, finish, writer: { api, journal: state }, rows: { ...rows, work } }), engine));
}
