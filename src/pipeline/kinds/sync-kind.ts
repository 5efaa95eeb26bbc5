/**
 * `run`'s kind of run: the file's rows made true on the platform. Its row work is `syncRow`
 * (decide, write, record, message); its reports are results.csv, rejected.csv, changes.csv,
 * summary.json and report.html (`report/report.ts`); after the rows, when the run read its whole
 * input, the departed step (`onMissing`, `departed/settle-departed.ts`), then verification
 * (`verify`, `verify/verify-step.ts`); its exit code asks for a look when a row, a message, a
 * departed key or a verification failed, or the departed step was refused.
 */
import { stateLocation } from '../../config/state-location.js';
import { isStoreFailure, stateWriteFailed, type JobAbortError } from '../job-abort.js';
import { settleDeparted, type DepartedStepOptions, type DepartedSummary } from '../departed/settle-departed.js';
import type { DepartedStore, VerifyStore } from '../../state/state-port.js';
import { estimateRealRun, type WithheldCalls } from '../real-run-estimate.js';
import type { KeySighting } from './key-sighting.js';
import type { JobSummary } from '../report/job-summary.js';
import { ReportWriteError, type ReportWriter } from '../report/report.js';
import { callsByOperation } from '../report/summary-figures.js';
import { rowsNeedLook } from './file-run-tally.js';
import type { RunKind } from '../run/run-engine.js';
import type { StopPolicy } from '../run/stop-policy.js';
import { lineEndName, type InputLayout } from '../source/input-layout.js';
import type { SourceRecord } from '../source/source-record.js';
import { rowCallsAtMost, unreadRowCallsAtLeast } from '../row/row-calls.js';
import { closedUnitReport } from '../run/unit-report.js';
import { fileRowWork, reportWriteFailed, ROWS_LEFT, type FileRowsOptions, type RowCalls, type RowDone } from './file-rows.js';
import { fileRunSummary, type FileRunFacts } from './file-run-summary.js';
import { verifyTrusted, type VerifySummary } from '../verify/verify-step.js';

/** A row reads its key and writes: the surface's numbers say how many calls that is (`row/row-calls.ts`). */
export const SYNC_ROW_CALLS: RowCalls = { atMost: rowCallsAtMost, unreadAtLeast: unreadRowCallsAtLeast };

export interface SyncKindOptions {
  readonly facts: FileRunFacts;
  readonly rows: Omit<FileRowsOptions, 'report'>;
  readonly input: { readonly records: AsyncIterable<SourceRecord>; failure(): JobAbortError | undefined };
  readonly report: ReportWriter;
  /** The input's encoding and line ends, which rejected.csv is written in. */
  readonly layout: InputLayout;
  /** A dry run's withheld writes and sends, for its estimate of the real run. */
  readonly withheld?: WithheldCalls | undefined;
  /** The departed step, when the job has `onMissing` and this run may take it: the keys the input had, the store, departed.csv. */
  readonly departed?: DepartedWiring | undefined;
  /** Why the departed step cannot run at all (a part of the export, no state store yet). */
  readonly departedWhyNot?: string | undefined;
  /** Verification (`verify`), when the job has it and a state store: the store, and its stop policy (the run's signal and deadline). */
  readonly verify?: { readonly state: VerifyStore; readonly policy: StopPolicy } | undefined;
}

export interface DepartedWiring {
  readonly state: DepartedStore;
  readonly seen: KeySighting;
  readonly reportPath: string;
  /** `--max-missing`. @default onMissing.maxShare */
  readonly maxSharePercent?: number | undefined;
  /**
   * The known keys before the rows: the share is of the keys earlier runs synced, counted before
   * this run's rows add theirs, so a dry run and a real run of the same input say the same share.
   */
  readonly knownBefore: number;
}

/** What a file's run returns to its caller: summary.json's content. */
export interface SyncEnding {
  readonly summary: JobSummary;
  /** The files the run wrote, for the console. */
  readonly reportFiles: string[];
  /** `<job>.departed.csv`, when the departed step ran. */
  readonly departedReport?: string;
}

