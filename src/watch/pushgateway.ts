/**
 * `--pushgateway` / `metrics.pushgateway`: a job's figures pushed to a Prometheus Pushgateway
 * (Prometheus' way for batch jobs), rendered by prom-client's registry. The grouping key is
 * `job="contact_sync"`, `sync_job="<job>"`: one group per job, so jobs do not replace each other.
 *
 * Pushed with POST, which replaces the group's metrics of the names pushed and keeps the others:
 * a run that did not succeed pushes no `contact_sync_last_success_timestamp_seconds`, and the
 * group keeps the last success's (docs/operations.md).
 *
 * The push is one request bounded like every notice (`sink-request.ts`, issue 42): it ends within
 * `SINK_DEADLINE_MS`, answer included, or when the run's signal cuts it, and reads at most a few KB
 * of the gateway's answer (prom-client's own client waits on a trickling gateway for ever and
 * reads its whole answer into memory).
 */
import { registryOf } from './metrics-text.js';
import { ATTEMPT_TIMEOUT_MS, type SinkBounds } from './bounded-attempts.js';
import { runMetrics, type EndedJob } from './run-metrics.js';
import { sendToSink } from './sink-request.js';

/** The `job` label of every group this program pushes. */
export const PUSH_JOB = 'contact_sync';

/** The URL of the group `job="contact_sync"`, `sync_job=<job>` on the gateway at `url` (its path kept, its query not). */
export function pushUrl(url: string, syncJob: string): string {
  const target = new URL(url);
  target.pathname = `${target.pathname.replace(/\/+$/, '')}/metrics/job/${encodeURIComponent(PUSH_JOB)}/sync_job/${encodeURIComponent(syncJob)}`;
  target.search = '';
  target.hash = '';
  return target.href;
}

/** Pushes the job's figures; throws `push failed with status N, <the answer's first KB>` when the gateway refuses them. */
export async function pushJobMetrics(url: string, ended: EndedJob, bounds: SinkBounds = {}): Promise<void> {
  const registry = registryOf(runMetrics(ended));
  // One attempt: the Pushgateway answers in milliseconds or is not there.
  const timeoutMs = Math.min(bounds.attemptMs ?? ATTEMPT_TIMEOUT_MS, bounds.totalMs ?? ATTEMPT_TIMEOUT_MS);
  const answer = await sendToSink({ method: 'POST', url: pushUrl(url, ended.syncJob), body: await registry.metrics(), headers: { 'content-type': registry.contentType } }, timeoutMs, bounds.signal);
  if (answer.status >= 400) throw new Error(`push failed with status ${answer.status}, ${answer.head}`);
}
