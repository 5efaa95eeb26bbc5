/**
 * `contact-sync run <jobs.yaml>`: flags -> config -> one runJob per selected job -> exit code.
 * The command only wires; the work is the pipeline's.
 */
import { join, resolve } from 'node:path';
import type { Logger } from 'pino';
import { ApiCallStats } from '../api/call-stats.js';
import { urlOriginOnly } from '../api/strip-url-auth.js';
import { LimiterRegistry } from '../api/limiter.js';
import { StateStore } from '../state/state-store.js';
import { isBusyStore, StateStoreError, stateStoreFix } from '../state/state-store-error.js';
import { isSqliteError } from '../pipeline/job-abort.js';
import { accessSync, constants, existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import type { Job } from '../config/job-types.js';
import { parseMaxErrors, type MaxErrors } from '../config/max-errors.js';
import { parseMissingShare } from '../config/missing-share.js';
import { DURATION_FORMS, parseDuration } from '../config/duration.js';
import { urlProblem } from '../config/schema.js';
import { runJob } from '../pipeline/run-job.js';
import { parseShard, type Shard } from '../pipeline/shard.js';
import type { CliIo } from './cli-io.js';
import type { EmbeddedEmulator } from './embedded-emulator.js';
import { EXIT, worstExit } from '../exit-codes.js';
import { apiLimiters, connectionClient } from './connection.js';
import { overrideInput } from './input-override.js';
import { undoJob } from './undo-job.js';
import { countLines } from './line-count.js';
import { loadJobs } from './load-jobs.js';
import { UsageError } from './usage-error.js';
import { packageVersion } from './package-version.js';
import { JobLocks } from './job-locks.js';
import { userLockDir } from '../lock/lock-target.js';
import { JobWatch, type JobEnd, type WatchFlags } from './job-watch.js';
import { describeFailure } from './failure.js';
import { createProgressDisplay } from './progress-display.js';
import { formatReconcile, formatSummary, whatNext } from './summary-table.js';
import { formatDuration } from '../pipeline/report/duration.js';
import { parseGuardName, type GuardName } from '../pipeline/guards/guard-verdict.js';

export interface RunArgs {
  /**
   * `reconcile` compares each job's file with the platform and writes only its reports and the
   * state (docs/reconcile.md); `undo` puts back what run `undo.runId` changed (docs/undo.md). @default 'run'
   */
  command?: 'run' | 'reconcile' | 'undo';
  /** With `command: 'undo'`: the run, whether fields changed since it are put back too, which keys, and whether its created contacts are left alone. */
  undo?: { runId: number; force: boolean; keys?: readonly string[]; keepCreated?: boolean };
  jobsFile: string;
  job: string[];
  dryRun: boolean;
  limit: number | undefined;
  reportDir: string | undefined;
  emulator: boolean;
  emulatorSeed: string | undefined;
  maxErrors: MaxErrors | undefined;
  /** Ignore the state store's hashes: compare every row with the platform and refresh the state. */
  full: boolean;
  /** `--shard I/N`: only the rows whose key hashes to shard I of N. */
  shard: Shard | undefined;
  /** `--log-format`: with json, progress is a JSON log event too. */
  logFormat?: 'text' | 'json';
  /** `--max-duration`, in ms: stop taking rows in time to finish those in flight within it (exit 4). */
  maxDuration?: number;
  /** `--check`: check each connection (one call each) before the first row; exit 3 if one fails. */
  check?: boolean;
  /** `--max-missing`, percent: `onMissing.maxShare` for this run. */
  maxMissing?: number;
  /** `--input FILE|-`: replaces the one selected job's input (`input-override.ts`). */
  input?: string;
  /** `--metrics-file` and `--pushgateway`: replace jobs.yaml's `metrics:` (`job-watch.ts`). */
  watch?: WatchFlags;
  /** `--partial`: the input is a part of the export; the departed step (onMissing) does not run. @default false */
  partial?: boolean;
  /** `--allow NAME`: the guards (`guards:`) this run may go past. @default none */
  allow?: GuardName[];
}

/** `--allow minRows --allow maxChange`: the guards' names, as jobs.yaml writes them. */
export function parseAllowFlags(texts: readonly string[]): GuardName[] {
  return texts.map((text) => {
    const parsed = parseGuardName(text);
    if (typeof parsed !== 'string') throw new UsageError(`--allow: ${parsed.problem}`);
    return parsed;
  });
}

/** `I/N` for --shard. */
export function parseShardFlag(text: string): Shard {
  try {
    return parseShard(text);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** `--max-errors N` or `N%`: the same forms as `maxErrors` in jobs.yaml. */
export function parseMaxErrorsFlag(text: string): MaxErrors {
  const parsed = parseMaxErrors(text);
  if ('problem' in parsed) throw new UsageError(`--max-errors: "${text}" ${parsed.problem}`);
  return parsed.ok;
}

/** `--max-missing 30%`: the same form as `onMissing.maxShare` in jobs.yaml. */
export function parseMaxMissingFlag(text: string): number {
  const parsed = parseMissingShare(text);
  if ('problem' in parsed) throw new UsageError(`--max-missing: "${text}" ${parsed.problem}`);
  return parsed.ok;
}

/** `--pushgateway URL`: an http(s) URL, its credentials never echoed. */
export function parsePushgatewayFlag(text: string): string {
  const problem = urlProblem(text, ['http:', 'https:'], 'an http:// or https:// URL, e.g. --pushgateway http://pushgateway:9091');
  if (problem !== undefined) throw new UsageError(`--pushgateway: "${urlOriginOnly(text)}" ${problem}`);
  return text;
}

/** `--max-duration 90s | 45m | 6h`. */
export function parseMaxDurationFlag(text: string): number {
  const ms = parseDuration(text);
  if (ms === undefined || ms <= 0) throw new UsageError(`--max-duration: "${text}" is not a duration; write ${DURATION_FORMS.replace('500ms, ', '')}, e.g. --max-duration 6h`);
  return ms;
}

/** Creates the report folder (owner only), or says which folder and how to choose another; returns the first folder it created. */
function createReportDir(dir: string, given: boolean): string | undefined {
  try {
    const created = mkdirSync(dir, { recursive: true, mode: 0o700 });
    accessSync(dir, constants.W_OK);
    return created;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    const fix = given ? 'choose a folder this user can write with --report-dir' : 'run from a folder this user can write, or choose one with --report-dir';
    throw new UsageError(`the report folder ${dir} cannot be created or written (${code}); ${fix}; nothing was done`);
  }
}

function timestampFolder(now: Date): string {
  return now.toISOString().replace(/[:]/g, '-').replace(/\..*$/, '');
}

export async function runCommand(args: RunArgs, io: CliIo, logger: Logger): Promise<number> {
  const jobs = await loadJobs(args.jobsFile, args.job, io, logger);
  // An undo reads the change journal, never the input: a pipe named as its input is not waited for.
  const selected = args.command === 'undo' ? { jobs, release: () => undefined } : await overrideInput(jobs, args.input, io);
  try {
    return await runJobs(selected.jobs, args, io, logger);
  } finally {
    selected.release();
  }
}

async function runJobs(selected: Job[], args: RunArgs, io: CliIo, logger: Logger): Promise<number> {
  let jobs = selected;
  const lockDir = lockFolder(io.env);
  if (args.command === 'reconcile') {
    const senders = jobs.filter((job) => job.mode === 'message').map((job) => job.name);
    if (senders.length > 0) {
      throw new UsageError(
        `${args.jobsFile}: job(s) ${senders.join(', ')} have mode: message, which writes no field, so there is nothing to reconcile; name the other jobs with --job; nothing was done`,
      );
    }
  }
  let embedded: EmbeddedEmulator | undefined;
  if (args.emulator) {
    // Loaded only here: a real run never pays for the emulator's server (fastify) in memory or start-up.
    const { startEmbeddedEmulator } = await import('./embedded-emulator.js');
    embedded = await startEmbeddedEmulator(jobs, args.emulatorSeed === undefined ? undefined : resolve(io.cwd, args.emulatorSeed));
    jobs = embedded.jobs;
    logger.info({ url: embedded.emulator.url }, 'embedded emulator started');
  }
  // Only `run` tells the outside when a job ends: a reconcile and an undo are run by hand.
  const watch = (args.command ?? 'run') === 'run' ? new JobWatch(args.watch ?? {}, io.cwd, args.shard, logger, args.dryRun) : undefined;
  try {
    watch?.check(jobs);
  } catch (error) {
    await embedded?.emulator.close();
    throw error;
  }
  // One run per job at a time: every job's lock before any call, released after the last report.
  const locks = new JobLocks(resolve(io.cwd, args.jobsFile), args.shard === undefined ? undefined : `${args.shard.index}/${args.shard.count}`, describeRun(args), logger, lockDir);
  try {
    locks.acquire(jobs);
  } catch (error) {
    locks.release();
    await embedded?.emulator.close();
    throw error;
  }
  const reportDir = resolve(io.cwd, args.reportDir ?? join('reports', timestampFolder(new Date())));
  let createdReportDir: string | undefined;
  try {
    // A folder that cannot take the reports is an input error: said before any call.
    createdReportDir = createReportDir(reportDir, args.reportDir !== undefined);
  } catch (error) {
    locks.release();
    await embedded?.emulator.close();
    throw error;
  }
  // A run stopped by an input error before any report leaves no empty report folder behind.
  const removeUnusedReportDir = (): void => {
    if (createdReportDir !== undefined && existsSync(reportDir) && readdirSync(reportDir).length === 0) rmSync(createdReportDir, { recursive: true, force: true });
  };
  const limiters = new LimiterRegistry();
  const deadline = args.maxDuration === undefined ? undefined : Date.now() + args.maxDuration;
  const interrupt = new AbortController();
  let grace: NodeJS.Timeout | undefined;
  const stopNow = (why: string): void => {
    const code = interrupt.signal.reason === 'SIGTERM' ? EXIT.sigterm : EXIT.sigint;
    logger.error({ exitCode: code }, `${why}: stopping at once; the rows in flight are not in the reports, and a killed run is safe to repeat: run the same command again`);
    io.exit?.(code);
  };
  const onSignal = (signal: 'SIGINT' | 'SIGTERM') => () => {
    if (interrupt.signal.aborted) {
      stopNow(`second ${signal}`);
      return;
    }
    logger.warn({ signal }, `interrupted (${signal}): taking no more rows, finishing those in flight, then writing the reports; a second ${signal} stops at once`);
    interrupt.abort(signal);
    // The wait for the rows in flight is bounded, even when the platform asks to retry after minutes.
    grace = setTimeout(() => stopNow(`the rows in flight did not finish within ${formatDuration(SIGNAL_GRACE_MS)} of the ${signal}`), SIGNAL_GRACE_MS);
    grace.unref();
  };
  const onSigint = onSignal('SIGINT');
  const onSigterm = onSignal('SIGTERM');
  io.signals.on('SIGINT', onSigint);
  io.signals.on('SIGTERM', onSigterm);

  const codes: number[] = [];
  try {
    // Every limiter shared through Redis connects before the first job: an unreachable Redis is
    // a start failure (exit 2), before any row or call.
    for (const job of jobs) apiLimiters(job, limiters);
    await limiters.ready();
    await locks.acquireShared(jobs);
    if (args.check === true) {
      const { checkConnections, formatCheck } = await import('./check-command.js');
      const checks = await checkConnections(jobs, limiters);
      for (const check of checks) {
        if (check.problem === undefined) logger.info({ connection: check.connection, latencyMs: check.latencyMs }, formatCheck(check));
        else logger.error({ connection: check.connection, code: 'CHECK_FAILED' }, `${formatCheck(check)}; no row was taken`);
      }
      if (checks.some((check) => check.problem !== undefined)) return EXIT.aborted;
    }
    // Jobs on different channels have separate budgets: side by side. Jobs on one channel share its
    // budget: one after another (docs/operations.md).
    const groups = byChannel(jobs);
    const labelled = groups.length > 1;
    const results = await Promise.all(
      groups.map(async (group) => {
        const groupCodes: number[] = [];
        for (const job of group) {
          if (interrupt.signal.aborted) break;
          const startedAt = new Date();
          watch?.started(job);
          let end: JobEnd;
          try {
            end = await runOneJob(job, args, io, logger, limiters, reportDir, interrupt.signal, { deadline, labelled });
          } catch (error) {
            const failure = describeFailure(error);
            await watch?.ended(job, startedAt, { exitCode: failure.exitCode, failure: { code: failure.code, message: failure.message } });
            throw error;
          }
          await watch?.ended(job, startedAt, end);
          groupCodes.push(end.exitCode);
        }
        return groupCodes;
      }),
    );
    codes.push(...results.flat());
  } finally {
    clearTimeout(grace);
    io.signals.off('SIGINT', onSigint);
    io.signals.off('SIGTERM', onSigterm);
    await limiters.stop({ dropWaitingJobs: true });
    await locks.releaseShared();
    locks.release();
    await embedded?.emulator.close();
    removeUnusedReportDir();
  }
  if (interrupt.signal.aborted) codes.push(interrupt.signal.reason === 'SIGTERM' ? EXIT.sigterm : EXIT.sigint);
  return worstExit(codes);
}

/** The folder of the job locks, or a usage error (exit 2, before any call) that says how to choose one. */
function lockFolder(env: CliIo['env']): string {
  try {
    return userLockDir(env);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** After a first signal, how long the rows in flight may take before the run stops at once. */
export const SIGNAL_GRACE_MS = 60_000;

/** Jobs grouped by the channel whose budget they spend (base URL and token), in the jobs' order. */
function byChannel(jobs: readonly Job[]): Job[][] {
  const groups = new Map<string, Job[]>();
  for (const job of jobs) {
    const key = `${job.connection.baseUrl}\u0000${job.connection.token}`;
    groups.set(key, [...(groups.get(key) ?? []), job]);
  }
  return [...groups.values()];
}

async function runOneJob(
  job: Job,
  args: RunArgs,
  io: CliIo,
  logger: Logger,
  limiters: LimiterRegistry,
  reportDir: string,
  signal: AbortSignal,
  timing: { deadline: number | undefined; labelled: boolean },
): Promise<JobEnd> {
  const { connection } = job;
  const stats = new ApiCallStats();
  const api = connectionClient(job, limiters, { stats, logger: logger.child({ job: job.name }) });
  if (args.command === 'undo' && args.undo !== undefined) {
    return { exitCode: await undoJob(job, { jobsFile: args.jobsFile, ...args.undo, dryRun: args.dryRun }, { api, io, logger, reportDir, signal, deadline: timing.deadline, argv: describeRun(args) }) };
  }
  // Progress is info: --quiet and --log-level warn or above leave it out; JSON logs carry it as events.
  // Jobs side by side print labelled lines: two bars cannot share a terminal.
  const progressMode = !logger.isLevelEnabled('info') ? 'off' : args.logFormat === 'json' ? 'log' : io.isTTY && !timing.labelled ? 'bar' : 'lines';
  // The count is the progress display's estimate alone: a run that shows none does not read the file for it.
  const lines = progressMode === 'off' ? undefined : await countLines(job.input.path).catch(() => undefined);
  const fileRows = lines === undefined ? undefined : Math.max(0, lines - 1);
  // A dry run reads the state when there is one and never creates or writes it.
  const state = job.state === false || (args.dryRun && !existsSync(job.state)) ? undefined : StateStore.open(job.state, { job: job.name, keyField: job.key.field });
  const progress = createProgressDisplay({
    mode: progressMode,
    ...(timing.labelled ? { label: job.name } : {}),
    // With --limit the run takes at most that many rows: the bar's total and the ETA say so.
    expectedRows: fileRows === undefined || args.limit === undefined ? fileRows : Math.min(fileRows, args.limit),
    // The rows beyond the keys the store knows are new keys, which the ETA weighs at a create's calls.
    knownKeys: progressMode === 'off' || job.state === false ? undefined : state === undefined ? 0 : knownKeysOf(state, job),
    stats,
    rate: connection.rateLimits.contacts,
    stream: io.stderr,
    log: (fields, message) => logger.info({ job: job.name, ...fields }, message),
  });
  const reconciling = args.command === 'reconcile';
  logger.info({ job: job.name, input: job.input.label ?? job.input.path, dryRun: args.dryRun, ...(reconciling ? { reconcile: true } : {}) }, reconciling ? 'reconcile started' : 'job started');
  try {
    const run = await runJob({
      job,
      api,
      reportDir,
      dryRun: args.dryRun,
      signal,
      ...(timing.deadline === undefined ? {} : { deadline: timing.deadline }),
      onStopping: ({ reason, inFlight, finishMs }) => {
        const finishing = `finishing the ${inFlight} rows in flight (about ${formatDuration(finishMs)}), then writing the reports`;
        if (reason === 'deadline') logger.warn({ job: job.name }, `--max-duration: taking no more rows; ${finishing}; the next run goes on where this one stopped`);
        else logger.warn({ job: job.name }, `${finishing}; a second signal stops at once`);
      },
      onPrefetch: ({ use, reason }) => logger.info({ job: job.name, prefetch: use }, use ? `match.prefetch: paging through the marked contacts (${reason})` : `match.prefetch: not paging (${reason})`),
      onRow: (tally, result) => progress.update(tally, result),
      full: args.full,
      work: reconciling ? 'reconcile' : 'sync',
      productVersion: packageVersion(),
      argv: describeRun(args),
      ...(args.shard === undefined ? {} : { shard: args.shard }),
      ...(state === undefined ? {} : { state }),
      ...(args.limit === undefined ? {} : { limit: args.limit }),
      ...(args.maxErrors === undefined ? {} : { maxErrors: args.maxErrors }),
      ...(args.maxMissing === undefined ? {} : { maxMissingPercent: args.maxMissing }),
      ...(args.partial === true ? { partial: true } : {}),
      ...(args.allow === undefined ? {} : { allow: new Set(args.allow) }),
    });
    progress.stop();
    io.stdout.write(run.reconcile === undefined ? formatSummary(run.summary, run.reportFiles, { limit: args.limit }) : formatReconcile(run.reconcile, run.reportFiles));
    if (run.inputHint !== undefined) logger.warn({ job: job.name }, run.inputHint);
    if (run.summary.aborted !== undefined) logger.error({ job: job.name, code: run.summary.aborted.code }, `job aborted: ${run.summary.aborted.message}`);
    if (run.reconcile !== undefined) logger.info({ job: job.name, keys: run.reconcile.keys, apiCalls: run.reconcile.apiCalls.total, exitCode: run.exitCode }, 'reconcile finished');
    else logger.info({ job: job.name, rows: run.summary.rows, apiCalls: run.summary.apiCalls.total, exitCode: run.exitCode }, 'job finished');
    return run.reconcile === undefined ? { exitCode: run.exitCode, summary: run.summary, advice: whatNext(run.summary, run.reportFiles) } : { exitCode: run.exitCode };
  } finally {
    progress.stop();
    state?.close();
  }
}

/**
 * The keys the state store knows that no departure took: the ETA's known rows. The first read of
 * the store's pages: a damaged or held file is said here, with its fix, before any row (exit 2 or 75).
 */
function knownKeysOf(state: StateStore, job: Job): number {
  try {
    const { keys, departed } = state.summary();
    return Math.max(0, keys - departed);
  } catch (error) {
    if (!isSqliteError(error)) throw error;
    state.close();
    const code = isBusyStore(error) ? 'STATE_BUSY' : 'STATE_UNREADABLE';
    throw new StateStoreError(code, state.path, `${state.path}: the state store of job "${job.name}" cannot be read (${error.message}). ${stateStoreFix(error, job.name)}`, { cause: error });
  }
}

/** The run as the state store's journal records it: the flags, never a secret. */
function describeRun(args: RunArgs): string {
  const flags = [
    args.dryRun && '--dry-run',
    args.full && '--full',
    args.limit !== undefined && `--limit ${args.limit}`,
    args.emulator && '--emulator',
    args.shard !== undefined && `--shard ${args.shard.index}/${args.shard.count}`,
    args.maxDuration !== undefined && `--max-duration ${formatDuration(args.maxDuration)}`,
    args.maxMissing !== undefined && `--max-missing ${args.maxMissing}%`,
    ...(args.allow ?? []).map((name) => `--allow ${name}`),
    args.input !== undefined && `--input ${args.input}`,
    args.partial === true && '--partial',
    args.undo !== undefined && `--run ${args.undo.runId}${args.undo.force ? ' --force' : ''}${args.undo.keys === undefined ? '' : ` --key (${args.undo.keys.length} keys)`}${args.undo.keepCreated === true ? ' --keep-created' : ''}`,
  ];
  return [args.command ?? 'run', args.jobsFile, ...flags.filter((flag): flag is string => typeof flag === 'string')].join(' ');
}
