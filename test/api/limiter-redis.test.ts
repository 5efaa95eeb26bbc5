/** Limiters shared through Redis: one budget for every registry (process) on a token. */
import { LimiterRegistry, limiterFailure } from '../../src/api/limiter.js';
import { runInSlot } from '../../src/api/limiter-slots.js';
import { RateLimiterUnavailableError } from '../../src/api/rate-limiter-unavailable-error.js';
import { startEmulator } from '../../src/emulator/index.js';
import { deleteLimiterKeys, describeWithRedis, limiterKeys, limiterSetting } from '../helpers/redis-support.js';
import { testClient } from './support/test-client.js';

const RATE = { limit: 50, periodMs: 4_000 };

describe('LimiterRegistry with an unreachable Redis', () => {
  it('ready() throws RateLimiterUnavailableError naming where the URL is set and the URL without its password', async () => {
    const registry = new LimiterRegistry({ reconnectAttempts: 1 });
    const limiter = registry.get('http://h/api', 'token', 'contacts', RATE, {
      redis: 'redis://user:s3cret@127.0.0.1:1/0',
      redisWhere: 'connections.main.rateLimits.redis',
    });
    try {
      const failure = await registry.ready().then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(RateLimiterUnavailableError);
      const error = failure as RateLimiterUnavailableError;
      expect(error.code).toBe('RATE_LIMITER_UNAVAILABLE');
      expect(error.phase).toBe('start');
      expect(error.redis).toBe('redis://127.0.0.1:1/0');
      expect(error.message).toMatch(/^connections\.main\.rateLimits\.redis: Redis at redis:\/\/127\.0\.0\.1:1\/0 did not answer \(.*ECONNREFUSED.*\).*start Redis or fix the URL/);
      expect(error.message).not.toContain('s3cret');
      expect(error.message).not.toContain('user');
      // A schedule() refused by such a limiter reads the same through the client.
      expect(limiterFailure(limiter, new Error('Connection is closed.'))).toBeInstanceOf(RateLimiterUnavailableError);
    } finally {
      await registry.stop();
    }
  });

  it('leaves the failures of a limiter that is not shared as they are', () => {
    const registry = new LimiterRegistry();
    const limiter = registry.get('http://h/api', 'token', 'contacts', RATE);
    const error = new Error('stopped');
    expect(limiterFailure(limiter, error)).toBe(error);
    return registry.stop();
  });

  it('refuses to share a limiter through Redis that this process already paces alone, naming the fix', async () => {
    const registry = new LimiterRegistry();
    registry.get('http://h/api', 'token', 'contacts', RATE);
    expect(() => registry.get('http://h/api', 'token', 'contacts', RATE, { redis: 'redis://127.0.0.1:1', redisWhere: 'connections.b.rateLimits.redis' })).toThrow(
      /connections\.b\.rateLimits\.redis: .*paced by this process alone; give every connection with the same baseUrl and token the same rateLimits\.redis/,
    );
    await registry.stop();
  });
});

