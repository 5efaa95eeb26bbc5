/**
 * summary.json's figures of a run: the requests made by operation (and by endpoint where the
 * surface names its calls), retries, rate limiting, the rows' tally, how the run was cut short.
 */
import type { ContactsApi } from '../../api/contacts-api.js';
import type { Job } from '../../config/job-types.js';
import type { JobAbortError } from '../job-abort.js';
import type { RowTally } from '../kinds/file-run-tally.js';
import type { JobSummary } from './job-summary.js';

/** The requests made, by operation, as summary.json's `apiCalls.byOperation` counts them. */
export function callsByOperation(api: ContactsApi): Record<string, number> {
  return Object.fromEntries(Object.entries(api.stats.byOperation).map(([operation, count]) => [operation, count.requests]));
}

export function summarize(
  run: { readonly job: Job; readonly dryRun: boolean; readonly shard?: { index: number; count: number } | undefined; readonly signal?: AbortSignal | undefined; readonly runId?: number | undefined },
  api: ContactsApi,
  tally: RowTally,
  startedAt: Date,
  finishedAt: Date,
  abort: JobAbortError | undefined,
  prefetch: JobSummary['prefetch'],
): JobSummary {
  let retries = 0;
  let rateLimited = 0;
  for (const count of Object.values(api.stats.byOperation)) {
    retries += count.retries;
    rateLimited += count.rateLimited;
  }
  const byOperation = callsByOperation(api);
  // A surface that names its calls itself (API v2's endpoints) says them too, beside the port's operations.
  const byEndpoint = api.stats.byEndpoint?.() ?? {};
  return {
    job: run.job.name,
    runId: run.runId === undefined ? null : String(run.runId),
    dryRun: run.dryRun,
    startedAt: startedAt.toISOString(),
    finishedAt: finishedAt.toISOString(),
    durationMs: finishedAt.getTime() - startedAt.getTime(),
    rows: { ...tally },
    apiCalls: { total: api.stats.total(), byOperation, ...(Object.keys(byEndpoint).length === 0 ? {} : { byEndpoint }) },
    retries,
    rateLimited,
    ...(run.shard !== undefined ? { shard: `${run.shard.index}/${run.shard.count}` } : {}),
    ...(prefetch !== undefined ? { prefetch } : {}),
    ...(abort !== undefined ? { aborted: { code: abort.code, message: abort.message } } : {}),
    ...(run.signal?.aborted === true ? { interrupted: String(run.signal.reason ?? 'signal') } : {}),
  };
}
