/**
 * `contact-sync check <jobs.yaml>` (and `run --check` before the first row): one search call per
 * connection the jobs use, through its limiter, without retries, so a long run does not start
 * against a base URL that does not answer, a revoked token or a channel that is throttled now.
 * A `--limit 5` run of unchanged rows makes no call and would not notice any of these. It says
 * which surface of the platform answered (API v1 or v2) and, for a client that learns its limits
 * from the answers (v2's), the limits it learnt.
 */
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import { ApiError, InvalidTokenError, RateLimitedError } from '../api/errors.js';
import { LimiterRegistry } from '../api/limiter.js';
import type { ContactsApi } from '../api/contacts-api.js';
import type { SurfaceName } from '../api/platform-surface.js';
import { stripUrlAuth } from '../api/strip-url-auth.js';
import type { LearntLimit } from '../api/v2/endpoint-limits.js';
import type { Job } from '../config/job-types.js';
import type { CliIo } from './cli-io.js';
import { EXIT } from '../exit-codes.js';
import { loadJobs } from './load-jobs.js';
import { connectionClient, prepareLimits } from './connection.js';
import { learntLimitsFactory, OrganisationLimits } from './v2-endpoint-limits.js';

/** The value searched for: no contact holds it, so the answer is one empty page. */
const PROBE_VALUE = 'contact-sync-connection-check';

export interface ConnectionCheck {
  connection: string;
  baseUrl: string;
  /** The surface of the platform the connection's client speaks, which answered (or failed to). */
  surface: SurfaceName;
  /** The limits the client learnt from the answers, per endpoint; undefined for a client that learns none (v1's are configured). */
  learntLimits: readonly LearntLimit[] | undefined;
  /** What is wrong, with the fix; undefined when the connection is fit to run. */
  problem: string | undefined;
  latencyMs: number;
}

/** Checks each connection the jobs use, once, in the jobs' order. */
export async function checkConnections(jobs: readonly Job[], limiters: LimiterRegistry, now: () => number = () => performance.now()): Promise<ConnectionCheck[]> {
  const seen = new Map<string, Job>();
  for (const job of jobs) if (!seen.has(job.connection.name)) seen.set(job.connection.name, job);
  const checks: ConnectionCheck[] = [];
  const organisations = new OrganisationLimits(learntLimitsFactory(limiters));
  for (const job of seen.values()) {
    const { connection } = job;
    // The connection's own timeouts; a 429 or a failure is the answer to report, not something to wait out.
    const api = connectionClient(job, limiters, { retryLimit: 0, organisations });
    const started = now();
    const problem = await api.searchContactsPage(job.key.field, PROBE_VALUE).then(
      () => undefined,
      (error: unknown) => describeProblem(error, connection.name),
    );
    checks.push({
      connection: connection.name,
      baseUrl: stripUrlAuth(connection.baseUrl),
      surface: api.surface.name,
      learntLimits: learntLimitsOf(api),
      problem,
      latencyMs: Math.round(now() - started),
    });
  }
  return checks;
}

/**
 * The hook of a client that learns its limits from the answers (the v2 client): `learntLimits()`,
 * what its limiter learnt so far (`EndpointLimits.learnt`). A client without it learns none.
 */
export interface LearnsLimits {
  learntLimits(): readonly LearntLimit[];
}

/** What `api` learnt of its limits, when it is a client that learns them. */
export function learntLimitsOf(api: ContactsApi | (ContactsApi & LearnsLimits)): readonly LearntLimit[] | undefined {
  return 'learntLimits' in api && typeof api.learntLimits === 'function' ? api.learntLimits() : undefined;
}

function describeProblem(error: unknown, connection: string): string {
  if (error instanceof InvalidTokenError) return `the platform refused the token (401); check the ${error.tokenKind} token connection "${connection}" reads`;
  if (error instanceof RateLimitedError) {
    const wait = error.retryAfterMs === undefined ? '' : ` for ${Math.ceil(error.retryAfterMs / 1000)} s`;
    return `the channel is throttled now (429${wait}); another run or integration may be using the token: wait, or lower rateLimits`;
  }
  if (error instanceof ApiError) return error.message;
  throw error;
}

/** What was checked, on which surface, how long the call took and the limits learnt, or what is wrong. */
export function formatCheck(check: ConnectionCheck): string {
  const connection = `connection ${check.connection} (${check.baseUrl})`;
  if (check.problem !== undefined) return `${connection}: FAILED: ${check.problem} (asked through API ${check.surface})`;
  const learnt = check.learntLimits === undefined || check.learntLimits.length === 0 ? '' : `; limits learnt: ${check.learntLimits.map(formatLearntLimit).join(', ')}`;
  return `${connection}: ok: API ${check.surface} answers, token accepted, not throttled, ${check.latencyMs} ms${learnt}`;
}

/**
 * One line for the jobs whose state store keeps its change journal for ever (no
 * `retention.journal`): the values before and after each write stay until pruned by hand
 * (docs/personal-data.md). Undefined when every job with a store sets a retention.
 */
export function retentionNote(jobs: readonly Pick<Job, 'name' | 'state' | 'retention'>[]): string | undefined {
  const forever = jobs.filter((job) => job.state !== false && job.retention === undefined).map((job) => job.name);
  if (forever.length === 0) return undefined;
  const which = forever.length === 1 ? `job ${forever[0] ?? ''} keeps` : `jobs ${forever.join(', ')} keep`;
  return `retention: ${which} the change journal (people's values before and after each write) for ever, as no retention.journal is set; a nightly job should set one, e.g. retention: {journal: 90d} (docs/personal-data.md)`;
}

/** `POST /contact/list 60 per 60 s`. */
function formatLearntLimit(limit: LearntLimit): string {
  const seconds = limit.windowMs / 1000;
  return `${limit.endpoint} ${limit.limit} per ${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)} s`;
}

export async function checkCommand(args: { jobsFile: string; job: string[] }, io: CliIo, logger: Logger): Promise<number> {
  const jobs = await loadJobs(args.jobsFile, args.job, io, logger);
  const limiters = new LimiterRegistry();
  try {
    // The registry keeps v2's budgets per organisation: checkConnections's clients get these.
    const organisations = new OrganisationLimits(learntLimitsFactory(limiters));
    for (const job of jobs) prepareLimits(job, limiters, organisations);
    await limiters.ready();
    const checks = await checkConnections(jobs, limiters);
    io.stdout.write(checks.map((check) => `${formatCheck(check)}\n`).join(''));
    const forever = retentionNote(jobs);
    if (forever !== undefined) io.stdout.write(`${forever}\n`);
    return checks.every((check) => check.problem === undefined) ? EXIT.ok : EXIT.aborted;
  } finally {
    await limiters.stop({ dropWaitingJobs: true });
  }
}