describeWithRedis('LimiterRegistry shared through Redis', (redisUrl) => {
  const registries: LimiterRegistry[] = [];
  const baseUrls: string[] = [];
  afterEach(async () => {
    await Promise.all(registries.splice(0).map((registry) => registry.stop()));
    for (const baseUrl of baseUrls.splice(0)) await deleteLimiterKeys(redisUrl, baseUrl);
  });
  const registry = (): LimiterRegistry => {
    const created = new LimiterRegistry();
    registries.push(created);
    return created;
  };

  it('keys the shared limiter by the base URL and a digest of the token, never the token', async () => {
    const baseUrl = `http://keys-${process.pid}-${Date.now()}.test/api`;
    baseUrls.push(baseUrl);
    const one = registry();
    one.get(baseUrl, 'super-secret-token', 'contacts', RATE, { redis: redisUrl });
    one.get(baseUrl, 'super-secret-token', 'messages', RATE, { redis: redisUrl });
    await one.ready();
    const keys = await limiterKeys(redisUrl, baseUrl);
    expect(keys.length).toBeGreaterThan(0);
    expect(keys.some((key) => key.includes('super-secret-token'))).toBe(false);
    const ids = new Set(keys.map((key) => key.replace(/^b_/, '').replace(/_[a-z_]+$/, '')));
    expect([...ids].sort()).toEqual([LimiterRegistry.redisId(baseUrl, 'super-secret-token', 'contacts'), LimiterRegistry.redisId(baseUrl, 'super-secret-token', 'messages')].sort());
    expect([...ids].filter((id) => !(/^contact-sync\|http:\/\/.*\/api\|[0-9a-f]{64}\|(contacts|messages)$/.test(id)))).toEqual([]);
  });

  it('keeps the strictest slots of the processes in Redis: fewer slots lower them, more do not raise them; no spacing is shared (each process spaces its own calls outside the slots)', async () => {
    const baseUrl = `http://strict-${process.pid}-${Date.now()}.test/api`;
    baseUrls.push(baseUrl);
    const id = LimiterRegistry.redisId(baseUrl, 't', 'contacts');
    const settings = async (): Promise<Array<string | null>> => [await limiterSetting(redisUrl, id, 'maxConcurrent'), await limiterSetting(redisUrl, id, 'minTime')];
    const first = registry();
    first.get(baseUrl, 't', 'contacts', { limit: 100, periodMs: 60_000 }, { redis: redisUrl });
    await first.ready();
    expect(await settings()).toEqual(['100', '0']);
    const stricter = registry();
    stricter.get(baseUrl, 't', 'contacts', { limit: 50, periodMs: 60_000 }, { redis: redisUrl });
    await stricter.ready();
    expect(await settings()).toEqual(['50', '0']);
    const looser = registry();
    looser.get(baseUrl, 't', 'contacts', { limit: 200, periodMs: 60_000 }, { redis: redisUrl });
    await looser.ready();
    expect(await settings()).toEqual(['50', '0']);
  });

  it('leaves the slots of a process that stops taken in Redis until their expiry, so that other processes stay within its last window', async () => {
    const baseUrl = `http://held-${process.pid}-${Date.now()}.test/api`;
    baseUrls.push(baseUrl);
    const id = LimiterRegistry.redisId(baseUrl, 't', 'contacts');
    const one = new LimiterRegistry();
    const limiter = one.get(baseUrl, 't', 'contacts', { limit: 5, periodMs: 600_000 }, { redis: redisUrl });
    await one.ready();
    await runInSlot(limiter, () => Promise.resolve('answered'), 1_000);
    // A ten-minute window: this stop returns within the test's time only if it does not wait for the holds.
    await one.stop();
    expect(await limiterSetting(redisUrl, id, 'running')).toBe('1');
  });

  it('60 calls from two registries (as two processes would) on one token meet no 429 from a server enforcing the same limit', async () => {
    const emulator = await startEmulator({ rateLimits: { contacts: RATE, messages: false } });
    baseUrls.push(emulator.url);
    try {
      const [stored] = emulator.loadContacts('demo-token', [{}]);
      // Separate registries share no memory: only Redis can space their calls.
      const clients = [registry(), registry()].map((each) =>
        testClient({
          baseUrl: emulator.url,
          limiters: {
            contacts: each.get(emulator.url, 'demo-token', 'contacts', RATE, { redis: redisUrl }),
            messages: each.get(emulator.url, 'demo-token', 'messages', RATE, { redis: redisUrl }),
          },
          retry: { limit: 0 },
        }),
      );
      await Promise.all(registries.map((each) => each.ready()));
      // Warm the connection with a call the emulator refuses before counting (401).
      await testClient({ baseUrl: emulator.url, token: 'unknown-token' }).getContact('1').catch(() => undefined);
      await Promise.all(Array.from({ length: 60 }, (_, i) => clients[i % 2]!.getContact(stored!.id)));
      const counters = emulator.counters('demo-token');
      expect(counters.total.received).toBe(60);
      expect(counters.total.rateLimited).toBe(0);
    } finally {
      await emulator.close();
    }
  });
});
