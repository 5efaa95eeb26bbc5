/**
 * v2's learnt limits (issue 36), on the registry's slots with a clock the test moves: one request
 * at a time before an endpoint's first answer, then the limit the answer said; requests the
 * server counted elsewhere take slots; a 429's Retry-After pauses the endpoint; shared per
 * organisation, and through Redis across registries (processes).
 */
import { Redis } from 'ioredis';
import { LimiterRegistry } from '../../src/api/limiter.js';
import { slotsOf } from '../../src/api/limiter-slots.js';
import { RateLimiterUnavailableError } from '../../src/api/rate-limiter-unavailable-error.js';
import type { EndpointAnswer } from '../../src/api/v2/endpoint-limits.js';
import { MAX_V2_LEARNT_LIMIT, MAX_V2_WINDOW_MS, V2_REDIS_ID_PREFIX, learntWindow, organisationLimits, v2LimitsKey, type LearntLimits } from '../../src/api/v2/learnt-limits.js';
import { deleteV2LimitKeys, describeWithRedis, startPrivateRedis } from '../helpers/redis-support.js';

/** Slots held ten minutes: only the test frees them (`releaseAll`, or the registry's stop). */
const WINDOW = 600_000;
const GET = 'GET /contact/{identifier}';

/** Lets Bottleneck (which yields with 0 ms timers) and the limiter's promises run: a few timer turns. */
async function settle(): Promise<void> {
  for (let round = 0; round < 20; round += 1) await new Promise((resolve) => setTimeout(resolve, 0));
}

/** Requests the test answers by hand: which started (and when, on the test's clock), and their answers. */
class Requests {
  readonly started: string[] = [];
  readonly startedAt = new Map<string, number>();
  readonly #answers = new Map<string, (answer: EndpointAnswer) => void>();

  constructor(private readonly clock: () => number) {}

  send(limits: LearntLimits, name: string, endpoint = GET): Promise<string> {
    return limits.schedule(endpoint, () => {
      this.started.push(name);
      this.startedAt.set(name, this.clock());
      return new Promise<{ value: string; answer: EndpointAnswer }>((resolve) => {
        this.#answers.set(name, (answer) => resolve({ value: name, answer }));
      });
    });
  }

  answer(name: string, answer: EndpointAnswer): void {
    const resolve = this.#answers.get(name);
    if (resolve === undefined) throw new Error(`${name} has not started`);
    resolve(answer);
  }
}

