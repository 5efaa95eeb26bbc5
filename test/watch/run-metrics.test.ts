import type { JobSummary } from '../../src/pipeline/report/job-summary.js';
import { parseMetrics, renderMetrics } from '../../src/watch/metrics-text.js';
import { isSuccess, runMetrics, type EndedJob, type MetricSample } from '../../src/watch/run-metrics.js';

const summary: JobSummary = {
  job: 'crm',
  runId: '3',
  dryRun: false,
  startedAt: '2026-11-26T02:00:00.000Z',
  finishedAt: '2026-11-26T02:01:30.000Z',
  durationMs: 90_000,
  rows: { total: 12, created: 2, updated: 3, unchanged: 4, skipped: 1, failed: 2, notReached: 7 },
  apiCalls: { total: 9, byOperation: { searchContacts: 4, createContact: 2, updateContact: 3 } },
  retries: 1,
  rateLimited: 6,
};
const endedAt = new Date('2026-11-26T02:01:31.000Z');
const ended = (exitCode: number, extra: Partial<EndedJob> = {}): EndedJob => ({ syncJob: 'crm', summary, exitCode, startedAt: new Date('2026-11-26T02:00:00.000Z'), endedAt, ...extra });

/** name{label=value,...} -> value, for comparing sample sets without caring for their order. */
function byKey(samples: readonly MetricSample[]): Record<string, number> {
  return Object.fromEntries(samples.map((sample) => [`${sample.name}{${Object.entries(sample.labels).sort().map(([k, v]) => `${k}=${v}`).join(',')}}`, sample.value]));
}

describe('runMetrics', () => {
  it.each([
    [0, true],
    [1, true],
    [2, false],
    [3, false],
    // The planned end of a night of a multi-night import (--max-duration), as the heartbeat's success ping.
    [4, true],
    [5, false],
    [130, false],
  ])('exit %i is a success for alerting: %s', (code, expected) => {
    expect(isSuccess(code)).toBe(expected);
  });

  it('gives the rows by outcome (not_reached too), calls by operation, 429s, duration, times and exit code', () => {
    expect(byKey(runMetrics(ended(1)))).toEqual({
      'contact_sync_rows{outcome=created,sync_job=crm}': 2,
      'contact_sync_rows{outcome=updated,sync_job=crm}': 3,
      'contact_sync_rows{outcome=unchanged,sync_job=crm}': 4,
      'contact_sync_rows{outcome=skipped,sync_job=crm}': 1,
      'contact_sync_rows{outcome=failed,sync_job=crm}': 2,
      'contact_sync_rows{outcome=not_reached,sync_job=crm}': 7,
      'contact_sync_api_calls{operation=searchContacts,sync_job=crm}': 4,
      'contact_sync_api_calls{operation=createContact,sync_job=crm}': 2,
      'contact_sync_api_calls{operation=updateContact,sync_job=crm}': 3,
      'contact_sync_rate_limited{sync_job=crm}': 6,
      'contact_sync_run_duration_seconds{sync_job=crm}': 90,
      'contact_sync_last_run_timestamp_seconds{sync_job=crm}': endedAt.getTime() / 1000,
      'contact_sync_last_success_timestamp_seconds{sync_job=crm}': endedAt.getTime() / 1000,
      'contact_sync_last_exit_code{sync_job=crm}': 1,
    });
  });

  it('gives verification\'s re-read and drifted contacts for a job with verify, and none for a job without', () => {
    const verified = byKey(runMetrics(ended(0, { summary: { ...summary, verified: 20, drift: 2 } })));
    expect(verified['contact_sync_verified{sync_job=crm}']).toBe(20);
    expect(verified['contact_sync_drift{sync_job=crm}']).toBe(2);
    expect(Object.keys(byKey(runMetrics(ended(0)))).filter((name) => /verified|drift/.test(name))).toEqual([]);
  });

  it('keeps the previous success on a failed run, and gives none when it knows none', () => {
    const withPrevious = byKey(runMetrics(ended(3), 1_700_000_000));
    expect(withPrevious['contact_sync_last_success_timestamp_seconds{sync_job=crm}']).toBe(1_700_000_000);
    expect(withPrevious['contact_sync_last_exit_code{sync_job=crm}']).toBe(3);
    expect(Object.keys(byKey(runMetrics(ended(3)))).filter((key) => key.startsWith('contact_sync_last_success'))).toEqual([]);
  });

  it('without a summary: zero rows, the wall time as duration, the exit code', () => {
    const samples = byKey(runMetrics(ended(5, { summary: undefined })));
    expect(samples['contact_sync_rows{outcome=created,sync_job=crm}']).toBe(0);
    expect(samples['contact_sync_run_duration_seconds{sync_job=crm}']).toBe(91);
    expect(samples['contact_sync_last_exit_code{sync_job=crm}']).toBe(5);
  });

  it('never names a label job or instance', () => {
    for (const sample of runMetrics(ended(0))) {
      expect(Object.keys(sample.labels)).not.toContain('job');
      expect(Object.keys(sample.labels)).not.toContain('instance');
    }
  });
});

describe('the text format, and back', () => {
  it('renders with HELP and TYPE lines and parses back to the same samples', async () => {
    const samples = runMetrics(ended(0));
    const text = await renderMetrics(samples);
    expect(text).toContain('# TYPE contact_sync_rows gauge');
    expect(text).toMatch(/^contact_sync_rows\{sync_job="crm",outcome="not_reached"\} 7$/m);
    expect(byKey(parseMetrics(text))).toEqual(byKey(samples));
  });

  it('escapes and unescapes a label value with quotes, a backslash and a newline', async () => {
    const odd: MetricSample[] = [{ name: 'contact_sync_last_exit_code', labels: { sync_job: 'a "b" \\c\nd' }, value: 0 }];
    expect(parseMetrics(await renderMetrics(odd))).toEqual(odd);
  });

  it('leaves out other metrics, comments and lines that do not parse', () => {
    const text = ['# HELP x y', 'node_cpu_seconds_total{cpu="0"} 5', 'contact_sync_last_exit_code{sync_job="crm"} 1', 'contact_sync_rows{sync_job="crm" 3', 'contact_sync_rate_limited{sync_job="crm"} NaNx', ''].join('\n');
    expect(parseMetrics(text)).toEqual([{ name: 'contact_sync_last_exit_code', labels: { sync_job: 'crm' }, value: 1 }]);
  });
});
