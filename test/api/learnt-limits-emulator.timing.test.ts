/**
 * v2's learnt limits against the emulator's v2 surface (an organisation's strict window per
 * endpoint, answered with X-RateLimit-Limit, X-RateLimit-Remaining and a 429's Retry-After):
 * counted by the server (429s, the most requests that reached its check in any window) and by
 * the starts of the requests per window. Real time: slots are held a window after each answer.
 */
import { performance } from 'node:perf_hooks';
import { LimiterRegistry } from '../../src/api/limiter.js';
import { parseRetryAfter } from '../../src/api/retry-after.js';
import type { EndpointAnswer } from '../../src/api/v2/endpoint-limits.js';
import { organisationLimits, type LearntLimits } from '../../src/api/v2/learnt-limits.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import type { Rate } from '../../src/limits.js';
import { deleteV2LimitKeys, describeWithRedis } from '../helpers/redis-support.js';

const TOKEN = 'ws-token-learnt-limits';
const RATE: Rate = { limit: 10, periodMs: 1_000 };
const GET = 'GET /contact/{identifier}';
/** The steady windows the share is counted over, after the first window past the first answer. */
const STEADY_WINDOWS = 3;

/** What the test saw of its requests: when each left (this process's clock), their statuses. */
class Sent {
  readonly startedAt: number[] = [];
  readonly statuses: number[] = [];
  firstAnswerAt: number | undefined;

  /** One GET of an unknown contact (404 after the rate check), sent at once: the tiny attempt. */
  async get(emulator: RunningEmulator): Promise<{ value: number; answer: EndpointAnswer }> {
    this.startedAt.push(performance.now());
    const response = await fetch(`${emulator.v2Url}/contact/email:nobody@example.com`, { headers: { authorization: `Bearer ${TOKEN}` } });
    await response.arrayBuffer();
    this.firstAnswerAt ??= performance.now();
    this.statuses.push(response.status);
    const number = (name: string): number | undefined => {
      const value = response.headers.get(name);
      return value === null ? undefined : Number(value);
    };
    const retryAfterMs = parseRetryAfter(response.headers.get('retry-after') ?? undefined, Date.now());
    const answer: EndpointAnswer = {
      status: response.status,
      ...(number('x-ratelimit-limit') === undefined ? {} : { limit: number('x-ratelimit-limit') }),
      ...(number('x-ratelimit-remaining') === undefined ? {} : { remaining: number('x-ratelimit-remaining') }),
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    };
    return { value: response.status, answer };
  }

  through(limits: LearntLimits, emulator: RunningEmulator): Promise<number> {
    return limits.schedule(GET, () => this.get(emulator));
  }

  /** Requests started in the steady windows: from one window after the first answer, `windows` long. */
  startedInSteadyWindows(windowMs: number, windows: number): number {
    const from = this.firstAnswerAt! + windowMs;
    return this.startedAt.filter((at) => at >= from && at < from + windows * windowMs).length;
  }
}

