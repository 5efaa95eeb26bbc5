/**
 * Every notice the product sends besides the API (webhook, heartbeat, Pushgateway) is bounded
 * (issue 42 items 5 and 8): a sink that trickles is cut at the notice's deadline, an answer of
 * gigabytes is read a few KB at most (a 2xx none at all, and it is a success whatever its body),
 * and the run's signal cuts what is under way. Hostile servers on 127.0.0.1, port 0.
 */
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { SINK_DEADLINE_MS } from '../../src/watch/bounded-attempts.js';
import { pingHeartbeat } from '../../src/watch/heartbeat.js';
import { pushJobMetrics, pushUrl } from '../../src/watch/pushgateway.js';
import { ANSWER_READ_BYTES } from '../../src/watch/sink-request.js';
import { postWebhook } from '../../src/watch/webhook.js';

const ended = { syncJob: 'crm', exitCode: 0, startedAt: new Date(0), endedAt: new Date(1_000) };
const payload = { text: 'contact-sync: job "crm" ended well', summary: null, exitCode: 0 };
/** At most this many chunks of 64 KiB (256 MiB) are written by the flooding server: a bound, never reached when the client stops reading. */
const FLOOD_CHUNKS = 4_096;
const CHUNK = Buffer.alloc(64 * 1024, 'x');

interface Hostile {
  url: string;
  /** Requests that reached the server. */
  requests: number;
  /** Bytes the server managed to write before the client closed. */
  written: number;
  /** Resolves when every connection the server had is closed (the client gave up on it). */
  closed(): Promise<void>;
  close(): Promise<void>;
}

/** Answers `status` and then a body that never ends (written as fast as the client reads, up to FLOOD_CHUNKS). */
async function flooding(status: number): Promise<Hostile> {
  const sockets = new Set<Promise<void>>();
  const state = { requests: 0, written: 0 };
  const server: HttpServer = createHttpServer((request, response) => {
    state.requests += 1;
    request.resume();
    response.writeHead(status, { 'content-type': 'text/plain' });
    let chunks = 0;
    const pump = (): void => {
      while (chunks < FLOOD_CHUNKS && !response.destroyed) {
        chunks += 1;
        state.written += CHUNK.length;
        if (!response.write(CHUNK)) {
          response.once('drain', pump);
          return;
        }
      }
      response.end();
    };
    pump();
  });
  server.on('connection', (socket: Socket) => sockets.add(new Promise((resolve) => socket.once('close', () => resolve()))));
  return listening(server, state, sockets);
}

/** Takes the request, then sends its status line and one header byte every 20 ms, for ever (bounded by the socket's close). */
async function trickling(): Promise<Hostile> {
  const sockets = new Set<Promise<void>>();
  const state = { requests: 0, written: 0 };
  const server: NetServer = createNetServer((socket) => {
    state.requests += 1;
    sockets.add(new Promise((resolve) => socket.once('close', () => resolve())));
    socket.on('error', () => undefined);
    socket.once('data', () => {
      socket.write('HTTP/1.1 200 OK\r\nX-Slow: ');
      const timer = setInterval(() => {
        if (socket.destroyed) return;
        state.written += 1;
        socket.write('a');
      }, 20);
      socket.once('close', () => clearInterval(timer));
    });
  });
  return listening(server, state, sockets);
}

