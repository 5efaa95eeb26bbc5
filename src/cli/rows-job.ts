/**
 * One job of `run` or `reconcile` in its run session: the job's state store and progress display,
 * taken on the job's cleanup stack, and the command's kind of file run (`runSync`, `runReconcile`) over the job's rows. The command
 * says what is printed and logged around it (`run-command.ts`, `reconcile-command.ts`).
 */
import type { Job } from '../config/job-types.js';
import type { MaxErrors } from '../config/max-errors.js';
import type { GuardName } from '../pipeline/guards/guard-verdict.js';
import { isStoreFailure } from '../pipeline/job-abort.js';
import { formatDuration } from '../pipeline/report/duration.js';
import type { FileRunEnd, RunJobOptions } from '../pipeline/run-job.js';
import type { JobSummary } from '../pipeline/report/job-summary.js';
import { mixRate } from '../pipeline/real-run-estimate.js';
import { callsByOperation } from '../pipeline/report/summary-figures.js';
import type { CallBudget } from '../api/contacts-api.js';
import type { Shard } from '../pipeline/kinds/shard.js';
import { isBusyStore, StateStoreError, stateStoreFix } from '../state/state-store-error.js';
import { openExistingState, openStateStore, runLockHolder } from './open-state.js';
import type { RunWiringStore, StateAdmin } from '../state/state-port.js';
import { countLines } from './line-count.js';
import type { LogFormat } from './logger.js';
import { packageVersion } from './package-version.js';
import { createProgressDisplay } from './progress-display.js';
import type { JobScope } from './run-session.js';
import { counted } from '../pipeline/report/counted.js';
import { describeExpiry, expireJobJournal } from './journal-retention.js';

/** The flags `run` and `reconcile` share beyond the session's (`commands/run-options.ts` declares them). */
export interface RowFlags {
  /** `--limit`: take at most this many data rows of each job. */
  readonly limit?: number | undefined;
  /** `--max-errors`: overrides the job's `maxErrors`. */
  readonly maxErrors?: MaxErrors | undefined;
}

export interface RowsJobOptions extends RowFlags {
  /** `--dry-run`: search and plan, write nothing. @default false */
  readonly dryRun?: boolean;
  /** `--full`. @default false */
  readonly full?: boolean;
  readonly shard?: Shard | undefined;
  /** `--max-missing`, percent. */
  readonly maxMissing?: number | undefined;
  /** `--partial`. @default false */
  readonly partial?: boolean;
  /** `--allow`. @default none */
  readonly allow?: readonly GuardName[] | undefined;
  /** `--log-format`: with json, progress is a JSON log event too. */
  readonly logFormat?: LogFormat | undefined;
  /** Logs the job's first line, once its state store is open and before its first row. */
  readonly announce: () => void;
}

