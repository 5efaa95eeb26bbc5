/**
 * v2's limits: per organisation and per endpoint (method and path template), a strict sliding
 * window; every answer past authentication carries X-RateLimit-Limit and X-RateLimit-Remaining,
 * and a 429 carries Retry-After in seconds.
 */
import type { EmulatorOptions, RunningEmulator } from '../../../src/emulator/index.js';
import { V2_ENDPOINTS } from '../../../src/emulator/index.js';
import { startV2Emulator, v2 } from './v2-http.js';

let emulator: RunningEmulator | undefined;
let clockMs = 1_000_000;
async function start(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  clockMs = 1_000_000;
  emulator = await startV2Emulator({ now: () => clockMs, rateLimits: { v2: { limit: 3, periodMs: 1000 } }, ...options });
  return emulator;
}
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

const limits = (answer: { headers: Headers }) => [answer.headers.get('x-ratelimit-limit'), answer.headers.get('x-ratelimit-remaining')];

describe('v2 rate limits', () => {
  test('each answer says the limit and what is left; the one over it is 429 {code, message} with Retry-After', async () => {
    const target = await start();
    const answers = [];
    for (let i = 0; i < 3; i += 1) answers.push(await v2(target, 'GET', `/contact/id:${i + 1}`));
    // 404s (no such contact) count and carry the headers as well.
    expect(answers.map((answer) => answer.status)).toEqual([404, 404, 404]);
    expect(answers.map(limits)).toEqual([['3', '2'], ['3', '1'], ['3', '0']]);
    clockMs += 250;
    const refused = await v2(target, 'GET', '/contact/email:ann@example.com');
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ code: 429, message: 'Too many requests' });
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(limits(refused)).toEqual(['3', '0']);
    clockMs += 750; // the first arrivals leave the window
    const again = await v2(target, 'GET', '/contact/id:1');
    expect(again.status).toBe(404);
    expect(limits(again)).toEqual(['3', '2']);
  });

  test('Retry-After is the wait until a slot frees, rounded up to whole seconds', async () => {
    const target = await start({ rateLimits: { v2: { limit: 1, periodMs: 5000 } } });
    await v2(target, 'GET', '/contact/id:1');
    clockMs += 1500;
    expect((await v2(target, 'GET', '/contact/id:1')).headers.get('retry-after')).toBe('4');
  });

  test('each endpoint has its own budget: a spent GET leaves the list and the tag calls their own', async () => {
    const target = await start();
    for (let i = 0; i < 3; i += 1) await v2(target, 'GET', '/contact/id:1');
    expect((await v2(target, 'GET', '/contact/id:1')).status).toBe(429);
    const listed = await v2(target, 'POST', '/contact/list', { json: { search: '', timezone: 'UTC', filter: { $and: [] } } });
    expect(listed.status).toBe(200);
    expect(limits(listed)).toEqual(['3', '2']);
    expect(limits(await v2(target, 'POST', '/contact/id:1/tag', { json: ['a'] }))).toEqual(['3', '2']);
  });

  test('the budget is the organisation\'s: two workspace tokens spend one budget', async () => {
    const target = await start({ workspaceTokens: ['token-a', 'token-b'] });
    await v2(target, 'GET', '/contact/id:1', { token: 'token-a' });
    await v2(target, 'GET', '/contact/id:1', { token: 'token-b' });
    await v2(target, 'GET', '/contact/id:1', { token: 'token-a' });
    expect((await v2(target, 'GET', '/contact/id:1', { token: 'token-b' })).status).toBe(429);
  });

  test('the counters hold per endpoint what was received, refused, and the most in any window', async () => {
    const target = await start();
    for (let i = 0; i < 5; i += 1) await v2(target, 'GET', '/contact/id:1');
    const counters = target.v2Counters();
    expect(counters.byEndpoint[V2_ENDPOINTS.getContact.name]).toEqual({ received: 5, rateLimited: 2, faulted: 0 });
    expect(counters.mostInAnyWindow[V2_ENDPOINTS.getContact.name]).toBe(5);
    expect(counters.total).toEqual({ received: 5, rateLimited: 2, faulted: 0 });
  });

  test('a 401 counts nothing and carries no limit; with limits off no header is sent', async () => {
    const target = await start();
    const refused = await v2(target, 'GET', '/contact/id:1', { token: 'wrong' });
    expect(refused.status).toBe(401);
    expect(limits(refused)).toEqual([null, null]);
    expect(target.v2Counters().total.received).toBe(0);
    await target.close();
    emulator = await startV2Emulator({ rateLimits: { v2: false } });
    expect(limits(await v2(emulator, 'GET', '/contact/id:1'))).toEqual([null, null]);
  });

  test('the default is 5 a second per endpoint (unverified)', async () => {
    emulator = await startV2Emulator({ now: () => clockMs, rateLimits: {} });
    expect(limits(await v2(emulator, 'GET', '/contact/id:1'))).toEqual(['5', '4']);
  });
});
