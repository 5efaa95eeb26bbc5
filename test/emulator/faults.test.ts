import { EmulatorOptionsError, startEmulator } from '../../src/emulator/index.js';
import type { EmulatorOptions, FaultOptions, RunningEmulator } from '../../src/emulator/index.js';
import { TOKEN, admin, api } from './emulator-http.js';
import { waitFor } from '../helpers/integration-fixtures.js';

let emulator: RunningEmulator | undefined;

async function start(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  emulator = await startEmulator({ rateLimits: false, ...options });
  return emulator;
}
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

/** Status of the answer, or the error code of the socket failure. */
async function outcome(call: Promise<unknown>): Promise<number | string> {
  try {
    return ((await call) as { status: number }).status;
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause;
    return `dropped:${cause?.code ?? 'unknown'}`;
  }
}

const create = (target: RunningEmulator) =>
  api(target, 'POST', '/v1/contact', { json: { custom_fields: [{ name: 'customerid', value: 'c1' }] } });
const search = (target: RunningEmulator) => api(target, 'GET', '/v1/contact/by_custom_field?name=a&value=b');

describe('injected faults', () => {
  const mixed: FaultOptions = { serverError: 0.2, rateLimited: 0.2, dropConnection: 0.15, resetConnection: 0.15 };

  async function sequence(seed: number): Promise<Array<number | string>> {
    const target = await startEmulator({ rateLimits: false, faults: mixed, seed });
    try {
      const results: Array<number | string> = [];
      for (let i = 0; i < 30; i += 1) results.push(await outcome(search(target)));
      return results;
    } finally {
      await target.close();
    }
  }

  test('one seed gives one sequence of outcomes, and every fault kind shows up', async () => {
    const first = await sequence(42);
    expect(await sequence(42)).toEqual(first);
    expect(new Set(first.map((result) => (typeof result === 'string' ? 'dropped' : result)))).toEqual(new Set([200, 500, 429, 'dropped']));
    expect(await sequence(43)).not.toEqual(first);
  });

  test('serverError answers 500 in the error envelope without doing anything', async () => {
    const target = await start({ faults: { serverError: 1 } });
    const answer = await create(target);
    expect(answer.status).toBe(500);
    expect(answer.body).toEqual({ status: 'error', message: expect.any(String), data: [] });
    expect(target.contacts(TOKEN)).toEqual([]);
  });

  test('rateLimited answers 429 with Retry-After: 1 without doing anything', async () => {
    const target = await start({ faults: { rateLimited: 1 } });
    const answer = await create(target);
    expect(answer.status).toBe(429);
    expect(answer.headers.get('retry-after')).toBe('1');
    expect(answer.body).toEqual({ status: 'error', message: 'Too many requests', data: [] });
    expect(target.contacts(TOKEN)).toEqual([]);
  });

  test('dropConnection closes the socket without an answer and without doing anything', async () => {
    const target = await start({ faults: { dropConnection: 1 } });
    expect(await outcome(create(target))).toMatch(/^dropped:/);
    expect(target.contacts(TOKEN)).toEqual([]);
  });

  test('resetConnection resets the socket (ECONNRESET) without doing anything', async () => {
    const target = await start({ faults: { resetConnection: 1 } });
    expect(await outcome(create(target))).toBe('dropped:ECONNRESET');
    expect(target.contacts(TOKEN)).toEqual([]);
  });

  test('createCommitThenDrop creates the contact while the client sees a socket error', async () => {
    const target = await start({ faults: { createCommitThenDrop: 1 } });
    expect(await outcome(create(target))).toMatch(/^dropped:/);
    expect(target.contacts(TOKEN)).toEqual([expect.objectContaining({ custom_fields: { customerid: 'c1' } })]);
    expect(await outcome(search(target))).toBe(200);
  });

  test('sendCommitThenDrop records the message while the client sees a socket error; creates are untouched', async () => {
    const target = await start({ faults: { sendCommitThenDrop: 1 } });
    expect(await outcome(create(target))).toBe(200);
    const id = target.contacts(TOKEN)[0]!.id;
    const send = api(target, 'POST', `/v1/message/sendContent/${id}`, { json: { body: [{ type: 'text', text: 'Hi' }] } });
    expect(await outcome(send)).toMatch(/^dropped:/);
    expect(target.messages(TOKEN)).toEqual([expect.objectContaining({ contactId: id, body: [{ type: 'text', text: 'Hi' }] })]);
  });

  test('a commit-then-drop request that is refused is answered normally', async () => {
    const target = await start({ faults: { createCommitThenDrop: 1 } });
    const answer = await api(target, 'POST', '/v1/contact', { json: { custom_fields: [] } });
    expect(answer.status).toBe(403);
  });

  test('faults are limited to the listed operations', async () => {
    const target = await start({ faults: { serverError: 1, operations: ['createContact'] } });
    expect((await search(target)).status).toBe(200);
    expect((await create(target)).status).toBe(500);
  });

  test('latency delays answers but they still arrive whole', async () => {
    const target = await start({ faults: { latency: { minMs: 5, maxMs: 15 } } });
    expect((await create(target)).status).toBe(200);
    expect((await search(target)).body.meta.total).toBe(0);
  });

  test('close ends requests still waiting on latency', async () => {
    const target = await start({ faults: { latency: { minMs: 20_000, maxMs: 20_000 } } });
    const pending = outcome(search(target));
    // Closed only once the request is in (a close before it would be a refused connection).
    await waitFor(() => target.counters(TOKEN).total.received === 1, 'the emulator received the search');
    await target.close();
    const dropped = await pending;
    expect(dropped).toMatch(/^dropped:/);
    expect(dropped).not.toBe('dropped:ECONNREFUSED');
  });

  test('inbound jitter holds a request before the rate check: one closed on its way in was received but never reached the check', async () => {
    const target = await start({ rateLimits: { contacts: { limit: 5, periodMs: 60_000 } }, faults: { inboundJitter: { minMs: 20_000, maxMs: 20_000 } } });
    const pending = outcome(search(target));
    // Received (counted on arrival), then held 20 s by the jitter: the check cannot have run yet.
    await waitFor(() => target.counters(TOKEN).total.received === 1, 'the emulator received the search');
    const counters = target.counters(TOKEN);
    expect([counters.total.received, counters.mostInAnyWindow.contacts]).toEqual([1, 0]);
    await target.close();
    expect(await pending).toMatch(/^dropped:/);
  });

  test('the most requests that reached the rate check in any window counts those answered 429, and resets with the counters', async () => {
    const target = await start({ rateLimits: { contacts: { limit: 2, periodMs: 60_000 } }, faults: { inboundJitter: { minMs: 0, maxMs: 5 } } });
    const statuses = [];
    for (let i = 0; i < 3; i += 1) statuses.push((await search(target)).status);
    expect(statuses).toEqual([200, 200, 429]);
    expect(target.counters(TOKEN).mostInAnyWindow).toEqual({ contacts: 3, messages: 0 });
    target.resetCounters(TOKEN);
    expect(target.counters(TOKEN).mostInAnyWindow).toEqual({ contacts: 0, messages: 0 });
  });

  test('faults never touch admin routes nor unauthenticated requests', async () => {
    const target = await start({ faults: { serverError: 1 } });
    expect((await admin(target, 'GET', '/contacts')).status).toBe(200);
    expect((await api(target, 'GET', '/v1/contact/1', { token: 'bad' })).status).toBe(401);
  });

  test('faults change at run time, in process and through the admin API', async () => {
    const target = await start();
    expect((await search(target)).status).toBe(200);
    target.setFaults({ serverError: 1 });
    expect((await search(target)).status).toBe(500);
    target.setFaults({});
    expect((await search(target)).status).toBe(200);
    expect((await admin(target, 'PUT', '/faults', { json: { faults: { rateLimited: 1 } } })).status).toBe(200);
    expect((await search(target)).status).toBe(429);
    expect((await admin(target, 'GET', '/faults')).body).toEqual({ data: { rateLimited: 1 } });
  });

  test('faulted requests are counted as received and faulted', async () => {
    const target = await start({ faults: { serverError: 1 } });
    await search(target);
    target.setFaults({ rateLimited: 1 });
    await search(target);
    expect(target.counters(TOKEN).byOperation.searchContacts).toEqual({ received: 2, rateLimited: 1, faulted: 2 });
  });

  test('an impossible fault configuration is refused with the option named', async () => {
    const target = await start();
    expect(() => target.setFaults({ serverError: 0.7, dropConnection: 0.7 })).toThrow(EmulatorOptionsError);
    expect(() => target.setFaults({ serverError: 2 })).toThrow(/faults\.serverError: 2 is not a probability/);
    const answer = await admin(target, 'PUT', '/faults', { json: { faults: { latency: { minMs: 10, maxMs: 1 } } } });
    expect(answer.status).toBe(400);
    expect(answer.body.message).toContain('faults.latency');
    expect(() => target.setFaults({ inboundJitter: { minMs: -1, maxMs: 5 } })).toThrow(/faults\.inboundJitter: \{minMs: -1, maxMs: 5\} must be whole milliseconds/);
  });
});

