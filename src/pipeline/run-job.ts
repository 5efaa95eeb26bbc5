/**
 * One job, as the pipeline reads: source -> map -> match -> plan -> write -> report. The stages
 * live in their own files; this one only wires them, bounds the rows in flight and keeps the
 * tally that decides the exit code.
 */
import PQueue from 'p-queue';
import type { ContactsApi } from '../api/contacts-api.js';
import type { Job } from '../config/job-types.js';
import { describeMaxErrors, type MaxErrors } from '../config/max-errors.js';
import type { RunStatus, StateStore } from '../state/state-store.js';
import { prefetchContacts, type ContactIndex } from './row/contact-index.js';
import { openCheckedSource } from './source/checked-source.js';
import { isSqliteError, JobAbortError, stateWriteFailed } from './job-abort.js';
import { KeyLanes } from './key-lanes.js';
import { DuplicateRowsStage } from './duplicate-rows-stage.js';
import { pastTakingTime, timeToFinishMs } from './deadline.js';
import { mapKey, mapRow } from './map/map.js';
import { KeySighting } from './key-sighting.js';
import { settleDeparted, type DepartedSummary } from './departed/settle-departed.js';
import { departedPath } from './report/departed-report.js';
import type { MatchedContact } from './row/plan.js';
import { ReportWriteError, ReportWriter, type JobSummary } from './report/report.js';
import { shardOf, type Shard } from './shard.js';
import { RowLookahead, settlesByRowHash } from './row/row-lookahead.js';
import { mappingFingerprint } from './map/row-hash.js';
import { failedResult, settleWithoutCalls, syncRow, unchangedResult, type RowSync } from './row/sync-row.js';
import type { ContactDraft, MalformedRow, RowOutcome, RowResult, SourceRow } from './types.js';


/** Rows a percentage threshold waits for before it may abort: 1 failure in 3 rows is no trend. */
export const MAX_ERRORS_PERCENT_MIN_ROWS = 100;

export interface RunJobOptions {
  job: Job;
  api: ContactsApi;
  /** Folder of `<job>.results.csv`, `<job>.rejected.csv`, `<job>.summary.json`. */
  reportDir: string;
  dryRun: boolean;
  /** Take at most this many data rows. */
  limit?: number;
  /** Overrides `job.maxErrors`. */
  maxErrors?: MaxErrors;
  /** Aborting it stops taking rows; rows in flight finish and the reports are written. */
  signal?: AbortSignal;
  /**
   * `--max-duration`: the time (ms since the epoch, on `now`'s clock) by which the run must be
   * done. It stops taking rows early enough for the rows in flight to finish by then.
   */
  deadline?: number;
  /** Told once when the run stops taking rows early (a signal or the deadline): rows in flight and about how long they need. */
  onStopping?: (info: { reason: 'signal' | 'deadline'; inFlight: number; finishMs: number }) => void;
  /** The job's state store; the caller opens and closes it. */
  state?: StateStore;
  /** `--full`: ignore the state's hashes and compare every row with the platform. */
  full?: boolean;
  /** The command line without secrets, for the state store's journal of runs. */
  argv?: string;
  /** Handle only the rows whose key belongs to this shard. */
  shard?: Shard;
  /** `--max-missing`: `onMissing.maxShare` for this run, percent. */
  maxMissingPercent?: number;
  /**
   * The version of contact-sync, part of the row hashes' mapping fingerprint: another version may
   * map a row otherwise, so its first run maps every row again (`map/row-hash.ts`). @default ''
   */
  productVersion?: string;
  /** Called after each row with the running tally (progress display). */
  onRow?: (tally: Readonly<RowTally>, result: RowResult) => void;
  now?: () => Date;
}

export type RowTally = Record<'total' | RowOutcome, number>;

export interface JobRun {
  summary: JobSummary;
  reportPaths: ReportWriter['paths'];
  /** 0 every row ended well, 1 some rows failed, 3 aborted mid-run, 4 stopped at the deadline, 130 / 143 interrupted. */
  exitCode: 0 | 1 | 3 | 4 | 130 | 143;
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

  // onDuplicateRows: a first read of the input finds the keys on several rows, before any call.
  const duplicates = await DuplicateRowsStage.open(job);
  const source = await openCheckedSource(job);

