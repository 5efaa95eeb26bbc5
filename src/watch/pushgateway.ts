/**
 * `--pushgateway` / `metrics.pushgateway`: a job's figures pushed to a Prometheus Pushgateway
 * (Prometheus' way for batch jobs), with prom-client's client. The grouping key is
 * `job="contact_sync"`, `sync_job="<job>"`: one group per job, so jobs do not replace each other.
 *
 * Pushed with POST, which replaces the group's metrics of the names pushed and keeps the others:
 * a run that did not succeed pushes no `contact_sync_last_success_timestamp_seconds`, and the
 * group keeps the last success's (docs/operations.md).
 */
import { Pushgateway } from 'prom-client';
import { registryOf } from './metrics-text.js';
import { runMetrics, type EndedJob } from './run-metrics.js';

/** The `job` label of every group this program pushes. */
export const PUSH_JOB = 'contact_sync';

/** One attempt's limit: the Pushgateway answers in milliseconds or is not there. */
const PUSH_TIMEOUT_MS = 5_000;

export async function pushJobMetrics(url: string, ended: EndedJob): Promise<void> {
  const gateway = new Pushgateway(url, { timeout: PUSH_TIMEOUT_MS }, registryOf(runMetrics(ended)));
  await gateway.pushAdd({ jobName: PUSH_JOB, groupings: { sync_job: ended.syncJob } });
}
