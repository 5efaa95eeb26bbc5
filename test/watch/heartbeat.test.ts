import { endPing, endPingNote, heartbeatUrl, pingHeartbeat } from '../../src/watch/heartbeat.js';
import { recordingServer, type RecordingServer } from '../helpers/recording-server.js';

describe('the ping of a job\'s end', () => {
  it.each([
    [0, 'success'],
    [1, 'success'],
    [2, 'fail'],
    [3, 'fail'],
    // The planned end of a night of a multi-night import (issue 41): the monitor must not alarm.
    [4, 'success'],
    [75, 'fail'],
    [130, 'fail'],
    [143, 'fail'],
  ])('exit %i -> %s', (exitCode, ping) => {
    expect(endPing(exitCode)).toBe(ping);
  });
});

describe('the note of an end ping, for the monitors that keep a ping\'s body', () => {
  it.each([
    [0, undefined],
    [1, undefined],
    [4, 'exit 4: stopped at --max-duration with rows not reached, as planned; the next run goes on with them\n'],
    [3, undefined],
  ])('exit %i -> %j', (exitCode, note) => {
    expect(endPingNote(exitCode)).toBe(note);
  });
});

describe('heartbeatUrl: the cron monitors\' convention', () => {
  it.each([
    ['https://hc-ping.com/5f2a', 'start', 'https://hc-ping.com/5f2a/start'],
    ['https://hc-ping.com/5f2a', 'success', 'https://hc-ping.com/5f2a'],
    ['https://hc-ping.com/5f2a', 'fail', 'https://hc-ping.com/5f2a/fail'],
    ['https://hc-ping.com/5f2a/', 'start', 'https://hc-ping.com/5f2a/start'],
    ['https://monitor.example/ping/nightly?key=s3cr3t', 'fail', 'https://monitor.example/ping/nightly/fail?key=s3cr3t'],
  ] as const)('%s, %s -> %s', (url, ping, expected) => {
    expect(heartbeatUrl(url, ping)).toBe(expected);
  });
});

/** A monitor on 127.0.0.1, port 0, answering each GET with the next status of `statuses` (then 200). */
async function monitor(statuses: number[], headers: Record<string, string> = {}): Promise<{ url: string; paths: string[]; server: RecordingServer }> {
  const server = await recordingServer({ path: '/ping/s3cr3t-uuid', statuses, headers });
  return {
    url: server.url,
    get paths() {
      return server.requests.map((request) => `${request.method} ${request.path}`);
    },
    server,
  };
}

describe('pingHeartbeat', () => {
  const servers: RecordingServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });

  it('sends one GET to the ping\'s URL when the monitor takes it', async () => {
    const check = await monitor([]);
    servers.push(check.server);
    const pauses: number[] = [];
    await pingHeartbeat(check.url, 'start', (ms) => Promise.resolve(void pauses.push(ms)));
    await pingHeartbeat(check.url, 'success', (ms) => Promise.resolve(void pauses.push(ms)));
    expect(check.paths).toEqual(['GET /ping/s3cr3t-uuid/start', 'GET /ping/s3cr3t-uuid']);
    expect(pauses).toEqual([]);
  });

  it('sends a note as the body of a POST to the success URL (exit 4 says its status)', async () => {
    const check = await monitor([]);
    servers.push(check.server);
    await pingHeartbeat(check.url, endPing(4), () => Promise.resolve(), undefined, endPingNote(4));
    expect(check.server.requests.map((request) => [request.method, request.path, request.body])).toEqual([['POST', '/ping/s3cr3t-uuid', endPingNote(4)]]);
  });

  it('tries again after a 503 and a 429, with the pauses between', async () => {
    const check = await monitor([503, 429]);
    servers.push(check.server);
    const pauses: number[] = [];
    await pingHeartbeat(check.url, 'fail', (ms) => Promise.resolve(void pauses.push(ms)));
    expect(check.paths).toEqual(['GET /ping/s3cr3t-uuid/fail', 'GET /ping/s3cr3t-uuid/fail', 'GET /ping/s3cr3t-uuid/fail']);
    expect(pauses).toEqual([500, 1_500]);
  });

  it('gives up after three attempts, naming the origin and never the secret path', async () => {
    const check = await monitor([500, 500, 500]);
    servers.push(check.server);
    const failure = pingHeartbeat(check.url, 'start', () => Promise.resolve());
    await expect(failure).rejects.toThrow(`the heartbeat at ${new URL(check.url).origin} did not take the start ping (HTTP 500, after 3 attempts)`);
    await expect(failure).rejects.not.toThrow(/s3cr3t/);
  });

  it('does not follow a redirect (the secret path would go on to wherever it points), nor try a 404 again', async () => {
    const moved = await monitor([302], { location: 'http://127.0.0.1:9/elsewhere' });
    servers.push(moved.server);
    await expect(pingHeartbeat(moved.url, 'success', () => Promise.resolve())).rejects.toThrow(
      'the heartbeat at ' + new URL(moved.url).origin + ' did not take the success ping (HTTP 302, a redirect to http://127.0.0.1:9, not followed: the notice is sent only where notify.heartbeat says, after 1 attempt); set notify.heartbeat to the address it redirects to',
    );
    expect(moved.paths).toEqual(['GET /ping/s3cr3t-uuid']);
    const wrong = await monitor([404]);
    servers.push(wrong.server);
    await expect(pingHeartbeat(wrong.url, 'success', () => Promise.resolve())).rejects.toThrow(/HTTP 404, after 1 attempt\)/);
    expect(wrong.paths).toHaveLength(1);
  });

  it('tries again when nothing answers, and says so', async () => {
    const check = await monitor([]);
    await check.server.close();
    await expect(pingHeartbeat(check.url, 'start', () => Promise.resolve())).rejects.toThrow(/\(ECONNREFUSED, after 3 attempts\)/);
  });
});