  // Shards of one job often share a report folder: each writes its own files. The reports are
  // opened before the run is journalled or any call made: a folder that cannot take them stops
  // the job before it did anything.
  const reportName = options.shard === undefined ? job.name : `${job.name}.shard-${options.shard.index}-of-${options.shard.count}`;
  let report: ReportWriter;
  try {
    report = new ReportWriter(options.reportDir, reportName, source.header);
  } catch (error) {
    await source.close();
    throw error;
  }
  const state = options.dryRun ? undefined : options.state;
  const statePath = job.state === false ? '' : job.state;
  let abort: JobAbortError | undefined;
  let runId: number | undefined;
  try {
    runId = state?.startRun({ job: job.name, argv: options.argv ?? '', full: options.full === true });
  } catch (error) {
    if (!isSqliteError(error)) throw error;
    // Nothing done yet: no row is taken, the reports say why.
    abort = stateWriteFailed(statePath, 'when the run was journalled', error);
  }
  const index = job.match.prefetch === undefined || abort !== undefined ? undefined : await prefetchContacts(api, job.match.prefetch, job.key.field);
  const context = { api, job, dryRun: options.dryRun, dryRunContacts: new Map<string, MatchedContact>(), full: options.full === true, ...(options.state ? { state: options.state } : {}), ...(index ? { index } : {}) };
  const tally: RowTally = { total: 0, created: 0, updated: 0, unchanged: 0, skipped: 0, failed: 0 };
  const messages = { sent: 0, skipped: 0, failed: 0, unknown: 0 };
  const queue = new PQueue({ concurrency: job.concurrency });
  const lanes = new KeyLanes();
  let inFlight = 0;
  let wakeReader: (() => void) | undefined;

  const finish = (result: RowResult): void => {
    tally.total++;
    tally[result.outcome]++;
    if (result.messageStatus !== '') messages[result.messageStatus]++;
    try {
      report.add(result);
    } catch (error) {
      if (!(error instanceof ReportWriteError)) throw error;
      // Stop taking rows at once: every further row would be lost from the reports.
      abort ??= reportWriteFailed(error);
    }
    options.onRow?.(tally, result);
    if (abort === undefined && crossed(maxErrors, tally, false)) {
      abort = maxErrorsCrossed(tally, maxErrors, report.paths.rejected);
    }
  };

