/**
 * What the outside is told when a job of `run` ends (docs/operations.md, "Watching unattended
 * runs"): its figures to the metrics textfile and the Pushgateway, its webhook, and its heartbeat
 * (`/start` when the job starts, its end when it ends). None of it
 * changes the job's exit code: a sink that fails is a warning in the log, naming only the
 * sink's file or origin. Told for every job that started, whether it ended with a summary or
 * with a failure before it could write one; not for a run refused by the lock (the holder tells
 * when it ends) nor for a config error (no job was read): the "no success for 26 hours" alert
 * covers both.
 */
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import type { Logger } from 'pino';
import { stripUrlAuth } from '../api/strip-url-auth.js';
import type { Job } from '../config/job-types.js';
import type { JobSummary } from '../pipeline/report/job-summary.js';
import { reportName, type Shard } from '../pipeline/kinds/shard.js';
import { jobMasker } from '../pipeline/report/mask.js';
import { SINK_DEADLINE_MS, type SinkBounds } from '../watch/bounded-attempts.js';
import { endPing, endPingNote, type HeartbeatPing } from '../watch/heartbeat.js';
import { notifyText, shouldNotify } from '../watch/notify-text.js';
import type { EndedJob } from '../watch/run-metrics.js';
import { printableLine } from '../watch/printable-line.js';
import { metricsTextfileProblem } from '../watch/textfile-folder.js';
import { UsageError } from './usage-error.js';

/**
 * Every sink of a job's end (the wait for its `/start` ping included) is done or cut within this:
 * a sink that trickles holds neither the run nor its lock (issue 42).
 */
export const WATCH_DEADLINE_MS = SINK_DEADLINE_MS;
/**
 * After a SIGINT or SIGTERM, what is left of the sinks is cut within this of the signal (or of the
 * end, when the signal came first): the rows in flight, the reports and the sinks end well within
 * Kubernetes' 30 s grace.
 */
export const WATCH_AFTER_SIGNAL_MS = 5_000;

/** `--metrics-file` and `--pushgateway`, which replace jobs.yaml's `metrics:` for the run. */
export interface WatchFlags {
  metricsFile?: string;
  pushgateway?: string;
}

/** How a job ended, as the CLI knows it. */
export interface JobEnd {
  exitCode: number;
  summary?: JobSummary;
  /** Without a summary: the failure that stopped the job (code and message, as logged). */
  failure?: { code: string; message: string };
  /** What to do next, as the console said it. */
  advice?: string;
}

export class JobWatch {
  readonly #host = hostname();
  /** Each started job's `/start` ping, which its end ping waits for: a monitor must see them in order. */
  readonly #starts = new Map<Job, Promise<void>>();

  constructor(
    private readonly flags: WatchFlags,
    private readonly cwd: string,
    private readonly shard: Shard | undefined,
    private readonly logger: Logger,
    /** A dry run changes nothing: it pings no heartbeat (a monitor would take it for the night's run). */
    private readonly dryRun = false,
  ) {}

  /**
   * The job has its lock and starts: its heartbeat's `/start` ping leaves now, and the job does not
   * wait for it (a slow monitor must not delay the night); its end ping waits for it.
   */
  started(job: Job): void {
    const heartbeat = this.dryRun ? undefined : job.notify?.heartbeat;
    if (heartbeat === undefined) return;
    this.#starts.set(job, this.#ping(job, heartbeat, 'start'));
  }

  /** The textfile of a job: the flag's (relative to the working folder), else jobs.yaml's. */
  textfile(job: Job): string | undefined {
    return this.flags.metricsFile === undefined ? job.metrics?.textfile : resolve(this.cwd, this.flags.metricsFile);
  }

  pushgateway(job: Job): string | undefined {
    return this.flags.pushgateway ?? job.metrics?.pushgateway;
  }

  /**
   * A textfile whose folder is missing or not writable, or a file there that is not a textfile
   * of this program (it would be replaced), is said before any call (exit 2).
   */
  check(jobs: readonly Job[]): void {
    for (const path of new Set(jobs.map((job) => this.textfile(job)))) {
      if (path === undefined) continue;
      const problem = metricsTextfileProblem(path);
      if (problem !== undefined) {
        throw new UsageError(`the metrics file ${path} cannot be written: ${problem.reason}; ${problem.fix}; nothing was done`);
      }
    }
  }