describe('faults of a dead, throttling or odd platform', () => {
  it('hang: no answer until the client gives up; nothing done', async () => {
    const target = await start({ faults: { hang: 1 } });
    const call = fetch(`${target.url}/v1/contact`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ custom_fields: [{ name: 'customerid', value: 'c1' }] }),
      signal: AbortSignal.timeout(200),
    });
    await expect(call).rejects.toMatchObject({ name: 'TimeoutError' });
    expect(target.contacts(TOKEN)).toEqual([]);
  });

  it('rateLimited with retryAfterSeconds: every call answered 429 with that Retry-After', async () => {
    const target = await start({ faults: { rateLimited: 1, retryAfterSeconds: 3600 } });
    const answers = [await search(target), await search(target)];
    expect(answers.map((answer) => [answer.status, answer.headers.get('retry-after')])).toEqual([
      [429, '3600'],
      [429, '3600'],
    ]);
  });

  it('echoTokenEscaped: a 403 whose raw text holds the token with every / escaped', async () => {
    const token = 'ab/cd/ef/gh/ij';
    const target = await start({ channels: [{ token }], faults: { echoTokenEscaped: 1 } });
    const response = await fetch(`${target.url}/v1/contact/by_custom_field?name=a&value=b`, { headers: { authorization: `Bearer ${token}` } });
    const text = await response.text();
    expect(response.status).toBe(403);
    expect(text).toContain('ab\\/cd\\/ef\\/gh\\/ij');
    expect(text).not.toContain(token);
    expect((JSON.parse(text) as { message: string }).message).toContain(token);
  });

  it('sendErrorBody records nothing; sendHtmlBody records the message and answers an HTML page', async () => {
    const target = await start({ faults: { sendErrorBody: 1 } });
    const created = await create(target);
    const id = (created.body as { data: { id: string } }).data.id;
    const send = () => fetch(`${target.url}/v1/message/sendContent/${id}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ body: [{ type: 'text', text: 'Hi' }] }),
    });
    const refused = await send();
    expect([refused.status, ((await refused.json()) as { status: string }).status]).toEqual([200, 'error']);
    expect(target.messages(TOKEN)).toEqual([]);
    target.setFaults({ sendHtmlBody: 1 });
    const html = await send();
    expect([html.status, (await html.text()).startsWith('<!DOCTYPE html>')]).toEqual([200, true]);
    expect(target.messages(TOKEN)).toHaveLength(1);
  });

  it('refuses a retryAfterSeconds that is not whole seconds, and send faults that add up past 1', async () => {
    await expect(startEmulator({ faults: { retryAfterSeconds: 1.5 } })).rejects.toThrow(/retryAfterSeconds/);
    await expect(startEmulator({ faults: { sendErrorBody: 0.6, sendHtmlBody: 0.6 } })).rejects.toThrow(/add up/);
  });
});
