/**
 * The goals of issue 14, measured: the product's limiter (slots held one window after each
 * answer) next to the old spacing (bench/old-start-spacing.ts), each on its own channel of an
 * emulator with a strict sliding window, with and without network delay on the way in (the
 * emulator's `inboundJitter`, waited before its rate check). The server counts: 429s, and the
 * most calls that reached its check in any window. Budget used is over the steady part of a
 * run: accepted calls from one window after the first call to the end, over what the limit
 * allows in that time (the first window holds no answer-bound wait, so it is left out).
 */
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import Bottleneck from 'bottleneck';
import { Redis } from 'ioredis';
import { ApiClient, type ApiLimiters } from '../src/api/v1/client.js';
import { LimiterRegistry } from '../src/api/limiter.js';
import { startEmulator, type LatencyRange, type RunningEmulator } from '../src/emulator/index.js';
import type { ApiGroup, Rate } from '../src/limits.js';
import { oldMinTimeFor, StartSpacing } from './old-start-spacing.js';

export type LimiterKind = 'slots' | 'old spacing';

export interface LimiterCase {
  id: string;
  title: string;
  group: ApiGroup;
  rate: Rate;
  jitter?: LatencyRange;
  /** Two limiters sharing the limit through Redis, as two processes would. */
  redis: boolean;
  /** How long callers keep the limiter busy, in milliseconds. */
  runMs: number;
  /** The least budget use of the goals; undefined where the goal is no 429 only. */
  target?: number;
}

export interface LimiterFigures {
  kind: LimiterKind;
  calls: number;
  rateLimited: number;
  mostInAnyWindow: number;
  /** Accepted calls over allowed, from one window after the first call to the end. */
  budgetUsed: number;
  /**
   * The mean time from a call's start to its answer, as the client measured it (its debug line's
   * `ms`): the delay in, the server's work and this process's own lateness in handling the answer.
   * A slot waits for it, so it, not the nominal delay, bounds the budget.
   */
  meanAnswerMs: number;
}

export interface LimiterCaseResult {
  case: LimiterCase;
  /** The most budget any limiter that waits for answers can use: window / (window + mean way in). */
  theory: number;
  /**
   * The process's mean event-loop delay during the case, in ms (perf_hooks): how late its timers
   * and answers were handled. Near 0 on an idle machine; on a loaded one, the load's share.
   */
  loopDelayMs: number;
  figures: LimiterFigures[];
}

export interface LimiterBenchResults {
  cases: LimiterCaseResult[];
  /** Why Redis cases are missing, when they are. */
  redisSkipped?: string;
}

const JITTER: LatencyRange = { minMs: 0, maxMs: 400 };
/** Callers per limiter: more than the calls in flight at once, so that the limiter is the bound. */
const CALLERS = 16;

export function limiterCases(scale: number): LimiterCase[] {
  const s = (ms: number): number => Math.round(ms * scale);
  const cases: LimiterCase[] = [
    // The window of the platform's 100/min; 600 a minute so that the run is not an hour long:
    // the cost of waiting for answers is latency / window, whatever the limit.
    { id: 'A', title: 'one-minute window, 600/min, no delay', group: 'contacts', rate: { limit: 600, periodMs: 60_000 }, redis: false, runMs: s(90_000), target: 0.99 },
    { id: 'B', title: '20/s, no delay', group: 'contacts', rate: { limit: 20, periodMs: 1_000 }, redis: false, runMs: s(12_000), target: 0.97 },
    { id: 'C', title: '20 per 2 s (10/s), 0 to 400 ms delay in', group: 'contacts', rate: { limit: 20, periodMs: 2_000 }, jitter: JITTER, redis: false, runMs: s(30_000), target: 0.88 },
    { id: 'D', title: '25 messages/s, no delay', group: 'messages', rate: { limit: 25, periodMs: 1_000 }, redis: false, runMs: s(12_000), target: 0.97 },
    { id: 'E', title: '25 messages/s, 0 to 400 ms delay in', group: 'messages', rate: { limit: 25, periodMs: 1_000 }, jitter: JITTER, redis: false, runMs: s(12_000) },
    { id: 'F', title: 'Redis, 2 processes, 20/s, no delay', group: 'contacts', rate: { limit: 20, periodMs: 1_000 }, redis: true, runMs: s(12_000), target: 0.97 },
    { id: 'G', title: 'Redis, 2 processes, 20 per 2 s, 0 to 400 ms delay in', group: 'contacts', rate: { limit: 20, periodMs: 2_000 }, jitter: JITTER, redis: true, runMs: s(30_000), target: 0.88 },
    { id: 'H', title: 'Redis, 2 processes, 25 messages/s, no delay', group: 'messages', rate: { limit: 25, periodMs: 1_000 }, redis: true, runMs: s(12_000), target: 0.97 },
  ];
  // A steady part needs more than the first window.
  return cases.map((spec) => ({ ...spec, runMs: Math.max(spec.runMs, spec.rate.periodMs * 1.5) }));
}