describe('learnt limits of v2', () => {
  let clock = 0;
  const slept: number[] = [];
  let registry: LimiterRegistry;
  let requests: Requests;
  beforeEach(() => {
    clock = 0;
    slept.length = 0;
    registry = new LimiterRegistry({ now: () => clock });
    requests = new Requests(() => clock);
  });
  afterEach(() => registry.stop({ dropWaitingJobs: true }));

  const limits = (options: { organisation?: string } = {}): LearntLimits =>
    organisationLimits(registry, 'http://api.test/v2', options.organisation ?? 'acme', {
      windowMs: WINDOW,
      sleep: (ms) => {
        slept.push(ms);
        clock += ms;
        return Promise.resolve();
      },
    });

  it('sends one request at a time before the first answer, then as many as the answer said, each slot held a window', async () => {
    const v2 = limits();
    const sent = ['a', 'b', 'c', 'd', 'e'].map((name) => requests.send(v2, name));
    await settle();
    expect(requests.started).toEqual(['a']);
    expect(v2.learnt()).toEqual([]);

    requests.answer('a', { status: 200, limit: 3, remaining: 2 });
    await expect(sent[0]).resolves.toBe('a');
    await settle();
    // a holds its slot a window after its answer: 3 slots, a, b and c.
    expect(requests.started).toEqual(['a', 'b', 'c']);
    expect(v2.learnt()).toEqual([{ endpoint: GET, limit: 3, windowMs: WINDOW }]);

    requests.answer('b', { status: 200, limit: 3, remaining: 1 });
    requests.answer('c', { status: 200, limit: 3, remaining: 0 });
    await Promise.all(sent.slice(1, 3));
    await settle();
    expect(requests.started).toEqual(['a', 'b', 'c']);

    // The window passes (the test frees the slots): d and e go.
    slotsOf(v2.limiterOf(GET)!)!.releaseAll();
    await settle();
    expect(requests.started).toEqual(['a', 'b', 'c', 'd', 'e']);
    requests.answer('d', { status: 200, limit: 3, remaining: 2 });
    requests.answer('e', { status: 200, limit: 3, remaining: 1 });
    await expect(Promise.all(sent)).resolves.toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('learns each endpoint on its own: a second endpoint starts at one request again', async () => {
    const v2 = limits();
    const first = requests.send(v2, 'get');
    await settle();
    requests.answer('get', { status: 200, limit: 5, remaining: 4 });
    await first;
    const lists = ['l1', 'l2'].map((name) => requests.send(v2, name, 'POST /contact/list'));
    await settle();
    expect(requests.started).toEqual(['get', 'l1']);
    requests.answer('l1', { status: 200, limit: 2, remaining: 1 });
    await settle();
    expect(requests.started).toEqual(['get', 'l1', 'l2']);
    requests.answer('l2', { status: 200, limit: 2, remaining: 0 });
    await Promise.all(lists);
    expect(v2.learnt()).toEqual([
      { endpoint: GET, limit: 5, windowMs: WINDOW },
      { endpoint: 'POST /contact/list', limit: 2, windowMs: WINDOW },
    ]);
  });

  it('takes a slot for each request the server counted that this limiter did not make (X-RateLimit-Remaining), until a window after the answer', async () => {
    const v2 = limits();
    const sent = ['a', 'b'].map((name) => requests.send(v2, name));
    await settle();
    // The server counted 4 in its window, a among them: 3 came from elsewhere (a process before this one).
    requests.answer('a', { status: 200, limit: 4, remaining: 0 });
    await sent[0];
    await settle();
    const limiter = v2.limiterOf(GET)!;
    // a holds one of the 4 slots, the 3 counted elsewhere the others.
    expect(requests.started).toEqual(['a']);
    slotsOf(limiter)!.releaseAll();
    await settle();
    expect(requests.started).toEqual(['a', 'b']);
    requests.answer('b', { status: 200, limit: 4, remaining: 3 });
    await sent[1];
  });

  it('bounds an absurd limit (X-RateLimit-Limit 1000000000, Remaining 0): the slots and what is counted elsewhere are sized by MAX_V2_LEARNT_LIMIT, not by the claim', async () => {
    const v2 = limits();
    const sent = ['a', 'b', 'c'].map((name) => requests.send(v2, name));
    await settle();
    requests.answer('a', { status: 200, limit: 1_000_000_000, remaining: 0 });
    await sent[0];
    await settle();
    const limiter = v2.limiterOf(GET)!;
    const jobs = (): number => Object.values(limiter.counts()).reduce((sum, count) => sum + count, 0);
    const holds = (): number => slotsOf(limiter)!.held;
    expect(v2.learnt()).toEqual([{ endpoint: GET, limit: MAX_V2_LEARNT_LIMIT, windowMs: WINDOW }]);
    // a's slot and the others the server counted fill the window: b and c wait for it.
    expect(requests.started).toEqual(['a']);
    // What is kept is the requests' own jobs and holds (a's, and one for those counted elsewhere).
    expect(jobs()).toBe(3);
    expect(holds()).toBe(2);
    slotsOf(limiter)!.releaseAll();
    await settle();
    expect(requests.started).toEqual(['a', 'b', 'c']);
    requests.answer('b', { status: 200, limit: 1_000_000_000, remaining: 0 });
    requests.answer('c', { status: 200, limit: 1_000_000_000, remaining: 0 });
    await expect(Promise.all(sent)).resolves.toEqual(['a', 'b', 'c']);
    await settle();
    expect(jobs()).toBe(2);
    expect(holds()).toBe(3);
  });

  it('a claimed limit above the bound with plenty remaining takes no slot for requests counted elsewhere', async () => {
    const v2 = limits();
    const sent = ['a', 'b', 'c'].map((name) => requests.send(v2, name));
    await settle();
    // The server says 10,000 a window, 5,000 left: more than the 1,000 slots kept, so none is taken.
    requests.answer('a', { status: 200, limit: 10_000, remaining: 5_000 });
    await settle();
    expect(requests.started).toEqual(['a', 'b', 'c']);
    requests.answer('b', { status: 200, limit: 10_000, remaining: 4_999 });
    requests.answer('c', { status: 200, limit: 10_000, remaining: 4_998 });
    await expect(Promise.all(sent)).resolves.toEqual(['a', 'b', 'c']);
  });

  it('takes no slot more when the server counted only what this limiter sent', async () => {
    const v2 = limits();
    const sent = ['a', 'b', 'c'].map((name) => requests.send(v2, name));
    await settle();
    requests.answer('a', { status: 200, limit: 4, remaining: 3 });
    await settle();
    expect(requests.started).toEqual(['a', 'b', 'c']);
    requests.answer('b', { status: 200, limit: 4, remaining: 2 });
    requests.answer('c', { status: 200, limit: 4, remaining: 1 });
    await Promise.all(sent);
    expect(v2.limiterOf(GET)!.counts().EXECUTING).toBe(3);
  });

  it("obeys a 429's Retry-After: no request of the endpoint leaves before it has passed, on the limiter's clock", async () => {
    const v2 = limits();
    const sent = ['a', 'b'].map((name) => requests.send(v2, name));
    await settle();
    requests.answer('a', { status: 429, limit: 5, retryAfterMs: 3_000 });
    await settle();
    expect(requests.started).toEqual(['a', 'b']);
    expect(requests.startedAt.get('b')).toBeGreaterThanOrEqual(3_000);
    expect(slept).toEqual([3_000]);
    requests.answer('b', { status: 200, limit: 5, remaining: 4 });
    await expect(Promise.all(sent)).resolves.toEqual(['a', 'b']);
  });

  it('lets an endpoint whose successful answer says no limit go unlimited', async () => {
    const v2 = limits();
    const sent = ['a', 'b', 'c', 'd'].map((name) => requests.send(v2, name));
    await settle();
    requests.answer('a', { status: 200 });
    await settle();
    expect(requests.started).toEqual(['a', 'b', 'c', 'd']);
    for (const name of ['b', 'c', 'd']) requests.answer(name, { status: 200 });
    await Promise.all(sent);
    expect(v2.learnt()).toEqual([]);
  });

  it('keeps one request at a time after an error answer that says no limit', async () => {
    const v2 = limits();
    const sent = ['a', 'b'].map((name) => requests.send(v2, name));
    await settle();
    requests.answer('a', { status: 500 });
    await sent[0];
    await settle();
    expect(requests.started).toEqual(['a']);
    slotsOf(v2.limiterOf(GET)!)!.releaseAll();
    await settle();
    expect(requests.started).toEqual(['a', 'b']);
    requests.answer('b', { status: 200, limit: 2, remaining: 1 });
    await sent[1];
  });

  it('shares one learnt limiter per base URL host and organisation, keyed without a token', () => {
    expect(limits()).toBe(limits());
    expect(limits({ organisation: 'other' })).not.toBe(limits());
    expect(organisationLimits(registry, 'http://API.test/v2/', 'acme')).toBe(limits());
    expect(v2LimitsKey('https://api.respond.io/v2', 'Acme Ltd')).toBe('api.respond.io|Acme%20Ltd');
  });

  it('refuses to share through Redis the limits of an organisation this process already paces alone, naming the fix', () => {
    limits();
    expect(() => organisationLimits(registry, 'http://api.test/v2', 'acme', { redis: 'redis://127.0.0.1:1', redisWhere: 'connections.b.rateLimits.redis' })).toThrow(
      /connections\.b\.rateLimits\.redis: the v2 limits of organisation acme at api\.test are already paced by this process alone; give every connection of one organisation the same rateLimits\.redis/,
    );
  });

  it('refuses a ceiling that is not a rate, naming the endpoint', async () => {
    const v2 = organisationLimits(registry, 'http://api.test/v2', 'acme', { ceiling: () => ({ limit: 0, periodMs: 1_000 }) });
    await expect(v2.schedule(GET, () => Promise.resolve({ value: 1, answer: { status: 200 } }))).rejects.toThrow(/Ceiling of GET \/contact\/\{identifier\}: give a whole number/);
  });
});

describe('learnt limits of v2 with an unreachable Redis', () => {
  it('fail as on v1: ready() and a request both say RateLimiterUnavailableError, without the password', async () => {
    const registry = new LimiterRegistry({ reconnectAttempts: 1 });
    const v2 = organisationLimits(registry, 'http://api.test/v2', 'acme', { redis: 'redis://user:s3cret@127.0.0.1:1/0', redisWhere: 'connections.main.rateLimits.redis' });
    try {
      let sent = 0;
      const request = v2.schedule(GET, () => {
        sent += 1;
        return Promise.resolve({ value: 1, answer: { status: 200 } });
      });
      const [ready, scheduled] = await Promise.allSettled([registry.ready(), request]);
      for (const outcome of [ready, scheduled]) {
        expect(outcome.status).toBe('rejected');
        const error = (outcome as PromiseRejectedResult).reason as RateLimiterUnavailableError;
        expect(error).toBeInstanceOf(RateLimiterUnavailableError);
        expect(error.message).toMatch(/^connections\.main\.rateLimits\.redis: Redis at redis:\/\/127\.0\.0\.1:1\/0 did not answer/);
        expect(error.message).not.toContain('s3cret');
      }
      expect(sent).toBe(0);
    } finally {
      await registry.stop();
    }
  });
});

/**
 * Through Redis a request starts after Bottleneck's round trips, real I/O that no clock of the
 * test's moves: wait for the requests to start (bounded, generously, for a busy machine), not for
 * a time. The slots are held a window of ten minutes, so what must not start cannot start by
 * waiting; `redisTurns` only gives a wrong start its chance to show before the assertion.
 */
async function untilStarted(requests: Requests, count: number): Promise<void> {
  for (let round = 0; round < 1000 && requests.started.length < count; round += 1) await new Promise((resolve) => setTimeout(resolve, 10));
}

async function redisTurns(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 100));
}

