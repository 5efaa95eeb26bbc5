/**
 * The run session of `run`, `reconcile` and `undo` (docs/architecture.md, "The CLI"): it takes,
 * in this order, what running jobs needs (the jobs file and its jobs, their inputs, the embedded
 * emulator, the job locks, the report folder, the limiters, the signals, the locks in Redis),
 * runs each job's work, and releases all of it from one cleanup stack, in the reverse order, on
 * every path: a success, a throw, a signal. A job's own resources (its state store, its progress
 * display) are released from the job's stack when the job ends, before its sinks are told.
 *
 * The session asks no command what it is: a command (`run-command.ts`, `reconcile-command.ts`,
 * `undo-command.ts`) says what differs in `SessionOptions` and brings the work of one job.
 */
import { resolve } from 'node:path';
import type { Logger } from 'pino';
import { ApiCallStats } from '../api/call-stats.js';
import type { ContactsApi } from '../api/contacts-api.js';
import { LimiterRegistry } from '../api/limiter.js';
import type { Job } from '../config/job-types.js';
import { EXIT, worstExit } from '../exit-codes.js';
import { hostLockDir } from '../lock/lock-target.js';
import type { Shard } from '../pipeline/kinds/shard.js';
import { jobMasker } from '../pipeline/report/mask.js';
import { CleanupStack, type Release } from './cleanup-stack.js';
import type { CliIo } from './cli-io.js';
import { connectionClient, prepareLimits } from './connection.js';
import { learntLimitsFactory, OrganisationLimits } from './v2-endpoint-limits.js';
import { describeFailure } from './failure.js';
import { overrideInput } from './input-override.js';
import { JobLocks } from './job-locks.js';
import type { JobEnd, JobWatch } from './job-watch.js';
import { loadJobs } from './load-jobs.js';
import { maskingLogger } from './logger.js';
import { openReportFolder } from './report-folder.js';
import { RunInterrupt } from './run-interrupt.js';
import { UsageError } from './usage-error.js';

/** The flags every command that runs jobs reads the same way (`commands/run-options.ts` declares them). */
export interface SessionFlags {
  readonly jobsFile: string;
  /** `--job`: the jobs to run, in this order; every job of the file when empty. */
  readonly job: readonly string[];
  /** `--report-dir`. @default a new reports/<timestamp>/ */
  readonly reportDir?: string | undefined;
  /** `--max-duration`, in ms: stop taking rows in time to finish those in flight within it (exit 4). */
  readonly maxDuration?: number | undefined;
  /** `--emulator`: the jobs run against an emulator started in this process. @default false */
  readonly emulator?: boolean;
  /** `--emulator-seed`: with `--emulator`, a JSON file of contacts to load first. */
  readonly emulatorSeed?: string | undefined;
  /** `--check`: check each connection (one call each) before the first row; exit 3 if one fails. @default false */
  readonly check?: boolean;
  /** `--input FILE|-`: replaces the one selected job's input (`input-override.ts`). */
  readonly input?: string | undefined;
}

export interface SessionOptions extends SessionFlags {
  /** The command line as the locks' holder files and the run journal record it (`describeRun`): the flags, never a secret. */
  readonly argv: string;
  /** `--shard I/N`: the locks are the shard's. */
  readonly shard?: Shard | undefined;
  /**
   * Whether the jobs' rows are read. An undo reads the change journal, never the input: a pipe
   * named as its input is not waited for.
   */
  readonly readsInput: boolean;
  /** The command's own refusal of the selected jobs (a UsageError), before anything is started. */
  readonly refuse?: (jobs: readonly Job[]) => void;
  /** The sinks told when each job starts and ends; checked before any call. @default none */
  readonly watch?: JobWatch | undefined;
}

