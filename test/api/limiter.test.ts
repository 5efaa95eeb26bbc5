/** One limiter per (base URL, token, group), evenly spaced, shared by every client of a token. */
import { LimiterRegistry, minTimeFor } from '../../src/api/limiter.js';
import { RateLimitedError } from '../../src/api/errors.js';
import { startEmulator } from '../../src/emulator/index.js';
import { testClient, unlimitedLimiters } from './support/test-client.js';

/**
 * 50 per 4 s rather than per second: the 2% margin is then 80 ms a window instead of 20, which
 * the arrival jitter of a loaded test machine stays under (client and server share one event
 * loop, and other test files run beside it on two cores: 40 ms was not always enough).
 */
const RATE = { limit: 50, periodMs: 4_000 };

describe('LimiterRegistry', () => {
  let registry: LimiterRegistry;
  beforeEach(() => {
    registry = new LimiterRegistry();
  });
  afterEach(() => registry.stop());

  it('spaces requests by (periodMs + a 2% margin, at least 100 ms) / limit, not rounded up (a rounding would waste budget at high rates)', () => {
    expect(minTimeFor({ limit: 100, periodMs: 60_000 })).toBeCloseTo(612, 6);
    expect(minTimeFor({ limit: 6_000, periodMs: 60_000 })).toBeCloseTo(10.2, 6);
    expect(minTimeFor({ limit: 25, periodMs: 1_000 })).toBeCloseTo(44, 6);
    expect(minTimeFor({ limit: 30, periodMs: 1_000 })).toBeCloseTo(1100 / 30, 6);
  });

  it('returns one limiter per base URL, token and group', () => {
    const one = registry.get('http://h/api', 'token-a', 'contacts', RATE);
    expect(registry.get('http://h/api/', 'token-a', 'contacts', RATE)).toBe(one);
    expect(registry.get('http://h/api', 'token-b', 'contacts', RATE)).not.toBe(one);
    expect(registry.get('http://h/api', 'token-a', 'messages', RATE)).not.toBe(one);
    expect(registry.get('http://other/api', 'token-a', 'contacts', RATE)).not.toBe(one);
    expect(registry.size).toBe(4);
  });

  it('keys limiters by a digest of the token, never its text', () => {
    const key = LimiterRegistry.key('http://h/api', 'super-secret-token', 'contacts');
    expect(key).not.toContain('super-secret-token');
    expect(key).toMatch(/^http:\/\/h\/api\|[0-9a-f]{64}\|contacts$/);
  });

  it('refuses a rate that is not a positive whole limit over a positive period, naming it', () => {
    expect(() => registry.get('http://h/api', 't', 'contacts', { limit: 0, periodMs: 1_000 })).toThrow(/`limit`.*got `0`/);
    expect(() => registry.get('http://h/api', 't', 'messages', { limit: 5, periodMs: -1 })).toThrow(/messages.*`periodMs`.*got `-1`/);
  });

  it('drops queued jobs on stop({dropWaitingJobs: true})', async () => {
    const limiter = registry.get('http://h/api', 't', 'contacts', { limit: 1, periodMs: 60_000 });
    const first = limiter.schedule(() => Promise.resolve('ran'));
    const queued = limiter.schedule(() => Promise.resolve('ran'));
    await expect(first).resolves.toBe('ran');
    await registry.stop({ dropWaitingJobs: true });
    await expect(queued).rejects.toThrow();
    expect(registry.size).toBe(0);
  });
});

describe('client-side limit against a server enforcing the same limit', () => {
  it('60 calls from two clients sharing one limiter of 50 per 4 s meet no 429 from a server enforcing exactly that', async () => {
    const emulator = await startEmulator({ rateLimits: { contacts: RATE, messages: false } });
    const registry = new LimiterRegistry();
    try {
      const [stored] = emulator.loadContacts('demo-token', [{}]);
      const limiters = () => ({
        contacts: registry.get(emulator.url, 'demo-token', 'contacts', RATE),
        messages: registry.get(emulator.url, 'demo-token', 'messages', RATE),
      });
      const first = testClient({ baseUrl: emulator.url, limiters: limiters(), retry: { limit: 0 } });
      const second = testClient({ baseUrl: emulator.url, limiters: limiters(), retry: { limit: 0 } });
      expect(registry.size).toBe(2);
      // Warm the connection and code paths with a call the emulator refuses before counting it
      // (401): a first request's cold start would otherwise delay its arrival by tens of ms.
      await testClient({ baseUrl: emulator.url, token: 'unknown-token' }).getContact('1').catch(() => undefined);
      const calls = Array.from({ length: 60 }, (_, i) => (i % 2 === 0 ? first : second).getContact(stored!.id));
      await Promise.all(calls);
      const counters = emulator.counters('demo-token');
      expect(counters.total.received).toBe(60);
      expect(counters.total.rateLimited).toBe(0);
    } finally {
      await registry.stop();
      await emulator.close();
    }
  });

  it('without the shared limiter the same burst is refused (control)', async () => {
    const emulator = await startEmulator({ rateLimits: { contacts: RATE, messages: false } });
    try {
      const [stored] = emulator.loadContacts('demo-token', [{}]);
      const client = testClient({ baseUrl: emulator.url, limiters: unlimitedLimiters(), retry: { limit: 0 } });
      const results = await Promise.allSettled(Array.from({ length: 60 }, () => client.getContact(stored!.id)));
      const refused = results.filter((r) => r.status === 'rejected' && r.reason instanceof RateLimitedError);
      expect(refused.length).toBeGreaterThan(0);
      expect(emulator.counters('demo-token').total.rateLimited).toBe(refused.length);
    } finally {
      await emulator.close();
    }
  });
});
