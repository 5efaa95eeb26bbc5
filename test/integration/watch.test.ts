/**
 * Watching unattended runs (issue 23, docs/operations.md): the metrics textfile read back equals
 * summary.json, several jobs share one file, a failed night keeps the last success, and the webhook
 * is told once, on the nights `notify.on` asks for, without the token, never changing the exit code.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { parseMetrics } from '../../src/watch/metrics-text.js';
import type { MetricSample } from '../../src/watch/run-metrics.js';
import { describeWithPushgateway, startPushgateway, type RunningPushgateway } from '../helpers/pushgateway-support.js';
import { CUSTOMERS_JOB, TOKEN, customersCsv, fastEmulator, jobsYaml, workspace, type Workspace } from '../helpers/cli-harness.js';

let emulator: RunningEmulator;
const servers: Server[] = [];

beforeEach(async () => {
  emulator = await fastEmulator();
});

afterEach(async () => {
  await emulator.close();
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** A webhook on 127.0.0.1 that keeps every body it is sent (raw, as text). */
async function webhook(status = 200): Promise<{ url: string; bodies: string[] }> {
  const bodies: string[] = [];
  const server = createServer((request, response) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    request.on('end', () => {
      bodies.push(text);
      response.statusCode = status;
      response.end();
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/abc`, bodies };
}

/** The file's samples of one job, as `name{label=value}` -> value (sync_job left out). */
function samplesOf(path: string, syncJob: string): Record<string, number> {
  const samples: MetricSample[] = parseMetrics(readFileSync(path, 'utf8')).filter((sample) => sample.labels.sync_job === syncJob);
  return Object.fromEntries(
    samples.map((sample) => {
      const labels = Object.entries(sample.labels).filter(([key]) => key !== 'sync_job');
      return [`${sample.name}${labels.length === 0 ? '' : `{${labels.map(([key, text]) => `${key}=${text}`).join(',')}}`}`, sample.value];
    }),
  );
}

/** customers 1..n, customer 3 with a bad email (its row fails: exit 1) when `bad`. */
function setUp(ws: Workspace, extra: { job?: string; top?: string; connectionExtra?: string; bad?: boolean; rows?: number } = {}): void {
  ws.write('customers.csv', customersCsv(extra.rows ?? 6, (i, cells) => (extra.bad === true && i === 3 ? [...cells.slice(0, 3), 'not-an-email', ...cells.slice(4)] : cells)));
  const yaml = jobsYaml({ url: emulator.url, job: `${CUSTOMERS_JOB}${extra.job === undefined ? '' : `\n${extra.job}`}`, ...(extra.connectionExtra === undefined ? {} : { connectionExtra: extra.connectionExtra }) });
  ws.write('jobs.yaml', `${yaml}${extra.top ?? ''}`);
}

describe('metrics for Prometheus: the textfile', () => {
  it('holds what summary.json says: rows by outcome, calls by operation, 429s, exit code, last run and last success', async () => {
    const ws = workspace();
    setUp(ws, { bad: true, top: 'metrics: { textfile: metrics/contact_sync.prom }\n' });
    mkdirSync(join(ws.dir, 'metrics'));
    const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports']);
    expect(run.exitCode).toBe(1);
    const summary = ws.summary('import');
    const samples = samplesOf(join(ws.dir, 'metrics', 'contact_sync.prom'), 'import');
    for (const outcome of ['created', 'updated', 'unchanged', 'skipped', 'failed']) expect(samples[`contact_sync_rows{outcome=${outcome}}`]).toBe(summary.rows[outcome]);
    expect(samples['contact_sync_rows{outcome=failed}']).toBe(1);
    expect(samples['contact_sync_rows{outcome=not_reached}']).toBe(0);
    for (const [operation, calls] of Object.entries(summary.apiCalls.byOperation)) expect(samples[`contact_sync_api_calls{operation=${operation}}`]).toBe(calls);
    expect(samples.contact_sync_rate_limited).toBe(summary.rateLimited);
    expect(samples.contact_sync_last_exit_code).toBe(1);
    expect(samples.contact_sync_run_duration_seconds).toBe((summary.durationMs as number) / 1000);
    expect(samples.contact_sync_last_success_timestamp_seconds).toBe(samples.contact_sync_last_run_timestamp_seconds);
    expect(readFileSync(join(ws.dir, 'metrics', 'contact_sync.prom'), 'utf8')).not.toContain(TOKEN);
  });

  it('keeps the last success through a night the token was refused (exit 3), and another job\'s samples', async () => {
    const ws = workspace();
    setUp(ws);
    ws.write('other.yaml', jobsYaml({ url: emulator.url, name: 'shop', job: CUSTOMERS_JOB }));
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports', '--metrics-file', 'all.prom'])).exitCode).toBe(0);
    expect((await ws.run(['run', 'other.yaml', '--report-dir', 'reports', '--metrics-file', 'all.prom'])).exitCode).toBe(0);
    const before = samplesOf(join(ws.dir, 'all.prom'), 'import');
    const refused = await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports', '--metrics-file', 'all.prom'], { env: { CHANNEL_TOKEN: 'wrong-token' } });
    expect(refused.exitCode).toBe(3);
    const after = samplesOf(join(ws.dir, 'all.prom'), 'import');
    expect(after.contact_sync_last_exit_code).toBe(3);
    expect(after.contact_sync_last_success_timestamp_seconds).toBe(before.contact_sync_last_success_timestamp_seconds);
    expect(after.contact_sync_last_run_timestamp_seconds).toBeGreaterThan(before.contact_sync_last_run_timestamp_seconds!);
    expect(samplesOf(join(ws.dir, 'all.prom'), 'shop').contact_sync_last_exit_code).toBe(0);
  });

  it('refuses a textfile whose folder is missing before any call (exit 2), and a dry run writes none', async () => {
    const ws = workspace();
    setUp(ws);
    const missing = await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports', '--metrics-file', 'textfile_collector/contact_sync.prom']);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain(`the metrics file ${join(ws.dir, 'textfile_collector', 'contact_sync.prom')} cannot be written: its folder ${join(ws.dir, 'textfile_collector')} does not exist`);
    expect(emulator.contacts(TOKEN)).toEqual([]);
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports', '--dry-run', '--metrics-file', 'dry.prom'])).exitCode).toBe(0);
    expect(existsSync(join(ws.dir, 'dry.prom'))).toBe(false);
  });

  it('refuses, before any call (exit 2), a --metrics-file that names an existing file not its own, and leaves that file as it was', async () => {
    const ws = workspace();
    setUp(ws);
    ws.write('notes.txt', 'the on-call rota\n');
    const refused = await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports', '--metrics-file', 'notes.txt']);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain(
      `the metrics file ${join(ws.dir, 'notes.txt')} cannot be written: it exists and is not a metrics textfile of contact-sync (it holds no contact_sync_ metric), and it would be replaced; check the path, or choose another with --metrics-file (or metrics.textfile); remove the file if it is not needed; nothing was done`,
    );
    expect(readFileSync(join(ws.dir, 'notes.txt'), 'utf8')).toBe('the on-call rota\n');
    expect(emulator.contacts(TOKEN)).toEqual([]);
  });
});

describe('notify: the webhook', () => {
  it('is told once of a night with failed rows, with the sentence, summary.json and the exit code, and never the token', async () => {
    const hook = await webhook();
    const ws = workspace();
    setUp(ws, { bad: true, job: `notify: { webhook: "${hook.url}" }` });
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports'])).exitCode).toBe(1);
    expect(hook.bodies).toHaveLength(1);
    const body = JSON.parse(hook.bodies[0]!) as { text: string; summary: unknown; exitCode: number };
    expect(body.exitCode).toBe(1);
    expect(body.summary).toEqual(ws.summary('import'));
    expect(body.text).toMatch(/^contact-sync: job "import" on \S+ ended with failed rows, exit 1: 6 rows, 5 created, 0 updated, 0 unchanged, 1 failed\. /);
    expect(body.text).toContain('rejected.csv');
    for (const form of [TOKEN, Buffer.from(TOKEN).toString('base64'), encodeURIComponent(TOKEN)]) expect(hook.bodies[0]).not.toContain(form);
  });

  it('with on: failure is not told of a clean night; the connection\'s notify is the default, the job\'s replaces it', async () => {
    const quiet = await webhook();
    const loud = await webhook();
    const ws = workspace();
    setUp(ws, { connectionExtra: `    notify: { webhook: "${quiet.url}", on: failure }` });
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports'])).exitCode).toBe(0);
    expect(quiet.bodies).toEqual([]);
    setUp(ws, { connectionExtra: `    notify: { webhook: "${quiet.url}", on: failure }`, job: `notify: { webhook: "${loud.url}", on: always }` });
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports'])).exitCode).toBe(0);
    expect(quiet.bodies).toEqual([]);
    expect(hook(loud).text).toMatch(/ended well, exit 0: 6 rows, 0 created, 0 updated, 6 unchanged\. Done: /);
  });

  it('that fails is a warning naming its origin only, and the exit code stays the job\'s', async () => {
    const hook = await webhook(404);
    const ws = workspace();
    setUp(ws, { job: `notify: { webhook: "${hook.url}", on: always }` });
    const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports']);
    expect(run.exitCode).toBe(0);
    expect(hook.bodies).toHaveLength(1);
    expect(run.stderr).toContain(`the webhook at ${new URL(hook.url).origin} did not take the notice (HTTP 404, after 1 attempt); the job's exit code is unchanged`);
    expect(run.stderr).not.toContain('/hooks/abc');
  });

  it('is told of a dry run, which says so', async () => {
    const hook = await webhook();
    const ws = workspace();
    setUp(ws, { job: `notify: { webhook: "${hook.url}", on: always }` });
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports', '--dry-run'])).exitCode).toBe(0);
    expect(JSON.parse(hook.bodies[0]!).text).toContain('(dry run: nothing was written)');
  });
});

