/**
 * One way of opening a run that reads a file, whatever its kind (`runSync`, `runReconcile` in
 * `run-job.ts`), and its end:
 * - before any call: the input's first read (onDuplicateRows, and the unknown keys
 *   match.prefetch's choice counts), the guards, the reports opened, the run journalled, the pages;
 * - the units: the input's records, read ahead and classified by the intake (`row-intake.ts`),
 *   the rows that need the API run by the kind's row work (`file-rows.ts`);
 * - the engine's parts: the stop policy (`run/stop-policy.ts`), the dispatcher, the tally.
 * What a kind is before its rows it says itself (`FileRunShape`); its reports, its step after the
 * rows and its summary are its `RunKind`.
 */
import { resolve } from 'node:path';
import type { ContactsApi } from '../../api/contacts-api.js';
import type { Job } from '../../config/job-types.js';
import type { MaxErrors } from '../../config/max-errors.js';
import type { StatePort } from '../../state/state-port.js';
import { PrefetchStep } from '../prefetch-step.js';
import type { PrefetchChoice } from '../row/prefetch-choice.js';
import { checkGuards, type GuardPassage } from '../guards/run-guards.js';
import { allowedGuards, type GuardName } from '../guards/guard-verdict.js';
import { KeySighting } from './key-sighting.js';
import { knownKeysNow } from '../departed/settle-departed.js';
import { partialInputReason } from '../departed/partial-input.js';
import { isFedBackFile } from '../source/error-columns.js';
import type { KnownContact } from '../../state/known-contact.js';
import { reportName as shardReportName, shardOf, type Shard } from './shard.js';
import { RowLookahead, rowHashSettling } from '../row/row-lookahead.js';
import { mappingFingerprint } from '../map/row-hash.js';
import { settleWithoutCalls, type FirstReads, type RowSyncContext } from '../row/sync-row.js';
import type { ContactIndex } from '../row/contact-index.js';
import type { KeyState } from '../row/decide.js';
import { freshReadsAfter, priorReadsAfter } from '../row/fresh-read.js';
import { RowDispatcher } from '../run/row-dispatcher.js';
import { RowIntake } from './row-intake.js';
import { contactSpacingMs, WithheldCalls } from '../real-run-estimate.js';
import { RunTally, type RowTally } from './file-run-tally.js';
import { type RunExitCode } from '../run/exit-code.js';
import { startJournal } from '../run/run-journal-lines.js';
import { StopPolicy } from '../run/stop-policy.js';
import { fileRecords, openFileInput } from './file-rows.js';
import type { FileRunFacts } from './file-run-summary.js';

import type { Source } from '../source/source.js';
import type { RowCalls } from './file-rows.js';
import type { ContactDraft } from '../map/contact-draft.js';
import type { RowResult } from '../report/row-outcome.js';


/** What a run of one job is given. Every I/O dependency is here, so tests pass their own. */
export interface RunJobOptions extends Pick<FileRunFacts, 'earlierLimits'> {
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
  readonly state?: StatePort;
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
  /** Where a guarded run keeps the one copy of its input (source/input-snapshot.ts). @default the system's temporary folder */
  readonly temporaryDir?: string;
  /** Called after each row with the running tally (progress display). */
  readonly onRow?: (tally: Readonly<RowTally>, result: RowResult) => void;
  /** The clock. @default () => new Date() */
  readonly now?: () => Date;
  /** `--allow NAME`: the guards (`job.guards`) this run may go past. @default none */
  readonly allow?: ReadonlySet<GuardName>;
}

/** What every file run returns beside its kind's ending. */
export interface FileRunEnd {
  /** Every row ended well, some rows failed, aborted mid-run, stopped at the deadline, or interrupted (SIGINT / SIGTERM). */
  readonly exitCode: RunExitCode;
  /** File-level advice about the input (it looks like windows-1252), said once, not per row. */
  readonly inputHint?: string;
  /** Rows settled as unchanged by their row hash, without being mapped (not in summary.json). */
  readonly rowsByRowHash: number;
}

/** What a kind of file run says of itself before its rows, and the calls a row of it makes on the surface. */
export interface FileRunShape<Report> {
  /** Reads the platform for every key, whatever the state store believes: no row settled without it, no earlier read standing for a search. */
  readonly readsEveryKey: boolean;
  /** Writes the platform: guards, the header kept, the departed step. */
  readonly writes: boolean;
  /** The prefetch's choice whenever the job has a marker, whatever the state (only the pages list the contacts the file lacks). @default the job's own choice */
  readonly pagesWhenMarked?: PrefetchChoice;
  readonly calls: RowCalls;
  /** Opens the kind's reports, before the run is journalled or any call made. */
  openReport(reportName: string, source: Source): Report;
  /** The report file that lists the rows the platform failed, for the error threshold's message. */
  thresholdFile(report: Report): string;
}