/** One job of `run` or `reconcile`: `kind` is the pipeline's run of the command's kind (`runSync`, `runReconcile`), whose own result it returns. */
export async function runRowsJob<Run extends FileRunEnd>(scope: JobScope, options: RowsJobOptions, kind: (options: RunJobOptions) => Promise<Run>): Promise<Run> {
  const { job, io, logger } = scope;
  // Progress is info: --quiet and --log-level warn or above leave it out; JSON logs carry it as events.
  // Jobs side by side print labelled lines: two bars cannot share a terminal.
  const progressMode = !logger.isLevelEnabled('info') ? 'off' : options.logFormat === 'json' ? 'log' : io.isTTY && !scope.labelled ? 'bar' : 'lines';
  // The count is the progress display's estimate alone: a run that shows none does not read the file for it.
  const lines = progressMode === 'off' ? undefined : await countLines(job.input.path).catch(() => undefined);
  const fileRows = lines === undefined ? undefined : Math.max(0, lines - 1);
  // A dry run reads the state when there is one and never creates or writes it; it holds no
  // run lock across hosts (it writes nothing a run could lose).
  const dryRun = options.dryRun === true;
  const state = dryRun ? await openExistingState(job) : job.state === false ? undefined : await openStateStore(job, { runLock: runLockHolder(scope.argv, options.shard?.count) });
  if (state !== undefined) scope.defer(() => state.close());
  // retention.journal, at the start: before any row, so a run that stops early still keeps the
  // retention, its own lines (none yet) are never concerned, and the deletion's checkpoint does
  // not wait behind the rows' writes. A dry run writes nothing, so expires nothing.
  if (state !== undefined && !dryRun) {
    const expiry = readOfStore(state, job, () => expireJobJournal(job, state, Date.now()));
    if (expiry !== undefined) logger[expiry.lines > 0 ? 'info' : 'debug']({ job: job.name, expiredLines: expiry.lines, expiredRuns: expiry.runs }, describeExpiry(expiry));
  }
  // The limits earlier runs learnt: the estimates and the ETA start from them, not a first guess.
  const earlierLimits = state === undefined ? [] : readOfStore(state, job, () => state.learntLimits());
  const pace = (): CallBudget[] => scope.api.pace(earlierLimits);
  const progress = createProgressDisplay({
    mode: progressMode,
    ...(scope.labelled ? { label: job.name } : {}),
    // With --limit the run takes at most that many rows: the bar's total and the ETA say so.
    expectedRows: fileRows === undefined || options.limit === undefined ? fileRows : Math.min(fileRows, options.limit),
    // The rows beyond the keys the store knows are new keys, which the ETA weighs at a create's calls.
    knownKeys: progressMode === 'off' || job.state === false ? undefined : state === undefined ? 0 : knownKeysOf(state, job),
    stats: scope.stats,
    // The pace of the run's mix of calls so far, at the budgets the port knows now.
    rate: () => mixRate(callsByOperation(scope.api), pace()),
    stream: io.stderr,
    log: (fields, message) => logger.info({ job: job.name, ...fields }, message),
  });
  scope.defer(() => progress.stop());
  options.announce();
  const run = await kind({
    job,
    api: scope.api,
    reportDir: scope.reportDir,
    dryRun,
    signal: scope.signal,
    ...(scope.deadline === undefined ? {} : { deadline: scope.deadline }),
    onStopping: ({ reason, inFlight, finishMs }) => {
      const finishing = `finishing the ${counted(inFlight, 'row')} in flight (about ${formatDuration(finishMs)}), then writing the reports`;
      if (reason === 'deadline') logger.warn({ job: job.name }, `--max-duration: taking no more rows; ${finishing}; the next run goes on where this one stopped`);
      else logger.warn({ job: job.name }, `${finishing}; a second signal stops at once`);
    },
    onPrefetch: ({ use, reason }) => logger.info({ job: job.name, prefetch: use }, use ? `match.prefetch: paging through the marked contacts (${reason})` : `match.prefetch: not paging (${reason})`),
    onRow: (tally, result) => progress.update(tally, result),
    full: options.full === true,
    productVersion: packageVersion(),
    argv: scope.argv,
    ...(options.shard === undefined ? {} : { shard: options.shard }),
    ...(state === undefined ? {} : { state }),
    ...(options.limit === undefined ? {} : { limit: options.limit }),
    ...(options.maxErrors === undefined ? {} : { maxErrors: options.maxErrors }),
    ...(options.maxMissing === undefined ? {} : { maxMissingPercent: options.maxMissing }),
    ...(options.partial === true ? { partial: true } : {}),
    ...(options.allow === undefined ? {} : { allow: new Set(options.allow) }),
    earlierLimits,
  });
  // The bar goes before the command prints its summary under it.
  progress.stop();
  if (state !== undefined && !dryRun) keepLearntLimits(state, pace(), scope);
  return run;
}

/**
 * Keeps in the state store the limits this run learnt from the answers (API v2), for the next
 * run's estimates. A store that cannot take them loses only that: the next run starts from a
 * first guess, said in a warning.
 */
function keepLearntLimits(state: RunWiringStore & Pick<StateAdmin, 'path'>, budgets: readonly CallBudget[], scope: JobScope): void {
  try {
    state.keepLearntLimits(budgets.filter((budget) => budget.source === 'learnt').map(({ name, rate }) => ({ name, rate })));
  } catch (error) {
    if (!isStoreFailure(error)) throw error;
    scope.logger.warn({ job: scope.job.name }, `${state.path}: the limits this run learnt could not be kept (${error.message}); the next run's estimates start from a first guess`);
  }
}

/** What both commands log of a job's rows once its summary is printed: the input's hint, the abort. */
export function logRowsEnd(scope: JobScope, run: FileRunEnd & { readonly summary: JobSummary }): void {
  const { job, logger } = scope;
  if (run.inputHint !== undefined) logger.warn({ job: job.name }, run.inputHint);
  if (run.summary.aborted !== undefined) logger.error({ job: job.name, code: run.summary.aborted.code }, `job aborted: ${run.summary.aborted.message}`);
}

/**
 * The keys the state store knows that no departure took: the ETA's known rows. Read, like the
 * limits earlier runs learnt, before any row: a damaged or held file is said here, with its fix
 * (exit 2 or 75); the job's cleanup stack closes the store.
 */
function knownKeysOf(state: StateAdmin, job: Job): number {
  return readOfStore(state, job, () => {
    const { keys, departed } = state.summary();
    return Math.max(0, keys - departed);
  });
}

/** A read of the store before any row: a damaged or held file is said with its fix (exit 2 or 75). */
function readOfStore<T>(state: Pick<StateAdmin, 'path'>, job: Job, read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (!isStoreFailure(error)) throw error;
    const code = isBusyStore(error) ? 'STATE_BUSY' : 'STATE_UNREADABLE';
    throw new StateStoreError(code, state.path, `${state.path}: the state store of job "${job.name}" cannot be read (${error.message}). ${stateStoreFix(error, job.name)}`, { cause: error });
  }
}
