/**
 * One job, as the pipeline reads: source -> map -> match -> plan -> write -> report. This file
 * only wires the stages, each in its own file:
 * - before any call: the first read of the input (onDuplicateRows, and the unknown keys
 *   match.prefetch's choice counts), the reports opened, the run journalled, the prefetch pages;
 * - the intake (`row-intake.ts`) classifies each record: another shard's, ended here with no call
 *   (unreadable, settled by its row hash, failed in mapping, decided by onDuplicateRows, needing
 *   no call), or to dispatch;
 * - the dispatcher (`row-dispatcher.ts`) runs the rows that need the API (`row/sync-row.ts`) in
 *   their key's lane through one queue, holding the reader back while enough wait;
 * - the tally (`run-tally.ts`) counts the rows as they finish, applies the error threshold, and
 *   gives the status, the exit code and the summary;
 * - after the rows: the departed step (`onMissing`) when the run read its whole input, the
 *   journal and the reports closed.
 * What stops taking rows is here: an abort, a signal, `--limit`, the deadline.
 * `reconcile` (`work: 'reconcile'`, docs/reconcile.md) is the same run with its own row work in
 * place of `syncRow` (`row/reconcile-row.ts`: read, compare, refresh the state; never a write), its
 * own reports (`report/reconcile-report.ts`) and, after the rows, the marked contacts the file
 * lacks in place of the departed step (docs/architecture.md).
 */
import type { ContactsApi } from '../api/contacts-api.js';
import type { Job } from '../config/job-types.js';
import type { MaxErrors } from '../config/max-errors.js';
import type { RunStatus } from '../state/run-journal.js';
import type { StateStore } from '../state/state-store.js';
import { PrefetchStep } from './prefetch-step.js';
import type { PrefetchChoice } from './row/prefetch-choice.js';
import { openCheckedSource } from './source/checked-source.js';
import { HeaderMismatchError, nameRenamedColumns } from './source/header-check.js';
import type { Source } from './source/source.js';
import { assertGuards } from './guards/run-guards.js';
import type { GuardName } from './guards/guard-verdict.js';
import { SourceError } from './source/source-error.js';
import { isSqliteError, JobAbortError, stateWriteFailed } from './job-abort.js';
import { DuplicateRowsStage } from './duplicate-rows-stage.js';
import { pastTakingTime, rowCallsAtMost, timeToFinishMs } from './deadline.js';
import { mapRow } from './map/map.js';
import { KeySighting } from './key-sighting.js';
import { knownKeysNow, settleDeparted, type DepartedStep, type DepartedSummary } from './departed/settle-departed.js';
import { partialInputReason } from './departed/partial-input.js';
import { lineEndName } from './source/input-layout.js';
import { departedPath } from './report/departed-report.js';
import type { MatchedContact } from './row/plan.js';
import { ReportWriteError, ReportWriter, reportWriteAbort } from './report/report.js';
import type { JobSummary } from './report/job-summary.js';
import { reportName as shardReportName, shardOf, type Shard } from './shard.js';
import { RowLookahead, settlesByRowHash } from './row/row-lookahead.js';
import { mappingFingerprint } from './map/row-hash.js';
import { syncRow, type RowSync } from './row/sync-row.js';
import { reconcileRow } from './row/reconcile-row.js';
import { freshReadsAfter } from './row/fresh-read.js';
import type { KeyComparison } from './row/compare.js';
import { ReconcileReport } from './report/reconcile-report.js';
import type { ReconcileSummary } from './report/reconcile-summary.js';
import type { ContactIndex } from './row/contact-index.js';
import { notSentResult } from './row/row-result.js';
import { RowDispatcher } from './row-dispatcher.js';
import { RowIntake } from './row-intake.js';
import { estimateRealRun, WithheldCalls } from './real-run-estimate.js';
import { exitCodeOf, RunTally, statusOf, summarize, type RowTally, type RunExitCode, type StopReason } from './run-tally.js';
import type { RowResult } from './types.js';