/** What the work of one job is given. */
export interface JobScope {
  readonly job: Job;
  /** The job's client, on the session's limiters; its calls are counted in `stats`. */
  readonly api: ContactsApi;
  readonly stats: ApiCallStats;
  readonly reportDir: string;
  /** Aborted by the first SIGINT or SIGTERM: take no more rows. */
  readonly signal: AbortSignal;
  /** `--max-duration`'s end, in ms since the epoch. */
  readonly deadline: number | undefined;
  readonly argv: string;
  /** Jobs run side by side (on different channels): their progress lines carry the job's name. */
  readonly labelled: boolean;
  readonly io: CliIo;
  readonly logger: Logger;
  /** `release` runs when this job ends, however it ends (before earlier deferrals of the job). */
  defer(release: Release): void;
}

export type JobWork = (scope: JobScope) => Promise<JobEnd>;

/** Runs `work` for each selected job within one session; returns the command's exit code. */
export async function runSession(options: SessionOptions, io: CliIo, logger: Logger, work: JobWork): Promise<number> {
  // A release that failed behind the failure that stopped the command: said, not thrown.
  const onSuppressed = (error: unknown): void => {
    const failure = describeFailure(error);
    logger.warn({ code: failure.code }, `could not release what the run held: ${failure.message}`);
  };
  const stack = new CleanupStack(onSuppressed);
  const interrupt = new RunInterrupt(io, logger);
  const ended = await stack.releaseAfter(async () => {
    const session = await openSession(stack, options, io, logger, interrupt);
    if (options.check === true && !(await connectionsAnswer(session.jobs, session.limiters, logger))) return { checkFailed: true } as const;
    return { codes: await runJobs(session, options, io, logger, work, onSuppressed) };
  });
  if ('checkFailed' in ended) return EXIT.aborted;
  const interrupted = interrupt.exitCode;
  return worstExit(interrupted === undefined ? ended.codes : [...ended.codes, interrupted]);
}

interface OpenSession {
  readonly jobs: readonly Job[];
  readonly limiters: LimiterRegistry;
  /** The v2 budgets of the session's organisations, shared by its jobs. */
  readonly organisations: OrganisationLimits;
  readonly reportDir: string;
  readonly deadline: number | undefined;
  readonly signal: AbortSignal;
}

/** Takes what the jobs need, each release deferred on `stack` just before it is taken. */
async function openSession(stack: CleanupStack, options: SessionOptions, io: CliIo, logger: Logger, interrupt: RunInterrupt): Promise<OpenSession> {
  let jobs = await loadJobs(options.jobsFile, options.job, io, logger);
  if (options.readsInput) {
    const selected = await overrideInput(jobs, options.input, io);
    stack.defer(() => selected.release());
    jobs = selected.jobs;
  }
  options.refuse?.(jobs);
  const lockDir = lockFolder(io.env);
  if (options.emulator === true) {
    // Loaded only here: a real run never pays for the emulator's server (fastify) in memory or start-up.
    const { startEmbeddedEmulator } = await import('./embedded-emulator.js');
    const embedded = await startEmbeddedEmulator(jobs, options.emulatorSeed === undefined ? undefined : resolve(io.cwd, options.emulatorSeed));
    stack.defer(() => embedded.emulator.close());
    jobs = embedded.jobs;
    logger.info({ url: embedded.emulator.url }, 'embedded emulator started');
  }
  options.watch?.check(jobs);
  // One run per job at a time: every job's lock before any call, released after the last report.
  const locks = new JobLocks(resolve(io.cwd, options.jobsFile), options.shard === undefined ? undefined : `${options.shard.index}/${options.shard.count}`, options.argv, logger, lockDir);
  stack.defer(() => locks.release());
  stack.defer(() => locks.releaseShared());
  locks.acquire(jobs);
  const reports = openReportFolder(io.cwd, options.reportDir, new Date());
  // A run stopped by an input error before any report leaves no empty report folder behind.
  stack.defer(() => reports.removeIfUnused());
  const limiters = new LimiterRegistry();
  stack.defer(() => limiters.stop({ dropWaitingJobs: true }));
  const deadline = options.maxDuration === undefined ? undefined : Date.now() + options.maxDuration;
  stack.defer(() => interrupt.stop());
  interrupt.listen();
  // Every limiter shared through Redis connects before the first job: an unreachable Redis is
  // a start failure (exit 2), before any row or call.
  const organisations = new OrganisationLimits(learntLimitsFactory(limiters));
  for (const job of jobs) prepareLimits(job, limiters, organisations);
  await limiters.ready();
  await locks.acquireShared(jobs);
  return { jobs, limiters, organisations, reportDir: reports.dir, deadline, signal: interrupt.signal };
}