  /**
   * Tells every sink of the job how it ended; resolves when each took it or failed, all within
   * `WATCH_DEADLINE_MS`, and within `WATCH_AFTER_SIGNAL_MS` of `interrupt` (the run's SIGINT or
   * SIGTERM) when it aborts.
   */
  async ended(job: Job, startedAt: Date, end: JobEnd, interrupt?: AbortSignal): Promise<void> {
    const cut = new AbortController();
    const deadline = setTimeout(() => cut.abort(), WATCH_DEADLINE_MS);
    let afterSignal: NodeJS.Timeout | undefined;
    const onInterrupt = (): void => {
      afterSignal ??= setTimeout(() => cut.abort(), WATCH_AFTER_SIGNAL_MS);
    };
    if (interrupt?.aborted === true) onInterrupt();
    else interrupt?.addEventListener('abort', onInterrupt, { once: true });
    const bounds: SinkBounds = { totalMs: interrupt?.aborted === true ? WATCH_AFTER_SIGNAL_MS : WATCH_DEADLINE_MS, signal: cut.signal };
    try {
      await this.#tell(job, startedAt, end, bounds);
    } finally {
      clearTimeout(deadline);
      clearTimeout(afterSignal);
      interrupt?.removeEventListener('abort', onInterrupt);
    }
  }

  async #tell(job: Job, startedAt: Date, end: JobEnd, bounds: SinkBounds): Promise<void> {
    const cut = bounds.signal!;
    const syncJob = reportName(job.name, this.shard);
    const ended: EndedJob = { syncJob, exitCode: end.exitCode, startedAt, endedAt: new Date(), ...(end.summary === undefined ? {} : { summary: end.summary }) };
    // A dry run changes nothing: its figures would hide the last real run's from the dashboards.
    const measured = end.summary?.dryRun !== true;
    const textfile = measured ? this.textfile(job) : undefined;
    const pushgateway = measured ? this.pushgateway(job) : undefined;
    const webhook = job.notify?.webhook !== undefined && shouldNotify(job.notify.on, end.exitCode) ? job.notify.webhook : undefined;
    const heartbeat = this.dryRun ? undefined : job.notify?.heartbeat;
    const started = this.#starts.get(job);
    this.#starts.delete(job);
    // privacy.mask: the webhook's text and body show the job's masked values masked (a failure's
    // message, the advice, the summary's texts); the metrics carry no value, only counts.
    const masker = jobMasker(job);
    await Promise.all([
      // The end ping waits for the start ping, within the same bounds.
      heartbeat === undefined ? undefined : Promise.race([started ?? Promise.resolve(), aborted(cut)]).then(() => this.#ping(job, heartbeat, endPing(end.exitCode), bounds, endPingNote(end.exitCode))),
      // The sinks' modules (prom-client, got) are loaded when a job has a sink: a run without
      // metrics and webhook starts without them (issue 24).
      textfile === undefined
        ? undefined
        : import('../watch/metrics-textfile.js').then(({ updateMetricsTextfile }) => updateMetricsTextfile(textfile, ended)).catch((error: unknown) => this.#warn(job, `the metrics file ${textfile} was not written (${reason(error)}); the job's exit code is unchanged`)),
      pushgateway === undefined
        ? undefined
        : import('../watch/pushgateway.js').then(({ pushJobMetrics }) => pushJobMetrics(pushgateway, ended, bounds)).catch((error: unknown) =>
            this.#warn(job, `the Pushgateway at ${new URL(pushgateway).origin} did not take the metrics (${reason(error)}); the job's exit code is unchanged`),
          ),
      webhook === undefined
        ? undefined
        : import('../watch/webhook.js')
            .then(({ postWebhook }) =>
              postWebhook(webhook, masker.deep({
                text: notifyText({ ...end, syncJob, host: this.#host }),
                summary: end.summary ?? null,
                exitCode: end.exitCode,
              }), undefined, bounds),
            )
            .catch((error: unknown) => this.#warn(job, `${(error as Error).message}; the job's exit code is unchanged`)),
    ]);
  }

  /** One ping; a failure is a warning naming only the monitor's origin (its message says no more). */
  #ping(job: Job, url: string, ping: HeartbeatPing, bounds?: SinkBounds, note?: string): Promise<void> {
    return import('../watch/heartbeat.js')
      .then(({ pingHeartbeat }) => pingHeartbeat(url, ping, undefined, bounds, note))
      .catch((error: unknown) => this.#warn(job, `${(error as Error).message}; the job's exit code is unchanged`));
  }

  #warn(job: Job, message: string): void {
    this.logger.warn({ job: job.name }, message);
  }
}

/** Resolves when `signal` aborts (at once when it has). */
function aborted(signal: AbortSignal): Promise<void> {
  return signal.aborted ? Promise.resolve() : new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

/**
 * A sink's failure in a few words: one printable line (prom-client puts the Pushgateway's whole
 * answer in its message), a URL in it (prom-client's, Node's) with its credentials stripped.
 */
function reason(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : String(error);
  return printableLine(stripUrlAuth(typeof code === 'string' && !message.includes(code) ? `${code}: ${message}` : message));
}