export function syncKind(options: SyncKindOptions): RunKind<SourceRecord, RowDone, SyncEnding> {
  const { facts, report, withheld } = options;
  const { job, api, tally } = facts;
  let departed: DepartedSummary | undefined;
  let departedReport: string | undefined;
  let verification: VerifySummary | undefined;
  const kind: RunKind<SourceRecord, RowDone, SyncEnding> = {
    units: options.input.records,
    work: fileRowWork({ ...options.rows, report: (row) => report.add(row.result) }),
    unitsEnded: () => options.input.failure(),
    afterUnits: async () => {
      const abort = await departedStep();
      if (abort !== undefined || !options.rows.policy.taking) return abort;
      return verifyStep();
    },
    closeUnits: () => closedUnitReport(report.closeRows(), ROWS_LEFT),
    journalRows: () => tally.rows,
    needsLook: () => rowsNeedLook(tally.rows, tally.messages, departed) || (verification !== undefined && verification.failed > 0),
    summarize: (end) => {
      // privacy.mask: summary.json, the console, the log and the webhook all take this one object,
      // its texts (an abort's message naming a key, a refusal) masked (report/mask.ts).
      const summary = report.masker.deep(fileRunSummary(facts, end, {
        ...(withheld === undefined ? {} : { realRunEstimate: estimateRealRun(callsByOperation(api), withheld.byOperation, api.pace(facts.earlierLimits), withheld.recasedContacts) }),
        ...(tally.rows.failed > 0 ? { failedRows: { ...tally.failedRows, rejectedEncoding: options.layout.encoding, rejectedLineEnds: lineEndName(options.layout.lineEnd) } } : {}),
        ...(job.onMissing === undefined
          ? {}
          : { departed: departed ?? { applied: false, reason: options.departedWhyNot ?? 'the run did not read its whole input (stopped early or an abort): departed keys are acted on by a complete run' } }),
        ...(job.verify === undefined
          ? {}
          : {
              verification: verification ?? {
                applied: false,
                reason: options.verify === undefined ? 'there is no state store yet (a first run, or a dry run before one): no key is trusted' : 'the run did not take all its rows (stopped early or an abort): a complete run verifies',
              },
            }),
      }));
      const failure = report.writeSummary(summary, { callsPerMinute: api.stats.callsPerMinute?.() ?? [], limits: summary.limits ?? [] });
      const { paths } = report;
      const reportFiles = [paths.results, paths.rejected, paths.changes, paths.summary, paths.html, ...(departedReport === undefined ? [] : [departedReport])];
      const ending = { summary, reportFiles, ...(departedReport === undefined ? {} : { departedReport }) };
      if (failure === undefined) return { summary: ending };
      // summary.json could not be written: the console summary (from this object) says so.
      const abort = reportWriteFailed(failure);
      summary.status = 'aborted';
      summary.aborted ??= { code: abort.code, message: abort.message };
      return { summary: ending, abort };
    },
  };
  return kind;

  /** The departed step (`onMissing`), when the job has it and this run may take it. */
  async function departedStep(): Promise<JobAbortError | undefined> {
    const wiring = options.departed;
    const { onMissing } = job;
    if (wiring === undefined || onMissing === undefined) return undefined;
    departedReport = wiring.reportPath;
    const { maxSharePercent, ...rest } = wiring;
    const step: DepartedStepOptions = {
      ...rest,
      api,
      job: { ...job, onMissing },
      dryRun: facts.dryRun,
      inScope: options.rows.mine,
      // The run's own stop policy: keys past the deadline, after a signal or an abort are left for the next complete run.
      policy: options.rows.policy,
      ...(maxSharePercent === undefined ? {} : { maxSharePercent }),
      ...(withheld === undefined ? {} : { withheld }),
    };
    const ran = await runDepartedStep(step, stateLocation(job.state));
    departed = ran.summary;
    // The departed step's writes are needed, not waste: the run report's "least the data needed" counts them.
    if (ran.writes !== undefined) report.addDepartedWrites(ran.writes);
    return ran.abort;
  }

  /** Verification within the budget (`verify`), when the job has it and a state store. */
  async function verifyStep(): Promise<JobAbortError | undefined> {
    const wiring = options.verify;
    const spec = job.verify;
    if (wiring === undefined || spec === undefined) return undefined;
    try {
      const ran = await verifyTrusted({
        api,
        job: { ...job, verify: spec },
        state: wiring.state,
        dryRun: facts.dryRun,
        inScope: options.rows.mine,
        touchedSince: facts.startedAt.getTime(),
        policy: wiring.policy,
        withheld,
        onRepair: (key, changes, writes) => report.addRepair(key, changes, writes),
      });
      verification = ran.summary;
      // An abort met while verifying (a refused token, a lost limiter) is the run's.
      return wiring.policy.abort;
    } catch (error) {
      if (error instanceof ReportWriteError) return reportWriteFailed(error);
      if (isStoreFailure(error)) return stateWriteFailed(stateLocation(job.state), 'in verification', error);
      throw error;
    }
  }
}

/** The departed step, with the local failures that stop the job turned into its abort. */
async function runDepartedStep(step: DepartedStepOptions, statePath: string): Promise<{ summary?: DepartedSummary; abort?: JobAbortError; writes?: DepartedStepWrites }> {
  try {
    return await settleDeparted(step);
  } catch (error) {
    if (error instanceof ReportWriteError) return { abort: reportWriteFailed(error) };
    if (isStoreFailure(error)) return { abort: stateWriteFailed(statePath, 'in the departed step', error) };
    throw error;
  }
}

type DepartedStepWrites = Awaited<ReturnType<typeof settleDeparted>>['writes'];
