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
