import { readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { JobSummary } from '../../src/pipeline/report/job-summary.js';
import { parseMetrics } from '../../src/watch/metrics-text.js';
import { updateMetricsTextfile } from '../../src/watch/metrics-textfile.js';
import { metricsTextfileProblem } from '../../src/watch/textfile-folder.js';
import type { EndedJob } from '../../src/watch/run-metrics.js';
import { tempDir } from '../helpers/temp-dir.js';

const summary = (job: string, created: number): JobSummary => ({
  job,
  runId: '1',
  dryRun: false,
  startedAt: '2026-11-26T02:00:00.000Z',
  finishedAt: '2026-11-26T02:00:10.000Z',
  durationMs: 10_000,
  rows: { total: created, created, updated: 0, unchanged: 0, skipped: 0, failed: 0 },
  apiCalls: { total: created, byOperation: { createContact: created } },
  retries: 0,
  rateLimited: 0,
});
const at = (iso: string) => new Date(iso);
const ended = (syncJob: string, exitCode: number, endedAt: string, created = 1): EndedJob => ({ syncJob, summary: summary(syncJob, created), exitCode, startedAt: at('2026-11-26T02:00:00Z'), endedAt: at(endedAt) });

function value(path: string, name: string, labels: Record<string, string>): number | undefined {
  return parseMetrics(readFileSync(path, 'utf8')).find((sample) => sample.name === name && Object.entries(labels).every(([key, text]) => sample.labels[key] === text))?.value;
}

describe('the metrics textfile', () => {
  it('keeps every job\'s samples, replaces only the ended job\'s, and leaves no temporary file', async () => {
    const dir = tempDir();
    const path = join(dir, 'contact_sync.prom');
    await updateMetricsTextfile(path, ended('crm', 0, '2026-11-26T02:00:10Z', 5));
    await updateMetricsTextfile(path, ended('shop', 0, '2026-11-26T02:00:20Z', 7));
    await updateMetricsTextfile(path, ended('crm', 0, '2026-11-27T02:00:10Z', 2));
    expect(value(path, 'contact_sync_rows', { sync_job: 'crm', outcome: 'created' })).toBe(2);
    expect(value(path, 'contact_sync_rows', { sync_job: 'shop', outcome: 'created' })).toBe(7);
    expect(parseMetrics(readFileSync(path, 'utf8')).filter((sample) => sample.name === 'contact_sync_last_exit_code')).toHaveLength(2);
    expect(readdirSync(dir).filter((name) => !name.startsWith('.contact_sync.prom.lock'))).toEqual(['contact_sync.prom']);
    expect(statSync(path).mode & 0o777).toBe(0o644);
  });

  it('carries the last success through a failed run, which sets the exit code and the last run', async () => {
    const path = join(tempDir(), 'contact_sync.prom');
    await updateMetricsTextfile(path, ended('crm', 1, '2026-11-26T02:00:10Z'));
    await updateMetricsTextfile(path, ended('crm', 3, '2026-11-27T02:00:10Z'));
    expect(value(path, 'contact_sync_last_success_timestamp_seconds', { sync_job: 'crm' })).toBe(Date.parse('2026-11-26T02:00:10Z') / 1000);
    expect(value(path, 'contact_sync_last_run_timestamp_seconds', { sync_job: 'crm' })).toBe(Date.parse('2026-11-27T02:00:10Z') / 1000);
    expect(value(path, 'contact_sync_last_exit_code', { sync_job: 'crm' })).toBe(3);
  });

  it('has no last success for a job that never succeeded', async () => {
    const path = join(tempDir(), 'contact_sync.prom');
    await updateMetricsTextfile(path, ended('crm', 5, '2026-11-26T02:00:10Z'));
    expect(value(path, 'contact_sync_last_success_timestamp_seconds', { sync_job: 'crm' })).toBeUndefined();
    expect(value(path, 'contact_sync_last_exit_code', { sync_job: 'crm' })).toBe(5);
  });

  it('drops lines of metrics it does not own (the file is its own) and reads a file it did not write', async () => {
    const path = join(tempDir(), 'contact_sync.prom');
    writeFileSync(path, 'something_else 1\ncontact_sync_last_success_timestamp_seconds{sync_job="crm"} 1700000000\n');
    await updateMetricsTextfile(path, ended('crm', 3, '2026-11-26T02:00:10Z'));
    const text = readFileSync(path, 'utf8');
    expect(text).not.toContain('something_else');
    expect(value(path, 'contact_sync_last_success_timestamp_seconds', { sync_job: 'crm' })).toBe(1_700_000_000);
  });

  it('refuses a link planted at its lock\'s name, and writes nothing through it', async () => {
    const dir = tempDir();
    const victim = join(dir, 'victim');
    writeFileSync(victim, 'do not touch\n');
    symlinkSync(victim, join(dir, '.contact_sync.prom.lock'));
    await expect(updateMetricsTextfile(join(dir, 'contact_sync.prom'), ended('crm', 0, '2026-11-26T02:00:10Z'))).rejects.toThrow(`${join(dir, '.contact_sync.prom.lock')} is a symbolic link, not a regular file`);
    expect(readFileSync(victim, 'utf8')).toBe('do not touch\n');
  });

  it('says what is wrong with a folder that is missing, before the run', () => {
    const dir = tempDir();
    expect(metricsTextfileProblem(join(dir, 'contact_sync.prom'))).toBeUndefined();
    expect(metricsTextfileProblem(join(dir, 'textfile_collector', 'contact_sync.prom'))?.reason).toBe(`its folder ${join(dir, 'textfile_collector')} does not exist (node_exporter's --collector.textfile.directory)`);
  });

  it('takes an empty file or its own textfile, and refuses a file that is not one or a link, which it would replace', async () => {
    const dir = tempDir();
    const own = join(dir, 'contact_sync.prom');
    await updateMetricsTextfile(own, ended('crm', 0, '2026-11-26T02:00:10Z'));
    writeFileSync(join(dir, 'empty.prom'), '');
    writeFileSync(join(dir, 'hosts'), '127.0.0.1 localhost\n');
    writeFileSync(join(dir, 'other.prom'), '# TYPE node_load1 gauge\nnode_load1 0.5\n');
    symlinkSync(own, join(dir, 'linked.prom'));

    expect(metricsTextfileProblem(own)).toBeUndefined();
    expect(metricsTextfileProblem(join(dir, 'empty.prom'))).toBeUndefined();
    for (const name of ['hosts', 'other.prom']) {
      expect(metricsTextfileProblem(join(dir, name))?.reason).toBe('it exists and is not a metrics textfile of contact-sync (it holds no contact_sync_ metric), and it would be replaced');
    }
    expect(metricsTextfileProblem(join(dir, 'linked.prom'))).toEqual({ reason: 'it is a symbolic link, not a file', fix: 'name the textfile itself, or choose another with --metrics-file (or metrics.textfile)' });
  });
});
