/**
 * `rateLimits.redis` when Redis fails: unreachable at the start, the run stops before any call
 * (exit 2); gone mid-run, the job stops taking rows and writes complete reports (exit 3).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { customersCsv, fastEmulator, TOKEN, workspace } from '../helpers/cli-harness.js';
import { waitUntil } from '../helpers/cli-process.js';
import { describeWithRedis, redisJobsYaml, SEARCH_AND_CREATE_JOB, startPrivateRedis, type PrivateRedis } from '../helpers/redis-support.js';

describe('rateLimits.redis unreachable at the start', () => {
  let emulator: RunningEmulator;
  beforeEach(async () => {
    emulator = await fastEmulator();
  });
  afterEach(() => emulator.close());

  it('exits 2 before any call, naming the setting, the URL without its password and the fix', async () => {
    const ws = workspace();
    ws.write('customers.csv', customersCsv(5));
    ws.write('jobs.yaml', redisJobsYaml({ url: emulator.url, token: TOKEN, contacts: '600/min', redis: 'redis://worker:s3cret@127.0.0.1:1', job: SEARCH_AND_CREATE_JOB }));

    const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports']);

    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(
      /connections\.main\.rateLimits\.redis: Redis at redis:\/\/127\.0\.0\.1:1 did not answer \(connect ECONNREFUSED 127\.0\.0\.1:1\).*no request was sent; start Redis or fix the URL/,
    );
    expect(run.stderr + run.stdout).not.toContain('s3cret');
    expect(emulator.counters(TOKEN).total.received).toBe(0);
    expect(existsSync(join(ws.dir, 'reports', 'import.summary.json'))).toBe(false);
  });
});

describeWithRedis('rateLimits.redis lost mid-run', () => {
  let emulator: RunningEmulator;
  let redis: PrivateRedis | undefined;
  beforeEach(async () => {
    emulator = await fastEmulator();
  });
  afterEach(async () => {
    await redis?.kill();
    redis = undefined;
    await emulator.close();
  });

  it('stops taking rows, finishes the rows in flight and exits 3 with complete reports (a redis-server of its own)', async () => {
    // A Redis of this test alone, to kill: the shared one serves other tests.
    redis = await startPrivateRedis();
    const ws = workspace();
    ws.write('customers.csv', customersCsv(60));
    // 20 calls a second, 2 a row: 60 rows would take 6 s; Redis goes away after 10 calls.
    ws.write('jobs.yaml', redisJobsYaml({ url: emulator.url, token: TOKEN, contacts: '20/s', redis: redis.url, job: SEARCH_AND_CREATE_JOB }));

    const running = ws.run(['run', 'jobs.yaml', '--report-dir', 'reports']);
    await waitUntil(() => emulator.counters(TOKEN).total.received >= 10, 'the run made 10 calls', 10_000);
    await redis.kill();
    const run = await running;

    expect(run.exitCode).toBe(3);
    const summary = ws.summary('import');
    const aborted = summary.aborted as { code: string; message: string };
    expect(aborted.code).toBe('RATE_LIMITER_LOST');
    expect(aborted.message).toMatch(/connections\.main\.rateLimits\.redis: Redis at redis:\/\/127\.0\.0\.1:\d+ went away mid-run .*check the Redis server, then run the job again/);
    // It stopped taking rows; every row it took is in the report, once, with its outcome.
    const results = ws.results('import');
    expect(summary.rows.total).toBeLessThan(60);
    expect(results).toHaveLength(summary.rows.total!);
    expect(new Set(results.map((row) => row.line)).size).toBe(results.length);
    // A row whose own call met the loss names it; a row taken but not sent after the stop is ABORTED.
    const failed = results.filter((row) => row.outcome === 'failed');
    expect(results.filter((row) => row.outcome !== 'failed').map((row) => row.outcome)).toEqual(results.filter((row) => row.outcome !== 'failed').map(() => 'created'));
    expect(failed.map((row) => row.error_code).filter((code) => code !== 'ABORTED' && code !== 'RATE_LIMITER_LOST')).toEqual([]);
    expect(failed.map((row) => row.error_code)).toContain('RATE_LIMITER_LOST');
    // What the report calls created is on the platform; what the platform holds was a row taken
    // (a create that succeeded just before the loss may be reported ABORTED: a re-run matches it).
    const stored = new Set(emulator.contacts(TOKEN).map((contact) => contact.custom_fields.customerid));
    const taken = new Set(results.map((row) => row.key));
    expect(results.filter((row) => row.outcome === 'created').filter((row) => !(stored.has(row.key)))).toEqual([]);
    expect([...stored].filter((key) => !(key !== undefined && taken.has(key)))).toEqual([]);
    // None failed for its own data: rejected.csv (the rows to fix) is empty, and every failed row
    // is one to run again once Redis is back (docs/reports.md, "Rows that failed").
    expect(ws.rejected('import')).toEqual([]);
    expect(summary.failedRows).toMatchObject({ toFix: 0, toRunAgain: summary.rows.failed });
  });
});
