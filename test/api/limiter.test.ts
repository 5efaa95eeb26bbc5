/** One limiter per (base URL, token, group), evenly spaced, shared by every client of a token. */
import { LimiterRegistry, paceFor } from '../../src/api/limiter.js';
import Bottleneck from 'bottleneck';
import { attachSlots, LimiterSlots, runInSlot, slotsOf } from '../../src/api/limiter-slots.js';
import { RateLimitedError } from '../../src/api/errors.js';
import { startEmulator } from '../../src/emulator/index.js';
import { testClient, unlimitedLimiters } from './support/test-client.js';

const RATE = { limit: 50, periodMs: 4_000 };

describe('LimiterRegistry', () => {
  let registry: LimiterRegistry;
  beforeEach(() => {
    registry = new LimiterRegistry();
  });
  afterEach(() => registry.stop());

  it('spaces calls by 3/4 of window / limit rounded down to a whole millisecond once the first window is spaced (the slots keep the limit)', () => {
    expect(paceFor({ limit: 100, periodMs: 60_000 })).toBe(450);
    expect(paceFor({ limit: 6_000, periodMs: 60_000 })).toBe(7);
    expect(paceFor({ limit: 25, periodMs: 1_000 })).toBe(30);
    expect(paceFor({ limit: 30, periodMs: 1_000 })).toBe(25);
    expect(paceFor({ limit: 100_000, periodMs: 1_000 })).toBe(0);
  });

  it('gives a call its answer at once and keeps its slot taken: with 2 slots a third call waits', async () => {
    // Bottleneck without spacing, so that only the slots decide.
    const limiter = new Bottleneck({ maxConcurrent: 2, minTime: 0 });
    const slots = attachSlots(limiter, new LimiterSlots(600_000, 0, false));
    await expect(runInSlot(limiter, () => Promise.resolve('first'), 1_000)).resolves.toBe('first');
    await expect(runInSlot(limiter, () => Promise.reject(new Error('second failed')), 1_000)).rejects.toThrow('second failed');
    let thirdStarted = false;
    const third = runInSlot(
      limiter,
      () => {
        thirdStarted = true;
        return Promise.resolve('third');
      },
      1_000,
    );
    // Both slots are held (a failed call holds its slot too): the third stays queued.
    await new Promise((resolve) => setImmediate(resolve));
    expect([slots.held, limiter.counts().EXECUTING, thirdStarted]).toEqual([2, 2, false]);
    // Freed slots let it start.
    slots.releaseAll();
    await expect(third).resolves.toBe('third');
    slots.releaseAll();
    await limiter.stop();
  });

  it('gives slots that come back together at once to the calls that had their turn: the spacing is waited before a slot, never again after it', async () => {
    let clock = 0;
    // Slots held ten minutes and calls spaced ten minutes, on a clock the test moves.
    const limiter = new Bottleneck({ maxConcurrent: 3, minTime: 0 });
    const slots = attachSlots(limiter, new LimiterSlots(600_000, 600_000, false, () => clock));
    const run = (name: string): Promise<string> => runInSlot(limiter, () => Promise.resolve(name), 1_000);
    for (const name of ['a', 'b', 'c']) {
      await expect(run(name)).resolves.toBe(name);
      clock += 600_000;
    }
    // Three more calls whose turns have come; all three slots are held.
    const started: string[] = [];
    const waiting = ['d', 'e', 'f'].map((name) => {
      clock += 600_000;
      return runInSlot(limiter, () => (started.push(name), Promise.resolve(name)), 1_000);
    });
    // Wait (bounded) until the three calls have had their turns and queue for a slot, however busy the machine.
    for (let tries = 0; tries < 500 && (slots.waitingForTurn > 0 || limiter.counts().QUEUED < 3); tries++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect([slots.waitingForTurn, slots.held, started]).toEqual([0, 3, []]);
    // The three slots come back together (the clock stands still): the three calls start at once.
    slots.releaseAll();
    await expect(Promise.all(waiting)).resolves.toEqual(['d', 'e', 'f']);
    expect(started).toEqual(['d', 'e', 'f']);
    slots.releaseAll();
    await limiter.stop();
  });

  it('makes calls wait for their turn (window / limit apart in a first window) before they ask for a slot, and drops those waiting when the limiter stops', async () => {
    // Spaced five minutes: only the first call's turn comes within the test.
    const limiter = registry.get('http://h/api', 't', 'contacts', { limit: 2, periodMs: 600_000 });
    await expect(runInSlot(limiter, () => Promise.resolve('first'), 1_000)).resolves.toBe('first');
    let ran = 0;
    const later = [1, 2].map(() => runInSlot(limiter, () => (ran++, Promise.resolve('later')), 1_000));
    expect(slotsOf(limiter)?.waitingForTurn).toBe(2);
    await registry.stop({ dropWaitingJobs: true });
    const outcomes = await Promise.allSettled(later);
    expect(outcomes.map((outcome) => (outcome.status === 'rejected' ? String((outcome.reason as Error).message) : outcome.status))).toEqual([
      'This limiter has been stopped.',
      'This limiter has been stopped.',
    ]);
    expect([ran, slotsOf(limiter)?.waitingForTurn]).toEqual([0, 0]);
    await expect(runInSlot(limiter, () => Promise.resolve('after'), 1_000)).rejects.toThrow('This limiter has been stopped.');
  });

  it('runs the calls waiting for their turn before a stop that keeps waiting jobs returns', async () => {
    // 4 slots of a 200 ms window: turns 50 ms apart.
    const limiter = registry.get('http://h/api', 't', 'contacts', { limit: 4, periodMs: 200 });
    const calls = [1, 2, 3, 4].map((i) => runInSlot(limiter, () => Promise.resolve(i), 1_000));
    expect(slotsOf(limiter)?.waitingForTurn).toBe(3);
    await registry.stop();
    await expect(Promise.all(calls)).resolves.toEqual([1, 2, 3, 4]);
  });

  it('frees the slots this process holds when it stops (a ten-minute window does not delay the stop)', async () => {
    const limiter = registry.get('http://h/api', 't', 'contacts', { limit: 2, periodMs: 600_000 });
    await expect(runInSlot(limiter, () => Promise.resolve('first'), 1_000)).resolves.toBe('first');
    expect(slotsOf(limiter)?.held).toBe(1);
    await registry.stop();
    expect(slotsOf(limiter)?.held).toBe(0);
  });

  it('keeps the strictest of two rates asked on one key: the fewest slots, held the longest window', () => {
    const limiter = registry.get('http://h/api', 't', 'contacts', { limit: 100, periodMs: 60_000 });
    registry.get('http://h/api', 't', 'contacts', { limit: 50, periodMs: 30_000 });
    registry.get('http://h/api', 't', 'contacts', { limit: 200, periodMs: 60_000 });
    expect(slotsOf(limiter)?.holdMs).toBe(60_000);
    expect(slotsOf(limiter)?.paceMs).toBe(900);
    expect(slotsOf(limiter)?.rampMs).toBe(1_200);
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