describeWithRedis('learnt limits of v2 shared through Redis', (redisUrl) => {
  const host = `learnt-${process.pid}-${Date.now()}.test`;
  const registries: LimiterRegistry[] = [];
  afterEach(async () => {
    await Promise.all(registries.splice(0).map((each) => each.stop({ dropWaitingJobs: true })));
    await deleteV2LimitKeys(redisUrl, host);
  });

  const sharedLimits = (): LearntLimits => {
    const registry = new LimiterRegistry();
    registries.push(registry);
    return organisationLimits(registry, `http://${host}/v2`, 'acme', { redis: redisUrl, windowMs: WINDOW });
  };

  it('two registries (as two processes) share the learnt limit and its slots; the keys name the host, organisation and endpoint (no token)', async () => {
    const one = sharedLimits();
    const two = sharedLimits();
    await Promise.all(registries.map((each) => each.ready()));
    const requests = new Requests(() => 0);
    const first = requests.send(one, 'a');
    await untilStarted(requests, 1);
    expect(requests.started).toEqual(['a']);
    // Before any answer the organisation sends one request at a time, whichever process asks.
    const others = ['b', 'c', 'd'].map((name) => requests.send(two, name));
    await redisTurns();
    expect(requests.started).toEqual(['a']);
    requests.answer('a', { status: 200, limit: 3, remaining: 2 });
    await first;
    // a holds one of the 3 slots a window: two's b and c go, d waits.
    await untilStarted(requests, 3);
    await redisTurns();
    expect(requests.started).toEqual(['a', 'b', 'c']);
    requests.answer('b', { status: 200, limit: 3, remaining: 1 });
    requests.answer('c', { status: 200, limit: 3, remaining: 0 });
    await Promise.all(others.slice(0, 2));
    expect(one.learnt()).toEqual([{ endpoint: GET, limit: 3, windowMs: WINDOW }]);
    expect(two.learnt()).toEqual([{ endpoint: GET, limit: 3, windowMs: WINDOW }]);
    const client = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
    try {
      const keys = await client.keys(`*${host}*`);
      expect(keys.length).toBeGreaterThan(0);
      expect(keys.filter((key) => !key.includes(`${V2_REDIS_ID_PREFIX}|${host}|acme|learnt|${GET}`))).toEqual([]);
    } finally {
      client.disconnect();
    }
    // others[2] (d) is dropped when the registries stop.
    others[2]!.catch(() => undefined);
  });
});