interface Lane {
  limiters: ApiLimiters[];
  stop: () => Promise<void>;
}

/** One limiter of each group per "process"; `redis` shares them. */
async function lane(kind: LimiterKind, spec: LimiterCase, url: string, token: string, redisUrl: string | undefined): Promise<Lane> {
  const processes = spec.redis ? 2 : 1;
  if (kind === 'slots') {
    const registries = Array.from({ length: processes }, () => new LimiterRegistry());
    const options = spec.redis && redisUrl !== undefined ? { redis: redisUrl } : {};
    const limiters = registries.map((registry) => ({
      contacts: registry.get(url, token, 'contacts', spec.rate, options),
      messages: registry.get(url, token, 'messages', spec.rate, options),
    }));
    await Promise.all(registries.map((registry) => registry.ready()));
    return { limiters, stop: async () => void (await Promise.all(registries.map((registry) => registry.stop({ dropWaitingJobs: true })))) };
  }
  const minTime = oldMinTimeFor(spec.rate);
  const made: Bottleneck[] = [];
  const id = `bench-old|${process.pid}|${token}|${Date.now()}`;
  const old = (group: ApiGroup): Bottleneck => {
    if (spec.redis && redisUrl !== undefined) {
      // Shared, it rounded its spacing up: Bottleneck's Redis scripts stall on fractions.
      const limiter = new Bottleneck({ id: `${id}|${group}`, datastore: 'ioredis', clientOptions: redisUrl, minTime: Math.ceil(minTime), maxConcurrent: null, timeout: 120_000 });
      made.push(limiter);
      return limiter;
    }
    const limiter = new Bottleneck({ minTime, maxConcurrent: null });
    made.push(limiter);
    const spacing = new StartSpacing(minTime);
    // What the client did with it: reserve the start inside the scheduled job.
    return { schedule: (fn: () => Promise<unknown>) => limiter.schedule(async () => (await spacing.reserve(), fn())) } as unknown as Bottleneck;
  };
  const limiters = Array.from({ length: processes }, () => ({ contacts: old('contacts'), messages: old('messages') }));
  await Promise.all(made.map((limiter) => limiter.ready()));
  return {
    limiters,
    stop: async () => {
      await Promise.all(made.map((limiter) => limiter.stop({ dropWaitingJobs: true }).catch(() => undefined)));
      await Promise.all(made.map((limiter) => limiter.disconnect().catch(() => undefined)));
    },
  };
}

function accepted(emulator: RunningEmulator, token: string): number {
  const total = emulator.counters(token).total;
  return total.received - total.rateLimited;
}

async function runLane(emulator: RunningEmulator, spec: LimiterCase, kind: LimiterKind, token: string, redisUrl: string | undefined): Promise<LimiterFigures> {
  const [contact] = emulator.loadContacts(token, [{}]);
  const { limiters, stop } = await lane(kind, spec, emulator.url, token, redisUrl);
  // Each request's time to its answer, from the client's own debug line.
  const answers = { count: 0, totalMs: 0 };
  const ignore = (): void => undefined;
  const logger = {
    debug: (fields: Record<string, unknown>) => {
      if (typeof fields.ms !== 'number') return;
      answers.count += 1;
      answers.totalMs += fields.ms;
    },
    info: ignore,
    warn: ignore,
    error: ignore,
  };
  const clients = limiters.map((each) => new ApiClient({ baseUrl: emulator.url, token, limiters: each, retry: { limit: 0 }, timeoutMs: 10_000, logger }));
  emulator.resetCounters(token);
  const started = performance.now();
  const deadline = started + spec.runMs;
  let atOneWindow: { at: number; calls: number } | undefined;
  const sampler = (async () => {
    await delay(spec.rate.periodMs);
    atOneWindow = { at: performance.now(), calls: accepted(emulator, token) };
  })();
  const call = (client: ApiClient, i: number): Promise<unknown> => (spec.group === 'contacts' ? client.getContact(contact!.id) : client.sendText(contact!.id, `bench ${i}`));
  let sent = 0;
  const callers = Array.from({ length: CALLERS }, async (_, worker) => {
    const client = clients[worker % clients.length]!;
    // Bounded by the deadline: each call waits its turn in the limiter.
    while (performance.now() < deadline) {
      sent += 1;
      await call(client, sent).catch(() => undefined);
    }
  });
  let end: { at: number; calls: number } | undefined;
  const ender = (async () => {
    await delay(spec.runMs);
    end = { at: performance.now(), calls: accepted(emulator, token) };
  })();
  await Promise.all([sampler, ender]);
  await stop();
  await Promise.allSettled(callers);
  const counters = emulator.counters(token);
  const allowedPerMs = spec.rate.limit / spec.rate.periodMs;
  const budgetUsed = (end!.calls - atOneWindow!.calls) / (allowedPerMs * (end!.at - atOneWindow!.at));
  const meanAnswerMs = answers.count === 0 ? 0 : answers.totalMs / answers.count;
  return { kind, calls: counters.total.received, rateLimited: counters.total.rateLimited, mostInAnyWindow: counters.mostInAnyWindow[spec.group], budgetUsed, meanAnswerMs };
}