type Prefetched = Awaited<ReturnType<PrefetchStep['run']>>;

/** One way of opening a file run, whatever its kind: everything before the units, and the run's end. */
export async function openFileRun<Report>(options: RunJobOptions, shape: FileRunShape<Report>) {
  const { job, api, shard } = options;
  const now = options.now ?? (() => new Date());
  const startedAt = now();
  const mine = (key: string): boolean => shard === undefined || shardOf(key, shard.count) === shard.index;
  const full = options.full === true || shape.readsEveryKey;
  // What the reconcile right before this run read stands for searches, and what it or an undo read for a before (row/fresh-read.ts).
  const [freshReads, priorReads] = shape.readsEveryKey || options.state === undefined ? [] : [freshReadsAfter(options.state.lastRun(), startedAt.getTime()), priorReadsAfter(options.state.lastRun(), startedAt.getTime())];
  // Before any call: match.prefetch's choice counts the unknown keys in onDuplicateRows' first
  // read of the input, which finds the keys on several rows.
  const prefetch = PrefetchStep.of(job, { ...(options.state ? { state: options.state } : {}), full, mine, ...(freshReads ? { freshReads } : {}), surface: api.surface });
  // Pages when the choice says so (a reconcile whenever the job has a marker), told once.
  const runPrefetch = async (): Promise<Prefetched | undefined> => {
    const choice = shape.pagesWhenMarked !== undefined && prefetch !== undefined ? shape.pagesWhenMarked : prefetch?.choice();
    if (choice !== undefined) options.onPrefetch?.(choice);
    return prefetch === undefined || choice === undefined ? undefined : await prefetch.run(api, choice, job, options.signal);
  };
  const { duplicates, source } = await openFileInput(job, prefetch?.see, options.state?.lastHeader());
  // A dry run counts the writes and sends it withholds: with its own reads, the real run's calls.
  const withheld = options.dryRun ? new WithheldCalls() : undefined;
  // What a row reads and records; a dry run's contacts are what its rows would have left.
  const dryRunContacts = new Map<string, KnownContact>();
  const rowContext = (index: ContactIndex | undefined, firstReads: FirstReads | undefined): RowSyncContext => ({
    api,
    job,
    dryRun: options.dryRun,
    dryRunContacts,
    full,
    ...(options.state ? { state: options.state } : {}),
    ...(index ? { index } : {}),
    ...(withheld ? { withheld } : {}),
    ...(freshReads ? { freshReads } : {}),
    ...(priorReads ? { priorReads } : {}),
    ...(firstReads ? { firstReads } : {}),
  });
  // maxChange judges the keys the state does not know by what their rows read before the first
  // write (guards/first-read.ts): the prefetch's pages, when the run pages, come first.
  const readsBeforeGuards = shape.writes && job.guards?.maxChangePercent !== undefined;
  let prefetched: Prefetched | undefined;
  // Before the reports are opened or the run journalled: a night a guard refuses does nothing.
  // Shards of one job often share a report folder: each writes its own files. The reports are
  // opened before the run is journalled or any call made (but the guards' reads): a folder that
  // cannot take them stops the job before it did anything.
  const reportName = shardReportName(job.name, shard);
  let report: Report;
  let guarded: GuardPassage = { allowed: [] };
  try {
    if (readsBeforeGuards) prefetched = await runPrefetch();
    if (job.guards !== undefined && shape.writes) {
      guarded = await checkGuards(job, {
        ...(options.state ? { state: options.state, knownKeys: knownKeysNow(options.state, mine) } : { knownKeys: 0 }),
        mine,
        allow: options.allow ?? new Set(),
        // A read made ahead is one the row makes: its key alone on its row, the row within --limit.
        takesRow: (key, dataRow) => duplicates.alone(key) && (options.limit === undefined || dataRow <= options.limit),
        partOfExport: options.partial === true || isFedBackFile(source.header),
        ...(options.signal === undefined ? {} : { signal: options.signal }),
        // A listing that could not finish takes no row: nothing to read ahead for.
        ...(readsBeforeGuards && prefetched?.abort === undefined ? { rows: { context: rowContext(prefetched?.index, undefined), concurrency: job.concurrency } } : {}),
      });
    }
    report = shape.openReport(reportName, source);
  } catch (error) {
    await source.close();
    throw error;
  }
  const maxErrors = options.maxErrors ?? job.maxErrors;
  // The error threshold counts rows the platform failed, which are in results.csv (not rejected.csv: nothing to fix in them).
  const thresholdReportFile = shape.thresholdFile(report);
  const tally = new RunTally();
  const policy = new StopPolicy({
    signal: options.signal,
    limit: options.limit,
    deadline: options.deadline,
    onStopping: options.onStopping,
    now,
    // The port's pace (v2: the limits learnt, an earlier run's, or the first guess), not v1's rates.
    spacingMs: contactSpacingMs(api.pace(options.earlierLimits)),
    unreadUnitCalls: shape.calls.unreadAtLeast(api.surface, job.key.field),
    errorThreshold: (inputDone) => tally.thresholdAbort(maxErrors, inputDone, thresholdReportFile),
  });
  // A dry run journals nothing. A reconcile reads every key, but is no `--full` run: `state show` names it by its command.
  const state = options.dryRun ? undefined : options.state;
  const started = state === undefined ? undefined : startJournal(state, { job: job.name, argv: options.argv ?? '', full: options.full === true, surface: api.surface.name, reportDir: resolve(options.reportDir) }, job, shape.writes ? source.header : undefined);
  const runId = started?.runId;
  // Nothing done yet: no row is taken, the reports say why.
  policy.abortWith(started?.abort);
  // The guards' first read met a failure that stops the job: no row is taken, the reports say why.
  policy.abortWith(guarded.abort);
  if (!readsBeforeGuards && policy.abort === undefined) prefetched = await runPrefetch();
  // A listing that could not finish takes no row: the loop counts them not reached, the reports say why.
  policy.abortWith(prefetched?.abort);
  const index = prefetched?.index;
  const context = rowContext(index, guarded.firstReads);

  // A part of the export (a fed-back rejected file, --limit, --partial) says nothing of the keys
  // that left: the departed step does not run on it.
  const departs = job.onMissing !== undefined && shape.writes;
  const partial = departs ? partialInputReason({ markedPartial: options.partial === true, limit: options.limit, header: source.header }) : undefined;
  // The keys of this input, 8 bytes each: for the departed step after the rows, or for the
  // marked contacts the file lacks.
  const seen = (departs && options.state !== undefined && partial === undefined) || (!shape.writes && index !== undefined) ? new KeySighting() : undefined;
  const dispatcher = new RowDispatcher(job.concurrency);
  const ahead = new RowLookahead({
    job,
    state: options.state,
    surface: api.surface.name,
    ...(priorReads ? { priorReads } : {}),
    mine,
    busy: (key) => dispatcher.busy(key),
    ...(options.dryRun ? {} : { fingerprint: mappingFingerprint(job, source.header, options.productVersion ?? '') }),
    ...rowHashSettling(job, { dryRun: options.dryRun, full }),
    alone: (key) => duplicates.alone(key),
  });
  // A row that needs no call ends at the intake on a run; a reconcile reads every row's key.
  const settle = shape.readsEveryKey ? undefined : (draft: ContactDraft, cells: string[], known: KeyState | undefined) => settleWithoutCalls(draft, cells, context, known);
  const intake = new RowIntake({ job, ahead, duplicates, mine, seen, header: source.header, settle });
  const rows = { job, intake, tally, policy, mine, onRow: options.onRow, callsAtMost: (draft: ContactDraft) => shape.calls.atMost(draft, api.surface) };
  const input = fileRecords(source, ahead);
  const allow = options.allow ?? new Set();
  const guardsAllowed = shape.writes && allow.size > 0 ? allowedGuards(job.guards, allow, guarded.allowed) : undefined;
  const facts = { ...options, runId, startedAt, now, tally, prefetch: () => prefetched?.summarize(), ...(guardsAllowed === undefined ? {} : { guardsAllowed }) };
  const engine = { policy, dispatcher, signal: options.signal, journal: state === undefined || runId === undefined ? undefined : { state, runId, job } };

  return {
    report,
    seen,
    index,
    context,
    facts,
    rows,
    input,
    engine,
    source,
    reportName,
    partial,
    policy,
    prefetched: prefetch !== undefined,
    /** The run's result: the kind's ending, the exit code, the input's hint, the rows settled by their row hash. */
    end: <Ending>(ended: { readonly summary: Ending; readonly exitCode: RunExitCode }): Ending & FileRunEnd => {
      const inputHint = tally.rows.failed > 0 ? source.encodingHint() : undefined;
      return { ...ended.summary, exitCode: ended.exitCode, ...(inputHint === undefined ? {} : { inputHint }), rowsByRowHash: ahead.quickRows };
    },
  };
}