  let rowsTaken = 0;
  // Data rows of the input the run did not take (summary.json rows.notReached): after an abort,
  // a signal, the deadline or --limit, the rest is read to count them (docs/reports.md).
  let notReached = 0;
  let stopped: 'signal' | 'deadline' | 'limit' | undefined;
  const { contacts: contactRate } = job.connection.rateLimits;
  const spacingMs = contactRate.periodMs / contactRate.limit;
  let finishedCalls = 0;
  let slowestRowMs = 0;
  const finishEstimate = (extra: number) => ({
    inFlight: inFlight + extra,
    callsPerRow: tally.total === 0 ? 2 : finishedCalls / tally.total,
    spacingMs,
    slowestRowMs,
  });
  const stopTaking = (reason: 'signal' | 'deadline' | 'limit'): void => {
    stopped = reason;
    if (reason !== 'limit') options.onStopping?.({ reason, inFlight, finishMs: timeToFinishMs(finishEstimate(0)) });
  };
  const { shard } = options;
  const mine = (key: string): boolean => shard === undefined || shardOf(key, shard.count) === shard.index;
  // onMissing: the keys of this input, 8 bytes each, for the departed step after the rows.
  const seen = job.onMissing !== undefined && options.state !== undefined ? new KeySighting() : undefined;
  const keyColumn = source.header.indexOf(job.key.column);
  let departed: DepartedSummary | undefined;
  let departedReport: string | undefined;
  const ahead = new RowLookahead({
    job,
    state: context.state,
    mine,
    busy: (key) => lanes.has(key),
    ...(options.dryRun ? {} : { fingerprint: mappingFingerprint(job, source.header, options.productVersion ?? '') }),
    quick: settlesByRowHash(job, { dryRun: options.dryRun, full: options.full === true }),
    alone: (key) => duplicates.alone(key),
  });
  let summary: JobSummary;
  let status: RunStatus = 'completed';
  try {
    for await (const record of ahead.records(source.records)) {
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
      // onMissing: every key read counts as still in the file, even a failed row's.
      if (record.kind === 'malformed') {
        if (seen !== undefined) seeKey(seen, malformedKey(record, keyColumn));
        if (!mine('')) continue;
        rowsTaken++;
        finish(failedResult(record.line, '', record.cells, record.code, record.message));
        continue;
      }
      // An unchanged row of a re-run, known by its row hash, is settled without being mapped,
      // even while other rows are in flight (their keys were not read ahead, so none is settled
      // here; results.csv is in the order rows finish, docs/reports.md).
      const quick = ahead.quick(record);
      if (quick !== undefined) {
        if (seen !== undefined) seeKey(seen, quick.key);
        rowsTaken++;
        finish(unchangedResult(record.line, quick.key, record.cells, quick.contactId));
        continue;
      }
      const mapped = ahead.mapped(record);
      if (seen !== undefined) seeKey(seen, mapped.ok ? mapped.draft.key : unmappedKey(record, job));
      if (!mapped.ok) {
        const key = (record.values[job.key.column] ?? '').trim();
        if (!mine(key)) continue;
        rowsTaken++;
        finish(failedResult(record.line, key, record.cells, mapped.error.code, mapped.error.message));
        continue;
      }
      if (!mine(mapped.draft.key)) continue;
      rowsTaken++;
      // A row that another line of its key wins (or takes in) ends here, with no call.
      const taken = duplicates.take(mapped.draft, record.cells);
      if (taken.kind === 'done') {
        finish(taken.result);
        continue;
      }
      const { draft } = taken;
      // A row that needs no call (unchanged on a re-run) is settled here, without a promise, when
      // no row is in flight (so the reports keep the order they had).
      const known = ahead.take(draft.key);
      const settled = known !== undefined && inFlight === 0 ? settleWithoutCalls(draft, record.cells, context, known.state) : undefined;
      if (settled !== undefined) {
        if (settled.abort !== undefined) abort ??= settled.abort;
        finish(settled.result);
        continue;
      }
      // Backpressure: stop reading while enough rows are waiting for the API.
      while (inFlight >= job.concurrency * 2) await new Promise<void>((resolve) => (wakeReader = resolve));
      inFlight++;
      const takenAt = now().getTime();
      void lanes
        .run(draft.key, () =>
          queue.add(() =>
            // Rows queued before an abort do not call: after a 401 every call would be refused too.
            abort === undefined ? syncRow(draft, record.cells, context) : Promise.resolve<RowSync>({ result: notSent(draft, record.cells, abort) }),
          ),
        )
        .then((row) => {
          if (row.abort !== undefined) abort ??= row.abort;
          finishedCalls += row.result.apiCalls;
          slowestRowMs = Math.max(slowestRowMs, now().getTime() - takenAt);
          finish(row.result);
        })
        .finally(() => {
          inFlight--;
          wakeReader?.();
          wakeReader = undefined;
        });
    }
    while (inFlight > 0) await new Promise<void>((resolve) => (wakeReader = resolve));
    if (abort === undefined && crossed(maxErrors, tally, true)) {
      abort = maxErrorsCrossed(tally, maxErrors, report.paths.rejected);
    }
    // The departed step needs the whole input: a run that stopped early has not seen every key.
    const { onMissing } = job;
    const keyStore = options.state;
    if (seen !== undefined && onMissing !== undefined && keyStore !== undefined && abort === undefined && stopped === undefined && options.signal?.aborted !== true) {
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
          }),
        statePath,
      );
      departed = step.summary;
      abort ??= step.abort;
    }
  } finally {
    const rowsFailure = report.closeRows();
    if (rowsFailure !== undefined) abort ??= reportWriteFailed(rowsFailure);
    status = statusOf(abort, options.signal, stopped);
    const journalFailure = runId === undefined ? undefined : finishJournal(state, runId, { rows: tally, exitCode: exitCodeOf(status, options.signal, tally, messages, departed), status });
    if (journalFailure !== undefined) {
      abort ??= stateWriteFailed(statePath, 'when the run was journalled', journalFailure);
      status = 'aborted';
    }
    summary = summarize(job, options, api, tally, startedAt, now(), abort, index);
    summary.status = status;
    summary.rows.notReached = notReached;
    if (job.message !== undefined) summary.messages = messages;
    if (job.onMissing !== undefined) {
      const reason =
        options.state === undefined
          ? 'there is no state store yet (a first run, or a dry run before one): no key is known to have left'
          : 'the run did not read its whole input (stopped early, --limit or an abort): departed keys are acted on by a complete run';
      summary.departed = departed ?? { applied: false, reason };
    }
    const { contacts } = job.connection.rateLimits;
    const summaryFailure = report.writeSummary(summary, { callsPerMinute: api.stats.callsPerMinute?.() ?? [], limitPerMinute: (contacts.limit * 60_000) / contacts.periodMs });
    if (summaryFailure !== undefined) {
      // summary.json could not be written: the console summary (from this object) says so.
      abort ??= reportWriteFailed(summaryFailure);
      status = 'aborted';
      summary.status = status;
      summary.aborted ??= { code: abort.code, message: abort.message };
    }
  }
  const inputHint = tally.failed > 0 ? source.encodingHint() : undefined;
  return {
    summary,
    reportPaths: report.paths,
    exitCode: exitCodeOf(status, options.signal, tally, messages, departed),
    ...(inputHint === undefined ? {} : { inputHint }),
    ...(departedReport === undefined ? {} : { departedReport }),
    rowsByRowHash: ahead.quickRows,
  };
}

function seeKey(seen: KeySighting, key: string): void {
  if (key !== '') seen.seenBefore(key);
}