/** What a run of one job is given. Every I/O dependency is here, so tests pass their own. */
export interface RunJobOptions {
  readonly job: Job;
  /** The platform, through the ContactsApi port (the API client, or a test's). */
  readonly api: ContactsApi;
  /** Folder of `<job>.results.csv`, `<job>.rejected.csv`, `<job>.summary.json`, `<job>.report.html`. */
  readonly reportDir: string;
  /** Search and plan, write nothing: outcomes say what would happen. */
  readonly dryRun: boolean;
  /** Take at most this many data rows (`--limit`). @default every row */
  readonly limit?: number;
  /** Overrides `job.maxErrors` (`--max-errors`). @default job.maxErrors */
  readonly maxErrors?: MaxErrors;
  /** Aborting it stops taking rows; rows in flight finish and the reports are written. @default none */
  readonly signal?: AbortSignal;
  /**
   * `--max-duration`: the time (ms since the epoch, on `now`'s clock) by which the run must be
   * done. It stops taking rows early enough for the rows in flight to finish by then. @default none
   */
  readonly deadline?: number;
  /** Told once when the run stops taking rows early (a signal or the deadline): rows in flight and about how long they need. */
  readonly onStopping?: (info: { reason: 'signal' | 'deadline'; inFlight: number; finishMs: number }) => void;
  /** The job's state store; the caller opens and closes it. @default none (`state: false`, or a dry run before any) */
  readonly state?: StateStore;
  /** `--full`: ignore the state's hashes and compare every row with the platform. @default false */
  readonly full?: boolean;
  /** The command line without secrets, for the state store's journal of runs. @default '' */
  readonly argv?: string;
  /** Handle only the rows whose key belongs to this shard (`--shard I/N`). @default every row */
  readonly shard?: Shard;
  /** `--max-missing`: `onMissing.maxShare` for this run, percent. @default job.onMissing.maxShare */
  readonly maxMissingPercent?: number;
  /** `--partial`: the input is a part of the export; the departed step does not run. @default false */
  readonly partial?: boolean;
  /**
   * The version of contact-sync, part of the row hashes' mapping fingerprint: another version may
   * map a row otherwise, so its first run maps every row again (`map/row-hash.ts`). @default ''
   */
  readonly productVersion?: string;
  /** Told once, before the rows, whether `match.prefetch` pages and why. */
  readonly onPrefetch?: (choice: PrefetchChoice) => void;
  /** Called after each row with the running tally (progress display). */
  readonly onRow?: (tally: Readonly<RowTally>, result: RowResult) => void;
  /** The clock. @default () => new Date() */
  readonly now?: () => Date;
  /** `--allow NAME`: the guards (`job.guards`) this run may go past. @default none */
  readonly allow?: ReadonlySet<GuardName>;
  /**
   * `sync` makes the platform match the file (`run`); `reconcile` compares them and writes only
   * its reports and the state store (`reconcile`, docs/reconcile.md). @default 'sync'
   */
  readonly work?: 'sync' | 'reconcile';
}

/** Why a reconcile without `match.prefetch` cannot list the contacts the file lacks (reconcile.json, docs/reconcile.md). */
export const NO_EXTRA_WITHOUT_PREFETCH =
  'the job has no match.prefetch: only a marker field shared by the job\'s contacts lets them be listed; add one (docs/configuration.md, match.prefetch)';

export interface JobRun {
  /** summary.json's content (a reconcile writes none: its counts are `reconcile`). */
  summary: JobSummary;
  /** The files the run wrote, for the console. */
  reportFiles: string[];
  /** `work: 'reconcile'`: reconcile.json's content. */
  reconcile?: ReconcileSummary;
  /** Every row ended well, some rows failed, aborted mid-run, stopped at the deadline, or interrupted (SIGINT / SIGTERM). */
  exitCode: RunExitCode;
  /** File-level advice about the input (it looks like windows-1252), said once, not per row. */
  inputHint?: string;
  /** `<job>.departed.csv`, when the departed step ran. */
  departedReport?: string;
  /** Rows settled as unchanged by their row hash, without being mapped (not in summary.json). */
  rowsByRowHash: number;
}