function hook(received: { bodies: string[] }): { text: string } {
  expect(received.bodies).toHaveLength(1);
  return JSON.parse(received.bodies[0]!) as { text: string };
}

describeWithPushgateway('metrics for Prometheus: a real Pushgateway', () => {
  let gateway: RunningPushgateway;
  beforeEach(async () => {
    gateway = await startPushgateway();
  });
  afterEach(async () => {
    await gateway.close();
  });

  /** The gateway's samples of the group job="contact_sync", sync_job=`syncJob`. */
  async function pushed(syncJob: string): Promise<Record<string, number>> {
    const samples = parseMetrics(await gateway.scrape()).filter((sample) => sample.labels.job === 'contact_sync' && sample.labels.sync_job === syncJob);
    return Object.fromEntries(samples.map((sample) => [`${sample.name}${sample.labels.outcome === undefined ? '' : `{outcome=${sample.labels.outcome}}`}`, sample.value]));
  }

  it('takes the job\'s figures under job="contact_sync", and keeps the last success through a refused night', async () => {
    const ws = workspace();
    setUp(ws, { bad: true, top: `metrics: { pushgateway: "${gateway.url}" }\n` });
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports'])).exitCode).toBe(1);
    const first = await pushed('import');
    expect(first['contact_sync_rows{outcome=created}']).toBe(ws.summary('import').rows.created);
    expect(first['contact_sync_rows{outcome=failed}']).toBe(1);
    expect(first.contact_sync_last_exit_code).toBe(1);
    expect(first.contact_sync_last_success_timestamp_seconds).toBe(first.contact_sync_last_run_timestamp_seconds);

    const refused = await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports', '--pushgateway', gateway.url], { env: { CHANNEL_TOKEN: 'wrong-token' } });
    expect(refused.exitCode).toBe(3);
    const second = await pushed('import');
    expect(second.contact_sync_last_exit_code).toBe(3);
    expect(second.contact_sync_last_success_timestamp_seconds).toBe(first.contact_sync_last_success_timestamp_seconds);
    expect(await gateway.scrape()).not.toContain(TOKEN);
  });

  it('a Pushgateway that is not there is a warning, and the exit code stays the job\'s', async () => {
    const ws = workspace();
    setUp(ws);
    const url = gateway.url;
    await gateway.close();
    const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports', '--pushgateway', url]);
    expect(run.exitCode).toBe(0);
    expect(run.stderr).toContain(`the Pushgateway at ${url} did not take the metrics`);
  });
});