async function listening(server: HttpServer | NetServer, state: { requests: number; written: number }, sockets: Set<Promise<void>>): Promise<Hostile> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook/s3cr3t`,
    get requests() {
      return state.requests;
    },
    get written() {
      return state.written;
    },
    closed: async () => {
      await Promise.all(sockets);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('a notice to a hostile sink', () => {
  const servers: Hostile[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });
  const hostile = async (start: Promise<Hostile>): Promise<Hostile> => {
    const server = await start;
    servers.push(server);
    return server;
  };

  it('a webhook answering 200 with an endless body took the notice: one POST, the body not read, the connection closed', async () => {
    const hook = await hostile(flooding(200));
    await postWebhook(hook.url, payload, () => Promise.resolve());
    await hook.closed();
    expect(hook.requests).toBe(1);
    expect(hook.written).toBeLessThan(FLOOD_CHUNKS * CHUNK.length);
  });

  it('a heartbeat answering 200 with an endless body took the ping', async () => {
    const monitor = await hostile(flooding(200));
    await pingHeartbeat(monitor.url, 'success', () => Promise.resolve());
    await monitor.closed();
    expect(monitor.requests).toBe(1);
    expect(monitor.written).toBeLessThan(FLOOD_CHUNKS * CHUNK.length);
  });

  it('a Pushgateway refusing with an endless body: the warning holds at most a few KB of it', async () => {
    const gateway = await hostile(flooding(500));
    const push = pushJobMetrics(gateway.url, ended);
    await expect(push).rejects.toThrow(/^push failed with status 500, x+$/);
    const message = await push.then(() => '', (error: Error) => error.message);
    expect(message.length).toBeLessThanOrEqual('push failed with status 500, '.length + ANSWER_READ_BYTES);
    await gateway.closed();
    expect(gateway.written).toBeLessThan(FLOOD_CHUNKS * CHUNK.length);
  });

  it('a Pushgateway that trickles its answer is cut at the deadline, and its connection closed', async () => {
    const gateway = await hostile(trickling());
    await expect(pushJobMetrics(gateway.url, ended, { totalMs: 300 })).rejects.toThrow(/ETIMEDOUT|Timeout/i);
    await gateway.closed();
    expect(gateway.requests).toBe(1);
  });

  it('a webhook that trickles: every attempt is cut, and the attempts stop at the notice\'s deadline', async () => {
    const hook = await hostile(trickling());
    // The clock moves only with the pauses: each attempt is cut at 200 ms by its own limit; after
    // the 500 ms pause, 500 ms of the 1 s are left, less than the next pause (1.5 s).
    let clock = 0;
    const sleep = (ms: number): Promise<void> => Promise.resolve(void (clock += ms));
    const failure = postWebhook(hook.url, payload, sleep, { totalMs: 1_000, attemptMs: 200, now: () => clock });
    await expect(failure).rejects.toThrow(`the webhook at ${new URL(hook.url).origin} did not take the notice (ETIMEDOUT; no time left in the notice's 1 s, after 2 attempts)`);
    await hook.closed();
    expect(hook.requests).toBe(2);
  });

  it('the run\'s signal cuts a ping under way, and no attempt follows', async () => {
    const monitor = await hostile(trickling());
    const interrupt = new AbortController();
    const ping = pingHeartbeat(monitor.url, 'fail', () => Promise.resolve(), { signal: interrupt.signal });
    const started = Date.now();
    while (monitor.requests === 0 && Date.now() - started < 10_000) await new Promise((resolve) => setTimeout(resolve, 5));
    interrupt.abort();
    await expect(ping).rejects.toThrow(/cut short: the run was interrupted or its notices took too long, after 1 attempt\)/);
    await monitor.closed();
    expect(monitor.requests).toBe(1);
  });

  it('the default deadline covers all three attempts and their pauses', () => {
    expect(SINK_DEADLINE_MS).toBeGreaterThanOrEqual(5_000 + 500 + 1_500);
  });
});

describe('pushUrl: the group of a job on the gateway (as prom-client built it)', () => {
  it.each([
    ['http://gw:9091', 'crm', 'http://gw:9091/metrics/job/contact_sync/sync_job/crm'],
    ['http://gw:9091/', 'crm.shard-1-of-2', 'http://gw:9091/metrics/job/contact_sync/sync_job/crm.shard-1-of-2'],
    ['https://user:pw@gw.example/prefix/?x=1', 'a b/c', 'https://user:pw@gw.example/prefix/metrics/job/contact_sync/sync_job/a%20b%2Fc'],
  ])('%s, %s -> %s', (url, job, expected) => {
    expect(pushUrl(url, job)).toBe(expected);
  });
});
