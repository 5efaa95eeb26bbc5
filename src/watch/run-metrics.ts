/**
 * A job's figures for Prometheus, as data: the metrics of the contract (docs/operations.md,
 * "Watching unattended runs") computed from the job's summary.json and exit code. Pure: the
 * textfile writer and the Pushgateway client render the same samples.
 *
 * Every sample is labelled `sync_job` (the job, or `<job>.shard-I-of-N` for a shard, as its
 * reports are named); no label is named `job` or `instance`, which Prometheus keeps for itself.
 * Nothing of a contact and never the token: only counts, times and the exit code.
 */
import type { JobSummary } from '../pipeline/report/job-summary.js';
import type { RowOutcome } from '../pipeline/report/row-outcome.js';

export const METRICS = {
  contact_sync_rows: { help: 'Rows of the last run by outcome (not_reached: rows of the input the run did not take).', labels: ['sync_job', 'outcome'] },
  contact_sync_api_calls: { help: 'API calls of the last run by operation.', labels: ['sync_job', 'operation'] },
  contact_sync_rate_limited: { help: 'Answers 429 (rate limited) the last run received.', labels: ['sync_job'] },
  contact_sync_run_duration_seconds: { help: 'How long the last run took, in seconds.', labels: ['sync_job'] },
  contact_sync_last_run_timestamp_seconds: { help: 'When the last run ended, in seconds since the epoch.', labels: ['sync_job'] },
  contact_sync_last_success_timestamp_seconds: { help: 'When the last run that ended 0, 1 or 4 ended, in seconds since the epoch.', labels: ['sync_job'] },
  contact_sync_last_exit_code: { help: 'The exit code of the last run (docs/operations.md).', labels: ['sync_job'] },
  contact_sync_verified: { help: 'Contacts the state trusts that the last run re-read (verify.share).', labels: ['sync_job'] },
  contact_sync_drift: { help: 'Of the contacts the last run re-read, those found different from what the job last wrote, and repaired (verify.share).', labels: ['sync_job'] },
} as const satisfies Record<string, { help: string; labels: readonly string[] }>;

export type MetricName = keyof typeof METRICS;

export interface MetricSample {
  name: MetricName;
  labels: Readonly<Record<string, string>>;
  value: number;
}

/** How a job ended, as the metrics read it. */
export interface EndedJob {
  /** The job's report name: `crm`, or `crm.shard-1-of-2`. */
  syncJob: string;
  /** summary.json; absent when the job failed before it could write one (its state store unreadable...). */
  summary?: JobSummary;
  exitCode: number;
  startedAt: Date;
  endedAt: Date;
}

const OUTCOMES: readonly RowOutcome[] = ['created', 'updated', 'unchanged', 'skipped', 'failed'];

/**
 * Exit codes after which the job did its work (some rows may have failed), or the planned part of
 * it (4: a night of a multi-night import stopped at --max-duration, as the heartbeat's success
 * ping says too): a success for alerting.
 */
export function isSuccess(exitCode: number): boolean {
  return exitCode === 0 || exitCode === 1 || exitCode === 4;
}

/**
 * The samples of one ended job. `contact_sync_last_success_timestamp_seconds` is this run's end
 * when it succeeded; otherwise the previous success's, when the caller knows it
 * (`previousSuccess`), and absent when not (a Pushgateway keeps the one it has).
 */
export function runMetrics(ended: EndedJob, previousSuccess?: number): MetricSample[] {
  const one = (name: MetricName, value: number, extra: Record<string, string> = {}): MetricSample => ({ name, labels: { sync_job: ended.syncJob, ...extra }, value });
  const { summary } = ended;
  const endedAt = seconds(ended.endedAt);
  const samples: MetricSample[] = [
    ...OUTCOMES.map((outcome) => one('contact_sync_rows', summary?.rows[outcome] ?? 0, { outcome })),
    one('contact_sync_rows', summary?.rows.notReached ?? 0, { outcome: 'not_reached' }),
    ...Object.entries(summary?.apiCalls.byOperation ?? {}).map(([operation, calls]) => one('contact_sync_api_calls', calls, { operation })),
    one('contact_sync_rate_limited', summary?.rateLimited ?? 0),
    one('contact_sync_run_duration_seconds', summary === undefined ? (ended.endedAt.getTime() - ended.startedAt.getTime()) / 1000 : summary.durationMs / 1000),
    one('contact_sync_last_run_timestamp_seconds', endedAt),
    one('contact_sync_last_exit_code', ended.exitCode),
  ];
  // Only a job with `verify` has them: no sample is better than a 0 that says "nothing drifted".
  if (typeof summary?.verified === 'number') samples.push(one('contact_sync_verified', summary.verified));
  if (typeof summary?.drift === 'number') samples.push(one('contact_sync_drift', summary.drift));
  const success = isSuccess(ended.exitCode) ? endedAt : previousSuccess;
  if (success !== undefined) samples.push(one('contact_sync_last_success_timestamp_seconds', success));
  return samples;
}

function seconds(date: Date): number {
  return date.getTime() / 1000;
}