/** The key of a row that did not map: as the mapper makes it (an email key lowercased...) when the key itself is fine, else the cell. */
function unmappedKey(record: SourceRow, job: Job): string {
  const key = mapKey(record, job);
  return key.ok ? key.value : (record.values[job.key.column] ?? '').trim();
}

/** The key cell of a row the reader could not split, when it got that far. */
function malformedKey(record: MalformedRow, keyColumn: number): string {
  return (keyColumn < 0 ? undefined : record.cells[keyColumn])?.trim() ?? '';
}

/** The departed step, with the local failures that stop the job turned into its abort. */
async function runDepartedStep(step: () => ReturnType<typeof settleDeparted>, statePath: string): Promise<{ summary?: DepartedSummary; abort?: JobAbortError }> {
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

/** A row the job did not send because it had stopped: `ABORTED`, naming the reason. */
function notSent(draft: ContactDraft, cells: string[], abort: JobAbortError): RowResult {
  return failedResult(draft.line, draft.key, cells, 'ABORTED', `not sent: the job stopped (${abort.code}): ${abort.message}`);
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

/** A report could not be written: the job stops, naming the file and the error. */
function reportWriteFailed(error: ReportWriteError): JobAbortError {
  return new JobAbortError(
    'REPORT_WRITE_FAILED',
    `${error.message}; no row was left half written, and the rows after it were not taken: free space on the report folder's disk (or choose another with --report-dir), then run again`,
    { cause: error },
  );
}

/** How the run ended (summary.json `status`, the state store's journal). */
function statusOf(abort: JobAbortError | undefined, signal: AbortSignal | undefined, stopped: 'signal' | 'deadline' | 'limit' | undefined): RunStatus {
  if (abort !== undefined) return 'aborted';
  if (signal?.aborted === true) return 'interrupted';
  return stopped === 'deadline' ? 'deadline' : 'completed';
}

function exitCodeOf(
  status: RunStatus,
  signal: AbortSignal | undefined,
  tally: RowTally,
  messages: { failed: number; unknown: number },
  departed: DepartedSummary | undefined,
): JobRun['exitCode'] {
  if (status === 'aborted') return 3;
  if (status === 'interrupted') return signal?.reason === 'SIGTERM' ? 143 : 130;
  if (status === 'deadline') return 4;
  // A message that failed or may not have arrived needs a look as much as a failed row does, and
  // so does a departed step that was refused or could not act on a key.
  const departedNeedsLook = departed !== undefined && (departed.refused || departed.failed > 0);
  return tally.failed > 0 || messages.failed > 0 || messages.unknown > 0 || departedNeedsLook ? 1 : 0;
}

function crossed(maxErrors: MaxErrors | undefined, tally: RowTally, atEnd: boolean): boolean {
  if (maxErrors === undefined) return false;
  if ('count' in maxErrors) return tally.failed > maxErrors.count;
  if (!atEnd && tally.total < MAX_ERRORS_PERCENT_MIN_ROWS) return false;
  return tally.total > 0 && (tally.failed / tally.total) * 100 > maxErrors.percent;
}

function maxErrorsCrossed(tally: RowTally, maxErrors: MaxErrors | undefined, rejected: string): JobAbortError {
  return new JobAbortError(
    'MAX_ERRORS',
    `${tally.failed} of the ${tally.total} rows finished so far failed, over --max-errors ${maxErrors === undefined ? '' : describeMaxErrors(maxErrors)}; see the failed rows in ${rejected}, fix them and run again`,
  );
}

function summarize(
  job: Job,
  options: RunJobOptions,
  api: ContactsApi,
  tally: RowTally,
  startedAt: Date,
  finishedAt: Date,
  abort: JobAbortError | undefined,
  index: ContactIndex | undefined,
): JobSummary {
  const byOperation: Record<string, number> = {};
  let retries = 0;
  let rateLimited = 0;
  for (const [operation, count] of Object.entries(api.stats.byOperation)) {
    byOperation[operation] = count.requests;
    retries += count.retries;
    rateLimited += count.rateLimited;
  }
  return {
    job: job.name,
    dryRun: options.dryRun,
    startedAt: startedAt.toISOString(),
    finishedAt: finishedAt.toISOString(),
    durationMs: finishedAt.getTime() - startedAt.getTime(),
    rows: { ...tally },
    apiCalls: { total: api.stats.total(), byOperation },
    retries,
    rateLimited,
    ...(options.shard !== undefined ? { shard: `${options.shard.index}/${options.shard.count}` } : {}),
    ...(index !== undefined ? { prefetch: { contacts: index.size, calls: index.calls, searchesSaved: index.hits } } : {}),
    ...(abort !== undefined ? { aborted: { code: abort.code, message: abort.message } } : {}),
    ...(options.signal?.aborted === true ? { interrupted: String(options.signal.reason ?? 'signal') } : {}),
  };
}