export async function runJob(options: RunJobOptions): Promise<JobRun> {
  const { job, api } = options;
  const now = options.now ?? (() => new Date());
  const startedAt = now();
  const maxErrors = options.maxErrors ?? job.maxErrors;
  const { shard } = options;
  const mine = (key: string): boolean => shard === undefined || shardOf(key, shard.count) === shard.index;

  // Before any call: match.prefetch's choice counts the unknown keys in onDuplicateRows' first
  // read of the input, which finds the keys on several rows.
  const reconciling = options.work === 'reconcile';
  // A reconcile reads the platform for every key, whatever the state store believes.
  const full = options.full === true || reconciling;
  // What the reconcile right before this run read stands for searches (row/fresh-read.ts); a
  // reconcile reads every key itself.
  const freshReads = reconciling || options.state === undefined ? undefined : freshReadsAfter(options.state.lastRun(), startedAt.getTime());
  const prefetch = PrefetchStep.of(job, { ...(options.state ? { state: options.state } : {}), full, mine, ...(freshReads ? { freshReads } : {}) });
  const { duplicates, source } = await openInput(job, prefetch?.see, options.state?.lastHeader());
  // Before the reports are opened or the run journalled: a night a guard refuses does nothing.
  if (job.guards !== undefined && !reconciling) {
    try {
      await assertGuards(job, {
        ...(options.state ? { state: options.state, knownKeys: knownKeysNow(options.state, mine) } : { knownKeys: 0 }),
        mine,
        allow: options.allow ?? new Set(),
      });
    } catch (error) {
      await source.close();
      throw error;
    }
  }

  // Shards of one job often share a report folder: each writes its own files. The reports are
  // opened before the run is journalled or any call made: a folder that cannot take them stops
  // the job before it did anything.
  const reportName = shardReportName(job.name, shard);
  let report: ReportWriter | ReconcileReport;
  try {
    report = reconciling ? new ReconcileReport(options.reportDir, reportName) : new ReportWriter(options.reportDir, reportName, { header: source.header, layout: source.layout });
  } catch (error) {
    await source.close();
    throw error;
  }
  // The error threshold counts rows the platform failed, which are in results.csv (not rejected.csv: nothing to fix in them).
  const thresholdReportFile = report instanceof ReportWriter ? report.paths.results : report.paths.diff;
  const state = options.dryRun ? undefined : options.state;
  const statePath = job.state === false ? '' : job.state;
  let abort: JobAbortError | undefined;
  let runId: number | undefined;
  try {
    // A reconcile reads every key, but is no `--full` run: `state show` names it by its command.
    runId = state?.startRun({ job: job.name, argv: options.argv ?? '', full: options.full === true });
    // The next run names a column renamed upstream by this header (header-check.ts).
    if (!reconciling) state?.recordHeader(source.header);
  } catch (error) {
    if (!isSqliteError(error)) throw error;
    // Nothing done yet: no row is taken, the reports say why.
    abort = stateWriteFailed(statePath, 'when the run was journalled', error);
  }
  // A reconcile pages whenever the job has a marker: only the pages list the contacts the file lacks.
  const prefetchChoice = abort === undefined ? (reconciling && prefetch !== undefined ? RECONCILE_PAGES : prefetch?.choice()) : undefined;
  if (prefetchChoice !== undefined) options.onPrefetch?.(prefetchChoice);
  const prefetched = prefetch === undefined || prefetchChoice === undefined ? undefined : await prefetch.run(api, prefetchChoice, job);
  // A listing that could not finish takes no row: the loop counts them not reached, the reports say why.
  abort ??= prefetched?.abort;
  const index = prefetched?.index;
  // A dry run counts the writes and sends it withholds: with its own reads, the real run's calls.
  const withheld = options.dryRun ? new WithheldCalls() : undefined;
  const context = {
    api,
    job,
    dryRun: options.dryRun,
    dryRunContacts: new Map<string, MatchedContact>(),
    full,
    ...(options.state ? { state: options.state } : {}),
    ...(index ? { index } : {}),
    ...(withheld ? { withheld } : {}),
    ...(freshReads ? { freshReads } : {}),
  };

  // The three stages: the tally counts, the dispatcher runs the rows that need the API, the
  // intake classifies every record.
  const tally = new RunTally();
  const dispatcher = new RowDispatcher(job.concurrency);
  // A part of the export (a fed-back rejected file, --limit, --partial) says nothing of the keys
  // that left: the departed step does not run on it.
  const partial = job.onMissing === undefined || reconciling ? undefined : partialInputReason({ markedPartial: options.partial === true, limit: options.limit, header: source.header });
  // onMissing: the keys of this input, 8 bytes each, for the departed step after the rows; a
  // reconcile's, for the marked contacts the file lacks.
  const seen = (job.onMissing !== undefined && options.state !== undefined && !reconciling && partial === undefined) || (reconciling && index !== undefined) ? new KeySighting() : undefined;
  // The departed step's share is of the keys earlier runs synced: counted before this run's rows
  // add theirs, so a dry run and a real run of the same input say the same share.
  const knownBefore = seen !== undefined && !reconciling && options.state !== undefined ? knownKeysNow(options.state, mine) : undefined;
  const ahead = new RowLookahead({
    job,
    state: context.state,
    mine,
    busy: (key) => dispatcher.busy(key),
    ...(options.dryRun ? {} : { fingerprint: mappingFingerprint(job, source.header, options.productVersion ?? '') }),
    quick: settlesByRowHash(job, { dryRun: options.dryRun, full }),
    alone: (key) => duplicates.alone(key),
  });
  const intake = new RowIntake({ job, ahead, duplicates, context, mine, seen, header: source.header, settles: !reconciling });
  const work = reconciling ? reconcileRow : syncRow;

  const finish = (result: RowResult, comparison?: KeyComparison): void => {
    tally.add(result);
    try {
      if (report instanceof ReportWriter) report.add(result);
      else report.add(result, comparison);
    } catch (error) {
      if (!(error instanceof ReportWriteError)) throw error;
      // Stop taking rows at once: every further row would be lost from the reports.
      abort ??= reportWriteFailed(error);
    }
    options.onRow?.(tally.rows, result);
    abort ??= tally.thresholdAbort(maxErrors, false, thresholdReportFile);
  };

  let rowsTaken = 0;
  // Data rows of the input the run did not take (summary.json rows.notReached): after an abort,
  // a signal, the deadline or --limit, the rest is read to count them (docs/reports.md).
  let notReached = 0;
  let stopped: StopReason | undefined;
  const { contacts: contactRate } = job.connection.rateLimits;
  const spacingMs = contactRate.periodMs / contactRate.limit;
  // --max-duration's reckoning (deadline.ts): the calls of the rows that went to the API and
  // finished, and the most calls the rows in flight can make (before one finished, nothing else
  // tells what a row costs). Rows that ended with no call are not in it: none is in flight.
  let finishedCalls = 0;
  let finishedDispatched = 0;
  let callsAtMostInFlight = 0;
  let widestRow = 0;
  let slowestRowMs = 0;
  const finishEstimate = (extra: number) => ({
    inFlight: dispatcher.inFlight + extra,
    callsPerRow: finishedDispatched === 0 ? undefined : finishedCalls / finishedDispatched,
    // The row about to be taken is not read yet: it is reckoned as the widest so far (a search and a write before any).
    callsAtMost: callsAtMostInFlight + extra * Math.max(2, widestRow),
    spacingMs,
    slowestRowMs,
  });
  // A row that met an abort (a journal that cannot be written, a refused token) stops the job
  // before the queue starts another row.
  const abortWith = (sync: RowSync): RowSync => {
    if (sync.abort !== undefined) abort ??= sync.abort;
    return sync;
  };
  const stopTaking = (reason: StopReason): void => {
    stopped = reason;
    if (reason !== 'limit') options.onStopping?.({ reason, inFlight: dispatcher.inFlight, finishMs: timeToFinishMs(finishEstimate(0)) });
  };
  let departed: DepartedSummary | undefined;
  let departedReport: string | undefined;
  let summary: JobSummary;
  let reconciled: ReconcileSummary | undefined;
  let extraListed = false;
  let status: RunStatus = 'completed';
  // The input stopped being readable mid-file (an I/O error, gzip data cut short): a local failure.
  let inputFailure: SourceError | undefined;
  try {
    for await (const record of ahead.records(untilUnreadable(source.records, (failure) => (inputFailure = failure)))) {
      if (stopped === undefined && abort === undefined) {
        if (options.signal?.aborted === true) stopTaking('signal');
        else if (options.limit !== undefined && rowsTaken >= options.limit) stopTaking('limit');
        else if (options.deadline !== undefined && pastTakingTime(now().getTime(), options.deadline, finishEstimate(1))) stopTaking('deadline');
      }
      if (abort !== undefined || stopped !== undefined) {
        // Read on to count them: the summary says how much of the input is left (docs/reliability.md).
        notReached += countsAsMine(record, job, mine) ? 1 : 0;
        continue;
      }
      const row = intake.classify(record, dispatcher.inFlight === 0);
      if (row.kind === 'not-mine') continue;
      rowsTaken++;
      if (row.kind === 'ended') {
        if (row.abort !== undefined) abort ??= row.abort;
        finish(row.result);
        continue;
      }
      const { draft, cells } = row;
      // Backpressure: stop reading while enough rows are waiting for the API.
      await dispatcher.room();
      const takenAt = now().getTime();
      const atMost = rowCallsAtMost(draft);
      callsAtMostInFlight += atMost;
      widestRow = Math.max(widestRow, atMost);
      dispatcher.dispatch(
        draft.key,
        // Rows queued before an abort do not call: after a 401 every call would be refused too. The
        // row's abort is taken as the row ends, not in `done`: the queue starts the next row first.
        () => (abort === undefined ? work(draft, cells, context).then(abortWith) : Promise.resolve<RowSync>({ result: notSentResult(draft, cells, abort) })),
        (sync) => {
          if (sync.abort !== undefined) abort ??= sync.abort;
          finishedCalls += sync.result.apiCalls;
          finishedDispatched++;
          callsAtMostInFlight -= atMost;
          slowestRowMs = Math.max(slowestRowMs, now().getTime() - takenAt);
          finish(sync.result, sync.comparison);
        },
      );
    }
    await dispatcher.drain();
    if (inputFailure !== undefined) abort ??= inputReadFailed(inputFailure);
    abort ??= tally.thresholdAbort(maxErrors, true, thresholdReportFile);
    // reconcile: the marked contacts whose key the file lacks, once every key of the file was read.
    if (report instanceof ReconcileReport && index !== undefined && seen !== undefined && abort === undefined && stopped === undefined && options.signal?.aborted !== true) {
      try {
        listExtra(index, seen, mine, report);
        extraListed = true;
      } catch (error) {
        if (!(error instanceof ReportWriteError)) throw error;
        abort ??= reportWriteFailed(error);
      }
    }
    // The departed step needs the whole input: a run that stopped early has not seen every key.
    const { onMissing } = job;
    const keyStore = options.state;
    if (!reconciling && seen !== undefined && onMissing !== undefined && keyStore !== undefined && abort === undefined && stopped === undefined && options.signal?.aborted !== true) {
      const reportPath = departedPath(options.reportDir, reportName);
      departedReport = reportPath;
      const step = await runDepartedStep(
        () =>
          settleDeparted({
            api,
            job: { ...job, onMissing },
            state: keyStore,
            dryRun: options.dryRun,
            seen,
            inScope: mine,
            ...(options.maxMissingPercent === undefined ? {} : { maxSharePercent: options.maxMissingPercent }),
            reportPath,
            stop: () => options.signal?.aborted === true || (options.deadline !== undefined && now().getTime() >= options.deadline),
            ...(withheld ? { withheld } : {}),
            ...(knownBefore === undefined ? {} : { knownBefore }),
          }),
        statePath,
      );
      departed = step.summary;
      abort ??= step.abort;
      // The departed step's writes are needed, not waste: the run report's "least the data needed" counts them.
      if (step.writes !== undefined && report instanceof ReportWriter) report.addDepartedWrites(step.writes);
    }
  } finally {
    const rowsFailure = report.closeRows();
    if (rowsFailure !== undefined) abort ??= reportWriteFailed(rowsFailure);
    status = statusOf(abort, options.signal, stopped);
    // A reconcile's rows are all `unchanged` (it writes nothing): its journal line keeps its keys' figures.
    const journalRows = report instanceof ReconcileReport ? reconciledKeys(report) : tally.rows;
    const journalExit = withDifferences(exitCodeOf(status, options.signal, tally.rows, tally.messages, departed), report);
    const journalFailure = runId === undefined ? undefined : finishJournal(state, runId, { rows: journalRows, exitCode: journalExit, status });
    if (journalFailure !== undefined) {
      abort ??= stateWriteFailed(statePath, 'when the run was journalled', journalFailure);
      status = 'aborted';
    }
    summary = summarize({ ...options, runId }, api, tally.rows, startedAt, now(), abort, prefetched?.summarize());
    summary.status = status;
    summary.rows.notReached = notReached;
    if (report instanceof ReconcileReport) {
      reconciled = reconcileSummary(report, summary, { runId, extraListed, prefetched: prefetch !== undefined });
      const failure = report.writeSummary(reconciled);
      if (failure !== undefined) {
        abort ??= reportWriteFailed(failure);
        status = 'aborted';
        reconciled.status = status;
        reconciled.aborted ??= { code: abort.code, message: abort.message };
      }
    }
    if (job.message !== undefined) summary.messages = tally.messages;
    if (withheld !== undefined && !reconciling) summary.realRunEstimate = estimateRealRun(summary.apiCalls.byOperation, withheld.byOperation, job.connection.rateLimits, withheld.recasedContacts);
    if (tally.fieldsSkipped.rows > 0) summary.fieldsSkipped = tally.fieldsSkipped;
    if (tally.tagsDifferingInCase.rows > 0) summary.tagsDifferingInCase = tally.tagsDifferingInCase;
    if (tally.rows.failed > 0 && !reconciling) summary.failedRows = { ...tally.failedRows, rejectedEncoding: source.layout.encoding, rejectedLineEnds: lineEndName(source.layout.lineEnd) };
    if (job.onMissing !== undefined) {
      const reason =
        partial ??
        (options.state === undefined
          ? 'there is no state store yet (a first run, or a dry run before one): no key is known to have left'
          : 'the run did not read its whole input (stopped early or an abort): departed keys are acted on by a complete run');
      summary.departed = departed ?? { applied: false, reason };
    }
    const { contacts } = job.connection.rateLimits;
    const summaryFailure = !(report instanceof ReportWriter) ? undefined : report.writeSummary(summary, { callsPerMinute: api.stats.callsPerMinute?.() ?? [], limitPerMinute: (contacts.limit * 60_000) / contacts.periodMs });
    if (summaryFailure !== undefined) {
      // summary.json could not be written: the console summary (from this object) says so.
      abort ??= reportWriteFailed(summaryFailure);
      status = 'aborted';
      summary.status = status;
      summary.aborted ??= { code: abort.code, message: abort.message };
    }
  }
  const inputHint = tally.rows.failed > 0 ? source.encodingHint() : undefined;
  const reportFiles =
    report instanceof ReportWriter
      ? [report.paths.results, report.paths.rejected, report.paths.changes, report.paths.summary, report.paths.html]
      : [report.paths.diff, report.paths.summary, report.paths.html];
  if (departedReport !== undefined) reportFiles.push(departedReport);
  const exitCode = exitCodeOf(status, options.signal, tally.rows, tally.messages, departed);
  return {
    summary,
    reportFiles,
    ...(reconciled === undefined ? {} : { reconcile: reconciled }),
    exitCode: withDifferences(exitCode, report),
    ...(inputHint === undefined ? {} : { inputHint }),
    ...(departedReport === undefined ? {} : { departedReport }),
    rowsByRowHash: ahead.quickRows,
  };
}

