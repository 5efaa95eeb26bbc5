import { startEmulator } from '../../src/emulator/index.js';
import type { EmulatorOptions, RunningEmulator } from '../../src/emulator/index.js';
import { TOKEN, api } from './emulator-http.js';

let emulator: RunningEmulator | undefined;
let clockMs = 0;

async function start(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  clockMs = 1_000_000;
  emulator = await startEmulator({ now: () => clockMs, rateLimits: { contacts: { limit: 5, periodMs: 1000 } }, ...options });
  return emulator;
}
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

const search = (target: RunningEmulator, token: string | null = TOKEN) =>
  api(target, 'GET', '/v1/contact/by_custom_field?name=email&value=x', { token });

async function statuses(target: RunningEmulator, count: number): Promise<number[]> {
  const result: number[] = [];
  for (let i = 0; i < count; i += 1) result.push((await search(target)).status);
  return result;
}

describe('rate limits (strict sliding window per channel and group)', () => {
  test('the request over the limit gets 429 "Too many requests" with Retry-After in whole seconds', async () => {
    const target = await start();
    expect(await statuses(target, 5)).toEqual([200, 200, 200, 200, 200]);
    const refused = await search(target);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ status: 'error', message: 'Too many requests', data: [] });
    expect(refused.headers.get('retry-after')).toBe('1');
  });

  test('Retry-After is the time until a slot frees, rounded up', async () => {
    const target = await start({ rateLimits: { contacts: { limit: 2, periodMs: 5000 } } });
    await search(target);
    clockMs += 1000;
    await search(target);
    clockMs += 500;
    const refused = await search(target);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('4'); // 5000 - 1500 = 3500 ms
  });

  test('slots free one by one as their arrivals leave the window', async () => {
    const target = await start();
    await statuses(target, 3); // at t
    clockMs += 600;
    await statuses(target, 2); // at t+600
    clockMs += 399;
    expect((await search(target)).status).toBe(429);
    clockMs += 1; // t+1000: the three first arrivals have left
    expect(await statuses(target, 4)).toEqual([200, 200, 200, 429]);
    clockMs += 600; // t+1600: the two of t+600 have left
    expect(await statuses(target, 3)).toEqual([200, 200, 429]);
  });

  test('refused requests do not count in the window', async () => {
    const target = await start();
    await statuses(target, 5);
    clockMs += 500;
    expect(new Set(await statuses(target, 10))).toEqual(new Set([429]));
    clockMs += 500;
    expect(await statuses(target, 6)).toEqual([200, 200, 200, 200, 200, 429]);
  });

  test('contacts and messages have separate budgets', async () => {
    const target = await start({ rateLimits: { contacts: { limit: 1, periodMs: 1000 }, messages: { limit: 2, periodMs: 1000 } } });
    const [contact] = target.loadContacts(TOKEN, [{}]);
    const sendText = () => api(target, 'POST', `/v1/message/sendContent/${contact!.id}`, { json: { body: [{ type: 'text', text: 'x' }] } });
    expect((await search(target)).status).toBe(200);
    expect((await search(target)).status).toBe(429);
    expect([(await sendText()).status, (await sendText()).status, (await sendText()).status]).toEqual([200, 200, 429]);
    expect(target.messages(TOKEN)).toHaveLength(2);
  });

  test('each channel has its own budget', async () => {
    const target = await start({ channels: [{ token: TOKEN }, { token: 'other-token' }] });
    await statuses(target, 5);
    expect((await search(target)).status).toBe(429);
    expect((await search(target, 'other-token')).status).toBe(200);
  });

  test('authentication comes first: a bad token is 401 even when the budget is spent, and spends nothing', async () => {
    const target = await start();
    for (let i = 0; i < 10; i += 1) expect((await search(target, 'wrong')).status).toBe(401);
    expect(await statuses(target, 5)).toEqual([200, 200, 200, 200, 200]);
    expect((await search(target, null)).status).toBe(401);
  });

  test('the default contacts rate is 100 calls per minute', async () => {
    const target = await start({ rateLimits: undefined });
    const results = await statuses(target, 101);
    expect(results.filter((status) => status === 200)).toHaveLength(100);
    expect(results[100]).toBe(429);
    clockMs += 60_000;
    expect((await search(target)).status).toBe(200);
  });

  test('rateLimits false, or a group set to false, disables the limit', async () => {
    const target = await start({ rateLimits: false });
    expect(new Set(await statuses(target, 30))).toEqual(new Set([200]));
    await target.close();
    const noContacts = await start({ rateLimits: { contacts: false } });
    expect(new Set(await statuses(noContacts, 30))).toEqual(new Set([200]));
  });

  test('429s are counted per operation', async () => {
    const target = await start();
    await statuses(target, 7);
    expect(target.counters(TOKEN).byOperation.searchContacts).toEqual({ received: 7, rateLimited: 2, faulted: 0 });
  });
});
