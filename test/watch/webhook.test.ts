import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { postWebhook } from '../../src/watch/webhook.js';

interface Received {
  path: string;
  body: unknown;
}

/** A webhook on 127.0.0.1, port 0, answering each POST with the next status of `statuses` (then 200). */
async function webhook(statuses: number[]): Promise<{ url: string; received: Received[]; server: Server }> {
  const received: Received[] = [];
  const server = createServer((request: IncomingMessage, response) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    request.on('end', () => {
      received.push({ path: request.url ?? '', body: JSON.parse(text) });
      response.statusCode = statuses.shift() ?? 200;
      response.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/services/T000/B000/s3cr3tpath`, received, server };
}

const payload = { text: 'contact-sync: job "crm" ended well', summary: null, exitCode: 0 };

describe('postWebhook', () => {
  const servers: Server[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
  });

  it('posts the JSON once when the webhook takes it', async () => {
    const hook = await webhook([]);
    servers.push(hook.server);
    const pauses: number[] = [];
    await postWebhook(hook.url, payload, (ms) => Promise.resolve(void pauses.push(ms)));
    expect(hook.received).toEqual([{ path: '/services/T000/B000/s3cr3tpath', body: payload }]);
    expect(pauses).toEqual([]);
  });

  it('tries again after a 503 and a 429, with the pauses between', async () => {
    const hook = await webhook([503, 429]);
    servers.push(hook.server);
    const pauses: number[] = [];
    await postWebhook(hook.url, payload, (ms) => Promise.resolve(void pauses.push(ms)));
    expect(hook.received).toHaveLength(3);
    expect(pauses).toEqual([500, 1_500]);
  });

  it('gives up after three attempts, naming the origin and never the secret path', async () => {
    const hook = await webhook([500, 500, 500, 500]);
    servers.push(hook.server);
    const failure = postWebhook(hook.url, payload, () => Promise.resolve());
    await expect(failure).rejects.toThrow(`the webhook at ${new URL(hook.url).origin} did not take the notice (HTTP 500, after 3 attempts)`);
    await expect(failure).rejects.not.toThrow(/s3cr3tpath/);
    expect(hook.received).toHaveLength(3);
  });

  it('does not try again after a 404 (a wrong URL does not heal)', async () => {
    const hook = await webhook([404]);
    servers.push(hook.server);
    await expect(postWebhook(hook.url, payload, () => Promise.resolve())).rejects.toThrow(/HTTP 404, after 1 attempt\)/);
    expect(hook.received).toHaveLength(1);
  });

  it('tries again when nothing answers, and says so', async () => {
    const hook = await webhook([]);
    await new Promise((resolve) => hook.server.close(resolve));
    await expect(postWebhook(hook.url, payload, () => Promise.resolve())).rejects.toThrow(/\(ECONNREFUSED, after 3 attempts\)/);
  });
});

/** A server on 127.0.0.1, port 0, answering every POST with `status` and `Location: location(its own URL)`. */
async function redirecting(status: number, location: (self: string) => string): Promise<{ url: string; posts: string[]; server: Server }> {
  const posts: string[] = [];
  let self = '';
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      posts.push(request.url ?? '');
      response.writeHead(status, { location: location(self) });
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  self = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url: `${self}/services/T000/B000/s3cr3tpath`, posts, server };
}

describe('postWebhook and redirects', () => {
  const servers: Server[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
  });

  it('does not re-send the notice to another origin: one POST, not retried, naming where it pointed and the fix', async () => {
    const elsewhere = await webhook([]);
    const hook = await redirecting(307, () => elsewhere.url);
    servers.push(elsewhere.server, hook.server);

    const failure = postWebhook(hook.url, payload, () => Promise.resolve());

    await expect(failure).rejects.toThrow(
      `the webhook at ${new URL(hook.url).origin} did not take the notice (HTTP 307, a redirect to ${new URL(elsewhere.url).origin}, not followed: the notice is sent only where notify.webhook says, after 1 attempt); set notify.webhook to the address it redirects to`,
    );
    await expect(failure).rejects.not.toThrow(/s3cr3tpath/);
    expect(hook.posts).toHaveLength(1);
    expect(elsewhere.received).toEqual([]);
  });

  it('a redirect loop is one POST, and a redirect to file: is neither followed nor retried', async () => {
    const loop = await redirecting(302, (self) => `${self}/again`);
    const file = await redirecting(301, () => 'file:///etc/passwd');
    servers.push(loop.server, file.server);

    await expect(postWebhook(loop.url, payload, () => Promise.resolve())).rejects.toThrow(`(HTTP 302, a redirect to ${new URL(loop.url).origin}, not followed`);
    await expect(postWebhook(file.url, payload, () => Promise.resolve())).rejects.toThrow('(HTTP 301, a redirect to a file: URL, not followed');

    expect(loop.posts).toEqual(['/services/T000/B000/s3cr3tpath']);
    expect(file.posts).toEqual(['/services/T000/B000/s3cr3tpath']);
  });
});