describe('learnt limits against the emulator', () => {
  let emulator: RunningEmulator;
  let registry: LimiterRegistry;
  beforeEach(async () => {
    emulator = await startEmulator({ workspaceTokens: [TOKEN], rateLimits: { v2: RATE } });
    registry = new LimiterRegistry();
  });
  afterEach(async () => {
    await registry.stop();
    await emulator.close();
  });

  it('60 requests: after the first answer no 429, never more than the limit in a window, and at least 0.9 of the learnt limit used', async () => {
    const limits = organisationLimits(registry, emulator.v2Url, 'acme');
    const sent = new Sent();
    const statuses = await Promise.all(Array.from({ length: 60 }, () => sent.through(limits, emulator)));
    const counters = emulator.v2Counters();
    expect([statuses.length, statuses.filter((status) => status === 429).length, counters.total.rateLimited]).toEqual([60, 0, 0]);
    expect(counters.mostInAnyWindow[GET]).toBeLessThanOrEqual(RATE.limit);
    expect(limits.learnt()).toEqual([{ endpoint: GET, limit: RATE.limit, windowMs: 1_000 }]);
    expect(sent.startedInSteadyWindows(1_000, STEADY_WINDOWS)).toBeGreaterThanOrEqual(0.9 * RATE.limit * STEADY_WINDOWS);
  });

  it('after a process that spent most of the window (X-RateLimit-Remaining), 30 requests meet no 429 and the server never sees more than the limit', async () => {
    const before = new Sent();
    // Another process, just before: 8 requests of the window's 10.
    await Promise.all(Array.from({ length: 8 }, () => before.get(emulator)));
    const limits = organisationLimits(registry, emulator.v2Url, 'acme');
    const sent = new Sent();
    await Promise.all(Array.from({ length: 30 }, () => sent.through(limits, emulator)));
    const counters = emulator.v2Counters();
    expect([counters.total.received, counters.total.rateLimited]).toEqual([38, 0]);
    expect(counters.mostInAnyWindow[GET]).toBeLessThanOrEqual(RATE.limit);
  });

  it("obeys a 429's Retry-After: only the first request (before any answer) meets one", async () => {
    const before = new Sent();
    await Promise.all(Array.from({ length: 10 }, () => before.get(emulator)));
    const limits = organisationLimits(registry, emulator.v2Url, 'acme');
    const sent = new Sent();
    await Promise.all(Array.from({ length: 15 }, () => sent.through(limits, emulator)));
    expect(sent.statuses[0]).toBe(429);
    expect(sent.statuses.filter((status) => status === 429)).toHaveLength(1);
    expect(emulator.v2Counters().total.rateLimited).toBe(1);
  });

  it('never exceeds a configured ceiling below the learnt limit', async () => {
    const ceiling: Rate = { limit: 4, periodMs: 1_000 };
    const limits = organisationLimits(registry, emulator.v2Url, 'acme', { ceiling: () => ceiling });
    const sent = new Sent();
    await Promise.all(Array.from({ length: 14 }, () => sent.through(limits, emulator)));
    const counters = emulator.v2Counters();
    expect([counters.total.received, counters.total.rateLimited]).toEqual([14, 0]);
    expect(counters.mostInAnyWindow[GET]).toBeLessThanOrEqual(ceiling.limit);
    expect(limits.learnt()).toEqual([{ endpoint: GET, limit: RATE.limit, windowMs: 1_000 }]);
  });
});

describeWithRedis('learnt limits shared through Redis against the emulator', (redisUrl) => {
  let emulator: RunningEmulator;
  const registries: LimiterRegistry[] = [];
  beforeEach(async () => {
    emulator = await startEmulator({ workspaceTokens: [TOKEN], rateLimits: { v2: RATE } });
  });
  afterEach(async () => {
    await Promise.all(registries.splice(0).map((registry) => registry.stop()));
    await emulator.close();
    await deleteV2LimitKeys(redisUrl, new URL(emulator.v2Url).host);
  });

  it('two registries (as two processes) of one organisation: 60 requests, no 429, never more than the limit in a window, at least 0.9 of it used', async () => {
    const limits = [new LimiterRegistry(), new LimiterRegistry()].map((registry) => {
      registries.push(registry);
      return organisationLimits(registry, emulator.v2Url, 'acme', { redis: redisUrl });
    });
    await Promise.all(registries.map((registry) => registry.ready()));
    const sent = new Sent();
    const statuses = await Promise.all(Array.from({ length: 60 }, (_, index) => sent.through(limits[index % 2]!, emulator)));
    const counters = emulator.v2Counters();
    expect([statuses.length, counters.total.rateLimited]).toEqual([60, 0]);
    expect(counters.mostInAnyWindow[GET]).toBeLessThanOrEqual(RATE.limit);
    expect(sent.startedInSteadyWindows(1_000, STEADY_WINDOWS)).toBeGreaterThanOrEqual(0.9 * RATE.limit * STEADY_WINDOWS);
  });
});