/** `--check`: each connection answers (one call each), or the run takes no row (exit 3). */
async function connectionsAnswer(jobs: readonly Job[], limiters: LimiterRegistry, logger: Logger): Promise<boolean> {
  const { checkConnections, formatCheck } = await import('./check-command.js');
  const checks = await checkConnections(jobs, limiters);
  for (const check of checks) {
    if (check.problem === undefined) logger.info({ connection: check.connection, latencyMs: check.latencyMs }, formatCheck(check));
    else logger.error({ connection: check.connection, code: 'CHECK_FAILED' }, `${formatCheck(check)}; no row was taken`);
  }
  return checks.every((check) => check.problem === undefined);
}

/**
 * Jobs on different channels have separate budgets: side by side. Jobs on one channel share its
 * budget: one after another (docs/operations.md). Returns each job's exit code.
 */
async function runJobs(session: OpenSession, options: SessionOptions, io: CliIo, logger: Logger, work: JobWork, onSuppressed: (error: unknown) => void): Promise<number[]> {
  const groups = byChannel(session.jobs);
  const labelled = groups.length > 1;
  const results = await Promise.all(
    groups.map(async (group) => {
      const codes: number[] = [];
      for (const job of group) {
        if (session.signal.aborted) break;
        const startedAt = new Date();
        options.watch?.started(job);
        let end: JobEnd;
        try {
          const stack = new CleanupStack(onSuppressed);
          end = await stack.releaseAfter(() => {
            const stats = new ApiCallStats();
            // privacy.mask: the job's lines, its client's and its abort's are masked (report/mask.ts).
            const jobLogger = jobLoggerOf(logger, job);
            const api = connectionClient(job, session.limiters, { stats, logger: jobLogger.child({ job: job.name }), organisations: session.organisations });
            const { reportDir, signal, deadline } = session;
            return work({ job, api, stats, reportDir, signal, deadline, argv: options.argv, labelled, io, logger: jobLogger, defer: (release) => stack.defer(release) });
          });
        } catch (error) {
          maskFailure(error, job);
          const failure = describeFailure(error);
          await options.watch?.ended(job, startedAt, { exitCode: failure.exitCode, failure: { code: failure.code, message: failure.message } }, session.signal);
          throw error;
        }
        await options.watch?.ended(job, startedAt, end, session.signal);
        codes.push(end.exitCode);
      }
      return codes;
    }),
  );
  return results.flat();
}

/**
 * A job's failure leaves it with its message masked (`privacy.mask`): the webhook, the log line
 * and the console that say it read the message; the error's code and class stay.
 */
function maskFailure(error: unknown, job: Job): void {
  const masker = jobMasker(job);
  if (!masker.active || !(error instanceof Error)) return;
  error.message = masker.text(error.message);
  if (error.stack !== undefined) error.stack = masker.text(error.stack);
}

/** The job's logger: the session's, masking the job's `privacy.mask` fields when it has some. */
function jobLoggerOf(logger: Logger, job: Job): Logger {
  const masker = jobMasker(job);
  return masker.active ? maskingLogger(logger, (text) => masker.text(text)) : logger;
}

/** The folder of the job locks, or a usage error (exit 2, before any call) that says how to choose one. */
function lockFolder(env: CliIo['env']): string {
  try {
    return hostLockDir(env);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** Jobs grouped by the channel whose budget they spend (base URL and token), in the jobs' order. */
function byChannel(jobs: readonly Job[]): Job[][] {
  const groups = new Map<string, Job[]>();
  for (const job of jobs) {
    const key = `${job.connection.baseUrl}\u0000${job.connection.token}`;
    groups.set(key, [...(groups.get(key) ?? []), job]);
  }
  return [...groups.values()];
}
