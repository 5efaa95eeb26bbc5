/**
 * `contact-sync emulator`: each rate flag applies to its own group (`--messages-rate off` is off
 * whatever `--contacts-rate` says), and the banner shows the tokens, the limits in effect and the
 * admin key.
 */
import { EventEmitter } from 'node:events';
import { Writable } from 'node:stream';
import { main } from '../../src/cli/main.js';
import { testClient } from '../api/support/test-client.js';
import { waitUntil } from '../helpers/cli-process.js';

class Capture extends Writable {
  text = '';
  override _write(chunk: Buffer, _encoding: BufferEncoding, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
}

async function serve(argv: string[], use: (banner: string, url: string) => Promise<void>): Promise<number> {
  const stdout = new Capture();
  const signals = new EventEmitter();
  const running = main(['emulator', '--port', '0', ...argv], { stdout, stderr: new Capture(), env: {}, cwd: process.cwd(), isTTY: false, signals });
  try {
    await waitUntil(() => stdout.text.includes('Stop it with Ctrl-C'), 'the emulator printed its banner', 10_000);
    await use(stdout.text, /at (http:\/\/\S+)/.exec(stdout.text)![1]!);
  } finally {
    signals.emit('SIGTERM');
  }
  return running;
}

describe('contact-sync emulator flags', () => {
  it('--contacts-rate with --messages-rate off: sends are not limited, and the banner says what is in effect', async () => {
    const exitCode = await serve(['--token', 'tok-a', '--token', 'tok-b:viber', '--contacts-rate', '600/min', '--messages-rate', 'off', '--admin-key', 'adm1n'], async (banner, url) => {
      expect(banner).toContain('channel tokens: tok-a, tok-b:viber');
      expect(banner).toContain('limits per channel: contacts 600 per 60000 ms, messages off');
      expect(banner).toContain('x-admin-key: adm1n');
      const api = testClient({ baseUrl: url, token: 'tok-a', retry: { limit: 0 } });
      const { id } = await api.createContact({ customerid: 'C1' });
      // 40 sends at once: over the spec's 25 a second, refused if the default limit applied.
      const outcomes = await Promise.allSettled(Array.from({ length: 40 }, (_, i) => api.sendText(id, `hello ${i}`)));
      expect(outcomes.filter((outcome) => outcome.status === 'rejected').map((outcome) => String(outcome.reason))).toEqual([]);
    });
    expect(exitCode).toBe(0);
  });

  it('the default limits are the spec\'s, shown in the banner', async () => {
    const exitCode = await serve([], (banner) => {
      expect(banner).toContain('channel tokens: demo-token');
      expect(banner).toContain('limits per channel: contacts 100 per 60000 ms, messages 25 per 1000 ms');
      return Promise.resolve();
    });
    expect(exitCode).toBe(0);
  });

  it('--email-search exact, --value-types typed and --update-answer-id cus: the emulator answers so, and the banner says it', async () => {
    const exitCode = await serve(['--email-search', 'exact', '--value-types', 'typed', '--update-answer-id', 'cus'], async (banner, url) => {
      expect(banner).toContain('answers: email search exact, values as typed, update id cus');
      const call = (method: string, path: string, body?: unknown) =>
        fetch(`${url}${path}`, { method, headers: { authorization: 'Bearer demo-token', 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) }).then(
          async (response) => (await response.json()) as { data: { id: string; custom_fields?: Record<string, unknown> } & Array<{ id: string }> },
        );
      const { id } = (await call('POST', '/v1/contact', { custom_fields: [{ name: 'email', value: 'ANN@example.com' }, { name: 'timezone', value: '5' }] })).data;
      expect((await call('GET', '/v1/contact/by_custom_field?name=email&value=ann%40example.com')).data).toEqual([]);
      expect((await call('GET', `/v1/contact/${id}`)).data.custom_fields).toEqual({ email: 'ANN@example.com', timezone: 5 });
      expect((await call('PUT', `/v1/contact/${id}`, { custom_fields: [{ name: 'timezone', value: '6' }] })).data.id).toMatch(/^cus_/);
    });
    expect(exitCode).toBe(0);
  });

  it('the answers are the platform\'s by default, shown in the banner', async () => {
    const exitCode = await serve([], (banner) => {
      expect(banner).toContain('answers: email search case-insensitive, values as strings, update id contact');
      return Promise.resolve();
    });
    expect(exitCode).toBe(0);
  });

  it('--workspace-token serves API v2 under /v2 over the channels\' contacts, at --v2-rate per endpoint, and the banner says so', async () => {
    const exitCode = await serve(['--token', 'tok-a', '--workspace-token', 'ws-1', '--v2-rate', '2/s'], async (banner, url) => {
      expect(banner).toContain('workspace tokens: ws-1 (channel 1 is its channel, one contact store)');
      expect(banner).toContain('limit per endpoint of the organisation: 2 per 1000 ms');
      const v2Url = /API v2 at (http:\/\/\S+)/.exec(banner)![1]!;
      expect(v2Url).toBe(url.replace(/\/api$/, '/v2'));
      const { id } = await testClient({ baseUrl: url, token: 'tok-a', retry: { limit: 0 } }).createContact({ firstName: 'Ann' });
      const read = await fetch(`${v2Url}/contact/id:${id}`, { headers: { authorization: 'Bearer ws-1' } });
      expect(read.status).toBe(200);
      expect(read.headers.get('x-ratelimit-limit')).toBe('2');
      expect(((await read.json()) as { firstName: string }).firstName).toBe('Ann');
    });
    expect(exitCode).toBe(0);
  });

  it('without --workspace-token the banner names no v2 surface', async () => {
    const exitCode = await serve([], (banner) => {
      expect(banner).not.toContain('API v2');
      return Promise.resolve();
    });
    expect(exitCode).toBe(0);
  });

  it('a rate that does not parse is a usage error naming the flag: exit 2', async () => {
    const stderr = new Capture();
    const exitCode = await main(['emulator', '--port', '0', '--messages-rate', 'fast'], { stdout: new Capture(), stderr, env: {}, cwd: process.cwd(), isTTY: false, signals: new EventEmitter() });
    expect(exitCode).toBe(2);
    expect(stderr.text).toMatch(/--messages-rate: .*or write off/);
  });

  it('an option the emulator refuses (the admin key a channel token) is a usage error too: exit 2, naming it (issue 42)', async () => {
    const stderr = new Capture();
    const exitCode = await main(['emulator', '--port', '0', '--token', 'tok-a', '--admin-key', 'tok-a'], { stdout: new Capture(), stderr, env: {}, cwd: process.cwd(), isTTY: false, signals: new EventEmitter() });
    expect({ exitCode, said: stderr.text.includes("the emulator's options are refused: adminKey: equals a channel token") }).toEqual({ exitCode: 2, said: true });
  });

  it('a workspace over two channels names them both in the banner', async () => {
    const exitCode = await serve(['--token', 'tok-a', '--token', 'tok-b', '--workspace-token', 'ws-1'], (banner) => {
      expect(banner).toContain('workspace tokens: ws-1 (channels 1, 2 are its channels, one contact store)');
      return Promise.resolve();
    });
    expect(exitCode).toBe(0);
  });
});
