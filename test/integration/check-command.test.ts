/**
 * `contact-sync check` and `run --check`: one call per connection tells, before a long run, that
 * the base URL answers, the token is accepted and the channel is not throttled (exit 0 / 3).
 */
import type { RunningEmulator } from '../../src/emulator/index.js';
import { customersCsv, CUSTOMERS_JOB, fastEmulator, jobsYaml, TOKEN, workspace } from '../helpers/cli-harness.js';

describe('contact-sync check', () => {
  let emulator: RunningEmulator;
  afterEach(() => emulator.close());

  it('a connection that answers and accepts the token: exit 0, one call, the latency', async () => {
    emulator = await fastEmulator();
    const ws = workspace();
    ws.write('jobs.yaml', jobsYaml({ url: emulator.url, job: CUSTOMERS_JOB }));

    const run = await ws.run(['check', 'jobs.yaml']);

    expect(run.exitCode).toBe(0);
    expect(run.stdout).toMatch(/^connection main \(http:\/\/127\.0\.0\.1:\d+\/api\): ok: answers, token accepted, not throttled, \d+ ms \(API v1\)\n$/);
    expect(emulator.counters(TOKEN).total.received).toBe(1);
  });

  it('a revoked token: exit 3 naming the connection, the token never shown', async () => {
    emulator = await fastEmulator();
    const ws = workspace();
    ws.write('jobs.yaml', jobsYaml({ url: emulator.url, token: 'revoked-token-4821', job: CUSTOMERS_JOB }));

    const run = await ws.run(['check', 'jobs.yaml']);

    expect(run.exitCode).toBe(3);
    expect(run.stdout).toContain('connection main (');
    expect(run.stdout).toContain('FAILED: the platform refused the token (401); check the channel token connection "main" reads');
    expect(run.stdout + run.stderr).not.toContain('revoked-token-4821');
  });

  it('a channel throttled now: exit 3, with the wait the platform asked for', async () => {
    emulator = await fastEmulator({ rateLimits: { contacts: { limit: 1, periodMs: 60_000 }, messages: { limit: 1000, periodMs: 1000 } } });
    const ws = workspace();
    ws.write('jobs.yaml', jobsYaml({ url: emulator.url, job: CUSTOMERS_JOB }));

    const first = await ws.run(['check', 'jobs.yaml']);
    const second = await ws.run(['check', 'jobs.yaml']);

    expect(first.exitCode).toBe(0);
    expect(second.exitCode).toBe(3);
    expect(second.stdout).toMatch(/FAILED: the channel is throttled now \(429( for \d+ s)?\); another run or integration may be using the token/);
    // No retry: the 429 is the answer.
    expect(emulator.counters(TOKEN).total.received).toBe(2);
  });

  it("check waits only as long as the connection's timeouts.request, as run does", async () => {
    // The platform answers after 20 s; the connection gives up after 1 s (the default is 30 s,
    // past this test's own limit).
    emulator = await fastEmulator({ faults: { latency: { minMs: 20_000, maxMs: 20_000 } } });
    const ws = workspace();
    ws.write('jobs.yaml', jobsYaml({ url: emulator.url, job: CUSTOMERS_JOB, connectionExtra: '    timeouts: { request: 1s }' }));

    const run = await ws.run(['check', 'jobs.yaml']);

    expect(run.exitCode).toBe(3);
    expect(run.stdout).toMatch(/connection main \(http:\/\/127\.0\.0\.1:\d+\/api\): FAILED: /);
    expect(emulator.counters(TOKEN).total.received).toBe(1);
  }, 15_000);

  it('a base URL where nothing answers: exit 3, connection refused', async () => {
    emulator = await fastEmulator();
    const ws = workspace();
    ws.write('jobs.yaml', jobsYaml({ url: 'http://127.0.0.1:1/api', job: CUSTOMERS_JOB }));

    const run = await ws.run(['check', 'jobs.yaml']);

    expect(run.exitCode).toBe(3);
    expect(run.stdout).toMatch(/connection main \(http:\/\/127\.0\.0\.1:1\/api\): FAILED: .*connection refused/);
  });

  it('run --check with a revoked token stops before the first row: exit 3, no row taken, no report', async () => {
    emulator = await fastEmulator();
    const ws = workspace();
    ws.write('customers.csv', customersCsv(5));
    ws.write('jobs.yaml', jobsYaml({ url: emulator.url, token: 'revoked-token-4821', job: CUSTOMERS_JOB }));

    const run = await ws.run(['run', 'jobs.yaml', '--check', '--report-dir', 'reports']);

    expect(run.exitCode).toBe(3);
    expect(run.stderr).toMatch(/FAILED: the platform refused the token \(401\).*no row was taken/);
    expect(emulator.contacts(TOKEN)).toEqual([]);
    expect(() => ws.summary('import')).toThrow(/ENOENT/);
  });

  it('run --check on a good connection goes on with the run', async () => {
    emulator = await fastEmulator();
    const ws = workspace();
    ws.write('customers.csv', customersCsv(5));
    ws.write('jobs.yaml', jobsYaml({ url: emulator.url, job: CUSTOMERS_JOB }));

    const run = await ws.run(['run', 'jobs.yaml', '--check', '--report-dir', 'reports']);

    expect(run.exitCode).toBe(0);
    expect(run.stderr).toContain('ok: answers, token accepted, not throttled');
    expect(ws.summary('import').rows.created).toBe(5);
  });
});