async function runCase(spec: LimiterCase, redisUrl: string | undefined): Promise<LimiterCaseResult> {
  const tokens = { slots: `limiter-${spec.id}-slots`, old: `limiter-${spec.id}-old` };
  const limits = spec.group === 'contacts' ? { contacts: spec.rate } : { messages: spec.rate };
  const emulator = await startEmulator({
    channels: Object.values(tokens).map((token) => ({ token })),
    rateLimits: limits,
    ...(spec.jitter === undefined ? {} : { faults: { inboundJitter: spec.jitter } }),
    seed: 14,
  });
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  try {
    // Side by side on two channels (two budgets): both are paced by their limit, not the CPU.
    const figures = await Promise.all([runLane(emulator, spec, 'slots', tokens.slots, redisUrl), runLane(emulator, spec, 'old spacing', tokens.old, redisUrl)]);
    const meanIn = spec.jitter === undefined ? 0 : (spec.jitter.minMs + spec.jitter.maxMs) / 2;
    loop.disable();
    // The histogram is in nanoseconds and counts the resolution itself: what is over it is delay.
    const loopDelayMs = Math.max(0, loop.mean / 1e6 - 10);
    return { case: spec, theory: spec.rate.periodMs / (spec.rate.periodMs + meanIn), loopDelayMs, figures };
  } finally {
    loop.disable();
    await emulator.close();
  }
}

/**
 * The most budget a limiter that waits for answers can use at the answer time this run measured:
 * window / (window + mean answer). Below `theory` when the answers were slower than the nominal
 * delay in (a loaded machine handles them late): what the load, not the limiter, takes.
 */
export function bestAtAnswers(spec: LimiterCase, figures: LimiterFigures): number {
  return spec.rate.periodMs / (spec.rate.periodMs + figures.meanAnswerMs);
}

async function redisAnswers(url: string): Promise<string | undefined> {
  const client = new Redis(url, { lazyConnect: true, connectTimeout: 1_000, maxRetriesPerRequest: 0, retryStrategy: () => null });
  try {
    await client.connect();
    await client.ping();
    return undefined;
  } catch (error) {
    return `no Redis answered at ${url} (${error instanceof Error ? error.message : String(error)}); set REDIS_URL`;
  } finally {
    client.disconnect();
  }
}

/**
 * Case A (the one-minute window) runs beside the others, which run one after the other; each
 * case runs both limiters side by side. At scale 1 the section takes about 1.5 minutes. `only`
 * keeps the cases of those ids (the first of them then runs beside the others).
 */
export async function runLimiterGoals(scale: number, log: (line: string) => void, only?: readonly string[]): Promise<LimiterBenchResults> {
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const redisSkipped = await redisAnswers(redisUrl);
  const cases = limiterCases(scale).filter((spec) => (!spec.redis || redisSkipped === undefined) && (only === undefined || only.includes(spec.id)));
  const report = (result: LimiterCaseResult): LimiterCaseResult => {
    for (const f of result.figures) {
      log(
        `  ${result.case.id} ${f.kind}: ${f.calls} calls, ${f.rateLimited} 429s, most in a window ${f.mostInAnyWindow}/${result.case.rate.limit}, budget ${f.budgetUsed.toFixed(3)} ` +
          `(best ${result.theory.toFixed(3)} at the nominal delay; answers took ${f.meanAnswerMs.toFixed(0)} ms on average: best ${bestAtAnswers(result.case, f).toFixed(3)} at them; event loop ${result.loopDelayMs.toFixed(1)} ms late on average)`,
      );
    }
    return result;
  };
  const [first, ...rest] = cases;
  const long = first === undefined ? Promise.resolve(undefined) : runCase(first, redisUrl).then(report);
  const others: LimiterCaseResult[] = [];
  for (const spec of rest) others.push(report(await runCase(spec, redisUrl)));
  const a = await long;
  return { cases: [...(a === undefined ? [] : [a]), ...others], ...(redisSkipped === undefined ? {} : { redisSkipped }) };
}
