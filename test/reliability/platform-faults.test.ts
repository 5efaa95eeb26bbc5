/**
 * A dead or throttling platform and odd answers (issue 12, items 1 to 5), against the emulator's
 * fault injection: the job stops with its own code instead of trying every row, a Retry-After
 * pauses the whole connection, a send is `sent` only on the documented success, the token never
 * reaches a report in any written form, and the custom-field hint only follows a refusal about a
 * field.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { CUSTOMERS_JOB, TOKEN, customersCsv, fastEmulator, jobsYaml, workspace } from '../helpers/cli-harness.js';

const RUN = ['run', 'jobs.yaml', '--report-dir', 'out', '--log-level', 'silent'];

describe('the platform faults a job meets', () => {
  let emulator: RunningEmulator | undefined;
  afterEach(async () => {
    await emulator?.close();
    emulator = undefined;
  });

  it('a platform that stops answering: API_UNAVAILABLE after timeouts.unavailableAfterAttempts, exit 3, rows not taken counted', async () => {
    const platform = await fastEmulator({ faults: { hang: 1 } });
    emulator = platform;
    const ws = workspace();
    ws.write('customers.csv', customersCsv(30));
    ws.write(
      'jobs.yaml',
      jobsYaml({ url: platform.url, job: `${CUSTOMERS_JOB}\nconcurrency: 2`, connectionExtra: '    timeouts: { request: 1s, unavailableAfterAttempts: 3 }' }),
    );

    const run = await ws.run(RUN);

    expect(run.exitCode).toBe(3);
    const summary = ws.summary('import', 'out');
    expect((summary.aborted as { code: string }).code).toBe('API_UNAVAILABLE');
    expect((summary.aborted as { message: string }).message).toContain('timeouts.unavailableAfterAttempts');
    // The last failure is named, with the setting that bounds it (no option jobs.yaml would refuse).
    expect((summary.aborted as { message: string }).message).toContain("no complete answer within 1000 ms (the connection's `timeouts.request` in jobs.yaml)");
    // No attempt starts once the breaker tripped: the 3 that failed and the one in flight beside them.
    expect(platform.counters(TOKEN).total.received).toBeLessThanOrEqual(3 + 2);
    const results = ws.results('import', 'out');
    expect(results.length + (summary.rows.notReached ?? 0)).toBe(30);
    expect(summary.rows.notReached).toBeGreaterThan(0);
    expect(run.stdout).toMatch(new RegExp(`not reached\\s+${summary.rows.notReached}\\n`));
    expect(results.filter((row) => row.outcome !== 'failed')).toEqual([]);
    expect(platform.contacts(TOKEN)).toEqual([]);
  }, 30_000);

  it('a 429 storm (every call answered 429): the breaker trips as for a dead platform, API_UNAVAILABLE, exit 3, rows not taken counted', async () => {
    const platform = await fastEmulator({ faults: { rateLimited: 1, retryAfterSeconds: 0 } });
    emulator = platform;
    const ws = workspace();
    ws.write('customers.csv', customersCsv(30));
    ws.write('jobs.yaml', jobsYaml({ url: platform.url, job: `${CUSTOMERS_JOB}\nconcurrency: 2`, connectionExtra: '    timeouts: { unavailableAfterAttempts: 6 }' }));

    const run = await ws.run(RUN);

    expect(run.exitCode).toBe(3);
    const summary = ws.summary('import', 'out');
    const aborted = summary.aborted as { code: string; message: string };
    expect(aborted.code).toBe('API_UNAVAILABLE');
    expect(aborted.message).toContain('the last with RATE_LIMITED');
    // The 6 in a row and at most the one in flight beside them (before: 5 attempts for every row, 150).
    expect(platform.counters(TOKEN).total.received).toBeLessThanOrEqual(6 + 1);
    expect(summary.rows.notReached).toBeGreaterThan(0);
    expect(ws.results('import', 'out').length + (summary.rows.notReached ?? 0)).toBe(30);
  });

  it('a Retry-After far beyond timeouts.maxRetryAfter: RATE_LIMITED, exit 3, naming the wait and the setting; one call in all', async () => {
    const platform = await fastEmulator({ faults: { rateLimited: 1, retryAfterSeconds: 3600 } });
    emulator = platform;
    const ws = workspace();
    ws.write('customers.csv', customersCsv(20));
    ws.write('jobs.yaml', jobsYaml({ url: platform.url, job: `${CUSTOMERS_JOB}\nconcurrency: 1` }));

    const run = await ws.run(RUN);

    expect(run.exitCode).toBe(3);
    const aborted = ws.summary('import', 'out').aborted as { code: string; message: string };
    expect(aborted.code).toBe('RATE_LIMITED');
    expect(aborted.message).toContain('wait 60 min');
    expect(aborted.message).toContain('timeouts.maxRetryAfter');
    expect(platform.counters(TOKEN).total.received).toBe(1);
  });

  it('a Retry-After within timeouts.maxRetryAfter is waited out (the pause of every call: test/api/connection-health.test.ts) and the job ends well', async () => {
    const platform = await fastEmulator({ faults: { rateLimited: 1, retryAfterSeconds: 1 } });
    emulator = platform;
    const ws = workspace();
    ws.write('customers.csv', customersCsv(4));
    ws.write('jobs.yaml', jobsYaml({ url: platform.url, job: `${CUSTOMERS_JOB}\nconcurrency: 4` }));
    // Every call of the first wave is answered 429; the platform recovers after the first one.
    let cleared = false;
    const clear = setInterval(() => {
      if (!cleared && platform.counters(TOKEN).total.received >= 1) {
        cleared = true;
        platform.setFaults({});
      }
    }, 5);
    try {
      const run = await ws.run(RUN);
      expect(run.exitCode).toBe(0);
    } finally {
      clearInterval(clear);
    }
    expect(ws.results('import', 'out').map((row) => row.outcome)).toEqual(['created', 'created', 'created', 'created']);
  }, 20_000);

  it('a send answered 200 with an error body is failed with the platform message; with an HTML page it is unknown; neither is sent', async () => {
    const platform = await fastEmulator();
    emulator = platform;
    const ws = workspace();
    ws.write('customers.csv', customersCsv(2));
    const job = `${CUSTOMERS_JOB.replace('state: false', 'state: state/import.db')}\nmessage: { when: always, text: "Hello {{first_name}}" }`;
    ws.write('jobs.yaml', jobsYaml({ url: platform.url, job }));

    platform.setFaults({ sendErrorBody: 1 });
    const refused = await ws.run([...RUN.slice(0, 3), 'refused', '--log-level', 'silent']);
    expect(refused.exitCode).toBe(1);
    const first = ws.results('import', 'refused');
    expect(first.map((row) => row.message_status)).toEqual(['failed', 'failed']);
    expect(first[0]?.message_error).toContain('SEND_REFUSED');
    expect(first[0]?.message_error).toContain('Message not sent: the contact has blocked this channel');

    platform.setFaults({ sendHtmlBody: 1 });
    const html = await ws.run([...RUN.slice(0, 3), 'html', '--log-level', 'silent']);
    expect(html.exitCode).toBe(1);
    const second = ws.results('import', 'html');
    // Refused the first time, so tried again; the maintenance page may hide a delivery.
    expect(second.map((row) => row.message_status)).toEqual(['unknown', 'unknown']);
    expect(second[0]?.message_error).toContain('not JSON');

    platform.setFaults({});
    const again = await ws.run([...RUN.slice(0, 3), 'again', '--log-level', 'silent']);
    expect(again.exitCode).toBe(0);
    const third = ws.results('import', 'again');
    // An unknown send is never repeated, and the re-run says why.
    expect(third.map((row) => row.message_status)).toEqual(['skipped', 'skipped']);
    expect(third[0]?.message_error).toContain('an earlier run sent this message');
    expect(platform.messages(TOKEN)).toHaveLength(2);
  }, 20_000);

  it.each([
    ['slashes', 'ab/cd/ef/gh/ij'],
    ['plus and equals', 'Zm9v+YmFy=Ym/F6=='],
  ])('a token with %s echoed JSON-escaped in an error reaches no report', async (_name, token) => {
    const platform = await startEmulator({
      channels: [{ token }],
      rateLimits: false,
      faults: { echoTokenEscaped: 1, operations: ['createContact'] },
    });
    emulator = platform;
    const ws = workspace();
    ws.write('customers.csv', customersCsv(2));
    ws.write('jobs.yaml', jobsYaml({ url: platform.url, token, job: CUSTOMERS_JOB }));

    const run = await ws.run(RUN);

    expect(run.exitCode).toBe(1);
    const results = ws.results('import', 'out');
    expect(results.map((row) => row.error_code)).toEqual(['FORBIDDEN', 'FORBIDDEN']);
    expect(results[0]?.error_message).toContain('[redacted]');
    // Not about a field: no custom-field hint.
    expect(results[0]?.error_message).not.toContain('custom field');
    const escaped = token.replace(/\//g, '\\/');
    for (const file of ['import.results.csv', 'import.rejected.csv', 'import.summary.json']) {
      const text = readFileSync(join(ws.dir, 'out', file), 'utf8');
      expect([token, escaped, encodeURIComponent(token)].filter((form) => text.includes(form))).toEqual([]);
    }
    expect([run.stdout, run.stderr].filter((text) => text.includes(token) || text.includes(escaped))).toEqual([]);
  });

  it('connections.*.timeouts: unknown keys and durations without a unit are refused, naming the keys and the forms', async () => {
    const ws = workspace();
    ws.write('customers.csv', customersCsv(1));
    ws.write('jobs.yaml', jobsYaml({ url: 'http://127.0.0.1:9/api', job: CUSTOMERS_JOB, connectionExtra: '    timeouts: { timeoutMs: 1000, request: 30 }' }));
    const run = await ws.run(['validate', 'jobs.yaml']);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain('connections.main.timeouts.timeoutMs: unknown key "timeoutMs"; remove it; the keys here are request, maxPages');
    expect(run.stderr).toContain('connections.main.timeouts.request: 30 is a number; write the longest wait for one API answer, a whole number with a unit: 500ms, 30s, 5m, 2h');
  });
});