describe('learnt limits of v2 whose Redis goes away', () => {
  it('refuse the next request with RateLimiterUnavailableError (lost), the answered one kept (a redis-server of its own)', async () => {
    // A Redis of this test alone, to kill.
    const redis = await startPrivateRedis();
    const registry = new LimiterRegistry({ reconnectAttempts: 1 });
    try {
      const v2 = organisationLimits(registry, 'http://lost.test/v2', 'acme', { redis: redis.url, windowMs: 50 });
      await registry.ready();
      let sent = 0;
      const attempt = (): Promise<{ value: number; answer: EndpointAnswer }> => {
        sent += 1;
        return Promise.resolve({ value: sent, answer: { status: 200, limit: 5, remaining: 4 } });
      };
      await expect(v2.schedule(GET, attempt)).resolves.toBe(1);
      await redis.kill();
      const error = await v2.schedule(GET, attempt).then(
        () => undefined,
        (failure: unknown) => failure,
      );
      expect(error).toBeInstanceOf(RateLimiterUnavailableError);
      expect((error as RateLimiterUnavailableError).phase).toBe('lost');
      expect(sent).toBe(1);
    } finally {
      await registry.stop();
      await redis.kill();
    }
  });
});

describe('the window an answer teaches (learntWindow)', () => {
  it.each<[string, number, EndpointAnswer, number]>([
    ['a 200 teaches nothing', 1_000, { status: 200, limit: 10, remaining: 3 }, 1_000],
    ['a 429 asking no more than the window teaches nothing', 1_000, { status: 429, retryAfterMs: 1_000 }, 1_000],
    ['a 429 asking longer: the window held and the wait', 1_000, { status: 429, retryAfterMs: 4_000 }, 5_000],
    ['a Retry-After on a 200 is not a 429', 1_000, { status: 200, retryAfterMs: 4_000 }, 1_000],
    ['X-RateLimit-Reset longer than the window: a window that long', 1_000, { status: 200, resetMs: 3_000 }, 3_000],
    ['X-RateLimit-Reset shorter: nothing', 5_000, { status: 200, resetMs: 3_000 }, 5_000],
    ['both: the longer', 1_000, { status: 429, retryAfterMs: 2_000, resetMs: 9_000 }, 9_000],
    ['never more than MAX_V2_WINDOW_MS', 1_000, { status: 429, retryAfterMs: 1e12 }, MAX_V2_WINDOW_MS],
    ['a window already longer than the bound stays', 2 * MAX_V2_WINDOW_MS, { status: 200, resetMs: 1 }, 2 * MAX_V2_WINDOW_MS],
    ['not a number: nothing', 1_000, { status: 429, retryAfterMs: Number.NaN, resetMs: Number.POSITIVE_INFINITY }, 1_000],
  ])('%s', (_name, windowMs, answer, expected) => {
    expect(learntWindow(windowMs, answer)).toBe(expected);
  });
});