/** The departed step, with the local failures that stop the job turned into its abort. */
async function runDepartedStep(step: () => ReturnType<typeof settleDeparted>, statePath: string): Promise<{ summary?: DepartedSummary; abort?: JobAbortError; writes?: DepartedStep['writes'] }> {
  try {
    return await step();
  } catch (error) {
    if (error instanceof ReportWriteError) return { abort: reportWriteFailed(error) };
    if (isSqliteError(error)) return { abort: stateWriteFailed(statePath, 'in the departed step', error) };
    throw error;
  }
}

/** Whether a record the stopped job did not take belongs to this run (its shard). */
function countsAsMine(record: { kind: string }, job: Job, mine: (key: string) => boolean): boolean {
  if (record.kind === 'malformed') return mine('');
  const mapped = mapRow(record as Parameters<typeof mapRow>[0], job);
  return mine(mapped.ok ? mapped.draft.key : '');
}

/** Journals the run's end; a state store that cannot be written is returned, anything else thrown. */
function finishJournal(state: StateStore | undefined, runId: number, finish: Parameters<StateStore['finishRun']>[1]): Error | undefined {
  try {
    state?.finishRun(runId, finish);
    return undefined;
  } catch (error) {
    if (isSqliteError(error)) return error;
    throw error;
  }
}

/**
 * The records until the input breaks: a `SourceError` mid-file ends the records and goes to
 * `onFailure`, so the rows in flight finish and the reports are complete (the job aborts).
 */
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

/** A report could not be written: the job stops, naming the file and the error. */
function reportWriteFailed(error: ReportWriteError): JobAbortError {
  return reportWriteAbort(error, 'no row was left half written, and the rows after it were not taken');
}

const RECONCILE_PAGES: PrefetchChoice = { use: true, reason: 'reconcile: only the pages list the marked contacts the file lacks' };

/** The marked contacts (prefetch index) whose key no row of this run had, in the index's order. */
function listExtra(index: ContactIndex, seen: KeySighting, mine: (key: string) => boolean, report: ReconcileReport): void {
  for (const [key, contacts] of index.entries()) {
    if (mine(key) && !seen.has(key)) report.addExtra(key, contacts);
  }
}

/** reconcile follows diff(1): 1 when the file and the platform differ, as when a row failed. */
function withDifferences(exitCode: RunExitCode, report: ReportWriter | ReconcileReport): RunExitCode {
  return exitCode === 0 && report instanceof ReconcileReport && report.differences > 0 ? 1 : exitCode;
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

/**
 * The input's first read (onDuplicateRows) and the source the rows come from, each opened with
 * the header checked; a column missing that the job's last run had is named as gone from the
 * export (`lastHeader`, the state store's).
 */
async function openInput(job: Job, see: ((key: string) => void) | undefined, lastHeader: readonly string[] | undefined): Promise<{ duplicates: DuplicateRowsStage; source: Source }> {
  try {
    const duplicates = await DuplicateRowsStage.open(job, see);
    return { duplicates, source: await openCheckedSource(job) };
  } catch (error) {
    throw error instanceof HeaderMismatchError && lastHeader !== undefined ? nameRenamedColumns(error, lastHeader) : error;
  }
}
