/**
 * The learnt limiter of the v2 surface (issue 36): one per base URL host and organisation, shared
 * by every client and job of the organisation in the process (`organisationLimits`, through the
 * registry's `sharedBudgets`) and, with
 * a Redis URL, by every process (Bottleneck's clustering, as `rateLimits.redis` on v1).
 *
 * Each endpoint (method and path template) has its own slots, the v1 mechanism of
 * limiter-slots.ts: a request takes one of N slots when it starts and gives it back one window
 * after its answer, so a strict sliding window at the server never sees N + 1 of them, whatever
 * the network does. What v2 adds is where N comes from:
 * - before an endpoint's first answer it has one slot: one request at a time;
 * - an answer's `X-RateLimit-Limit` sets N (in Redis for every process when shared);
 * - its `X-RateLimit-Remaining` says how many requests the server counted in its window: those
 *   this limiter does not hold a slot for (made by a process that ran just before, or one that
 *   does not share the limits) take a slot each until one window after that answer: the set has
 *   that many slots fewer until then (a count, never a structure sized by what a header claims;
 *   a claim above `MAX_V2_LEARNT_LIMIT` is taken as it, issue 42);
 * - a 429's `Retry-After` pauses the endpoint: no request of it leaves before the pause passes;
 * - the window: `windowMs` until an answer says it is longer. A 429 whose `Retry-After` is longer
 *   than the window came although every slot was held a window: the server's window is at least
 *   that window and the wait it still asks (issue 41: 10 requests per 5 s met 23 429s at 1 s);
 *   an `X-RateLimit-Reset` (seconds until the server's window frees) longer than it is a window
 *   at least that long. Never more than `MAX_V2_WINDOW_MS`;
 * - a configured ceiling (`rateLimits`) is a second set of slots each request also takes.
 * docs/decisions.md ("Limits learnt from the answers") says why.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type Bottleneck from 'bottleneck';
import type { Rate } from '../../limits.js';
import { paceFor, runInSlot } from '../limiter-slots.js';
import type { LimiterOptions, LimiterRegistry } from '../limiter.js';
import type { SlotSet, SlotSource } from '../slot-source.js';
import type { EndpointAnswer, EndpointLimits, LearntLimit } from './endpoint-limits.js';

/** The window a learnt limit counts over until an answer says otherwise (api-v2-notes.md). */
export const DEFAULT_V2_WINDOW_MS = 1_000;
/**
 * The longest window an answer can teach (issue 41): a learnt value is bounded, whatever a header
 * says. A minute, v1's window: one 429 asking a long wait (a throttle, not the window) slows the
 * endpoint to its limit a minute at worst.
 */
export const MAX_V2_WINDOW_MS = 60_000;
/** The bound of one request assumed for the Redis expiry of its slot. */
export const DEFAULT_V2_REQUEST_TIMEOUT_MS = 30_000;
/**
 * The most requests a window an answer is believed to allow (issue 42): a header may claim any
 * number (`X-RateLimit-Limit: 1000000000`), and what is learnt from it sizes the limiter, so a
 * larger claim is taken as this. It is far above any limit the platform is known to give.
 */
export const MAX_V2_LEARNT_LIMIT = 1_000;

export interface LearntLimitsOptions {
  /**
   * The window of every learnt limit, in milliseconds (the platform does not say it).
   * @default 1000
   */
  readonly windowMs?: number;
  /**
   * The configured ceiling of an endpoint (`rateLimits` on the connection): never exceeded,
   * whatever is learnt; undefined for none.
   * @default no ceiling
   */
  readonly ceiling?: (endpoint: string) => Rate | undefined;
  /** The bound of one request, in milliseconds: a shared slot's Redis expiry. @default 30000 */
  readonly requestTimeoutMs?: number;
  /** Waits `ms` milliseconds (tests inject one that moves their clock). @default a timer */
  readonly sleep?: (ms: number) => Promise<void>;
}

/** The prefix of v2's shared learnt limits: `contact-sync-v2|<host>|<organisation>|...`. */
export const V2_REDIS_ID_PREFIX = 'contact-sync-v2';

/** How v2's learnt limits of one organisation are kept: `organisationLimits`. */
export interface V2LimitsOptions extends LimiterOptions, LearntLimitsOptions {}

/** The key of v2's limits: the base URL's host and the organisation, which holds no token. */
export function v2LimitsKey(baseUrl: string, organisation: string): string {
  return `${new URL(baseUrl).host}|${encodeURIComponent(organisation)}`;
}

/**
 * The learnt limits of v2 for one base URL host and organisation, kept by `registry`: every
 * connection and job of the organisation in this process shares them, and with `options.redis`
 * every process (call the registry's `ready()` before using them). The Redis keys hold the host
 * and the organisation's name, never a token. The window, ceiling and request bound are the first
 * caller's.
 */
export function organisationLimits(registry: LimiterRegistry, baseUrl: string, organisation: string, options: V2LimitsOptions = {}): LearntLimits {
  const key = v2LimitsKey(baseUrl, organisation);
  return registry.sharedBudgets(
    key,
    {
      prefix: `${V2_REDIS_ID_PREFIX}|${key}`,
      described: `the v2 limits of organisation ${organisation} at ${new URL(baseUrl).host}`,
      sharers: 'every connection of one organisation',
      ...(options.redis === undefined ? {} : { redis: options.redis }),
      ...(options.redisWhere === undefined ? {} : { redisWhere: options.redisWhere }),
    },
    (source) => new LearntLimits(source, options),
  );
}

interface Endpoint {
  readonly name: string;
  readonly learnt: SlotSet;
  readonly ceiling: SlotSet | undefined;
  /** The limit the last answer said; undefined before one did. */
  limit: number | undefined;
  /** A successful answer said no limit: no slots but the ceiling's. */
  unlimited: boolean;
  /** The window the limit counts over: `windowMs`, or longer once an answer said so. */
  windowMs: number;
  /** Slots the set has fewer, for requests counted elsewhere, until a window after the answers that said so. */
  elsewhere: number;
}

/**
 * The window an endpoint's limit counts over after `answer`, from `windowMs` before it: longer
 * when a 429's Retry-After is longer than it (the request left a window after the answer whose
 * slot it took, so the server's window is at least that and the wait: `windowMs + retryAfterMs`),
 * or when `X-RateLimit-Reset` is (a window at least that long); never shorter, never more than
 * `MAX_V2_WINDOW_MS`. Pure: a table test holds it.
 */
export function learntWindow(windowMs: number, answer: EndpointAnswer): number {
  let learnt = windowMs;
  const { status, retryAfterMs, resetMs } = answer;
  if (status === 429 && retryAfterMs !== undefined && Number.isFinite(retryAfterMs) && retryAfterMs > windowMs) learnt = Math.max(learnt, windowMs + retryAfterMs);
  if (resetMs !== undefined && Number.isFinite(resetMs) && resetMs > learnt) learnt = resetMs;
  return Math.min(Math.max(windowMs, learnt), Math.max(windowMs, MAX_V2_WINDOW_MS));
}

function isCount(value: number | undefined, least: number): value is number {
  return value !== undefined && Number.isInteger(value) && value >= least;
}

/** Sets the slots of a set; shared, the write reaches Redis (and every process) before this resolves. */
async function setSlots(limiter: Bottleneck, maxConcurrent: number | null): Promise<void> {
  // Typed as returning the limiter; it is a promise of the write.
  await (limiter.updateSettings({ maxConcurrent }) as unknown as Promise<Bottleneck>);
}

function checkPositive(name: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0) throw new RangeError(`Learnt limits: \`${name}\` must be a positive number of milliseconds, got \`${String(value)}\``);
  return value;
}

export class LearntLimits implements EndpointLimits {
  readonly #source: SlotSource;
  readonly #windowMs: number;
  readonly #ceiling: (endpoint: string) => Rate | undefined;
  readonly #requestTimeoutMs: number;
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #endpoints = new Map<string, Endpoint>();

  constructor(source: SlotSource, options: LearntLimitsOptions = {}) {
    this.#source = source;
    this.#windowMs = checkPositive('windowMs', options.windowMs ?? DEFAULT_V2_WINDOW_MS);
    this.#requestTimeoutMs = checkPositive('requestTimeoutMs', options.requestTimeoutMs ?? DEFAULT_V2_REQUEST_TIMEOUT_MS);
    this.#ceiling = options.ceiling ?? (() => undefined);
    this.#sleep = options.sleep ?? ((ms) => delay(ms));
  }

  get windowMs(): number {
    return this.#windowMs;
  }

  async schedule<T>(endpoint: string, attempt: () => Promise<{ value: T; answer: EndpointAnswer }>): Promise<T> {
    const state = this.#endpoint(endpoint);
    return this.#inSlot(state.learnt, async () => {
      await this.#waitOutPause(state.name);
      const { value, answer } = state.ceiling === undefined ? await attempt() : await this.#inSlot(state.ceiling, attempt);
      // The request was answered: its value is the caller's even if the learning fails (a Redis
      // that went away mid-run refuses the next request, as on v1).
      await this.#learn(state, answer).catch(() => undefined);
      return value;
    });
  }

  ceiling(endpoint: string): Rate | undefined {
    return this.#ceiling(endpoint);
  }

  learnt(): LearntLimit[] {
    return [...this.#endpoints.values()]
      .filter((state) => state.limit !== undefined)
      .map((state) => ({ endpoint: state.name, limit: state.limit!, windowMs: state.windowMs }))
      .sort((a, b) => a.endpoint.localeCompare(b.endpoint));
  }

  /** The Bottleneck of an endpoint's learnt slots, once it was scheduled (tests, metrics). */
  limiterOf(endpoint: string): Bottleneck | undefined {
    return this.#endpoints.get(endpoint)?.learnt.limiter;
  }

  #endpoint(name: string): Endpoint {
    const existing = this.#endpoints.get(name);
    if (existing !== undefined) return existing;
    const rate = this.#ceiling(name);
    if (rate !== undefined && (!Number.isInteger(rate.limit) || rate.limit < 1 || !Number.isFinite(rate.periodMs) || rate.periodMs <= 0)) {
      throw new RangeError(`Ceiling of ${name}: give a whole number of calls from 1 up over a positive period, got ${String(rate.limit)} per ${String(rate.periodMs)} ms`);
    }
    // One slot before the first answer; the pace stays 0 until a limit is learnt.
    const learnt = this.#source.slotSet(`learnt|${name}`, 1, this.#windowMs, 'learnt');
    const ceiling = rate === undefined ? undefined : this.#source.slotSet(`ceiling|${name}`, rate.limit, rate.periodMs, 'ceiling');
    if (ceiling !== undefined && rate !== undefined) ceiling.slots.paceMs = paceFor(rate);
    const state: Endpoint = { name, learnt, ceiling, limit: undefined, unlimited: false, elsewhere: 0, windowMs: this.#windowMs };
    this.#endpoints.set(name, state);
    return state;
  }

  /** Runs `run` in a slot of `set`; a failure before it ran is the set's own (see `SlotSource.failure`). */
  async #inSlot<R>(set: SlotSet, run: () => Promise<R>): Promise<R> {
    let started = false;
    let markStarted: () => void = () => undefined;
    const startedNow = new Promise<void>((resolve) => {
      markStarted = resolve;
    });
    try {
      const ran = runInSlot(
        set.limiter,
        () => {
          started = true;
          markStarted();
          return run();
        },
        this.#requestTimeoutMs,
      );
      const { unavailable } = this.#source;
      if (unavailable !== undefined) {
        // A shared Bottleneck waits for ever for a Redis that never answers: a request not yet
        // started is refused when Redis is gone; one that started keeps its own outcome.
        ran.catch(() => undefined);
        await Promise.race([startedNow, ran, unavailable]);
      }
      return await ran;
    } catch (error) {
      throw started ? error : this.#source.failure(set, error);
    }
  }

  /** Waits until no pause of the endpoint is left; bounded: each round waits what is left. */
  async #waitOutPause(name: string): Promise<void> {
    for (let round = 0; round < 100; round += 1) {
      const left = await this.#source.pauses.left(name);
      if (left <= 0) return;
      await this.#sleep(Math.ceil(left));
    }
  }

  async #learn(state: Endpoint, answer: EndpointAnswer): Promise<void> {
    const { status, limit, remaining, retryAfterMs } = answer;
    if (status === 429 && retryAfterMs !== undefined && retryAfterMs > 0) await this.#source.pauses.pause(state.name, retryAfterMs);
    const { limiter, slots } = state.learnt;
    const windowMs = learntWindow(state.windowMs, answer);
    const widened = windowMs > state.windowMs;
    state.windowMs = windowMs;
    if (widened && !state.unlimited) {
      slots.holdMs = windowMs;
      if (state.limit !== undefined) slots.paceMs = paceFor({ limit: state.limit, periodMs: windowMs });
    }
    if (isCount(limit, 1)) {
      // A claim beyond any real limit is bounded: it sizes the slots.
      const bounded = Math.min(limit, MAX_V2_LEARNT_LIMIT);
      // What the server counted, of the slots this limiter keeps: what it has left beyond them is
      // more than they allow anyway.
      const counted = isCount(remaining, 0) ? bounded - Math.min(remaining, bounded) : 0;
      const changed = state.limit !== bounded || state.unlimited;
      state.limit = bounded;
      state.unlimited = false;
      if (changed || widened) {
        slots.holdMs = state.windowMs;
        slots.paceMs = paceFor({ limit: bounded, periodMs: state.windowMs });
      }
      // The slots and those of the requests counted elsewhere in one write, so no waiting request
      // takes a slot the server has already counted. Shared: written to Redis, where every
      // process's Bottleneck reads it.
      if ((await this.#countElsewhere(state, counted)) || changed) await setSlots(limiter, this.#slotsOf(state));
    } else if (status >= 200 && status < 300 && state.limit === undefined && !state.unlimited) {
      // A successful answer without a limit: the endpoint is not limited (the ceiling still is).
      state.unlimited = true;
      slots.holdMs = 0;
      await setSlots(limiter, null);
    }
  }

  /** The slots of the set: the limit, less those held for requests counted elsewhere (one at least). */
  #slotsOf(state: Endpoint): number {
    return Math.max(1, (state.limit ?? 1) - state.elsewhere);
  }

  /**
   * The server counted `counted` requests in its window when this answer left it; the slots taken
   * now (this request's included) are those it can know of this limiter. Each one more takes a
   * slot until one window after this answer: the server counted it no later than that, so it
   * leaves the server's window no later than the slot. The set has that many slots fewer until
   * then (the caller writes them); returns whether it changed.
   */
  async #countElsewhere(state: Endpoint, counted: number): Promise<boolean> {
    const { limiter, slots } = state.learnt;
    if (counted <= 1) return false;
    const taken = (await limiter.running()) + state.elsewhere;
    const missing = counted - taken;
    if (missing <= 0) return false;
    state.elsewhere += missing;
    // The slot of this answer's own request is held a window from now: so are these (a hold of
    // the slots, so the registry's stop frees or abandons it as any other).
    void slots.hold(state.windowMs).then(async () => {
      state.elsewhere -= missing;
      await setSlots(limiter, this.#slotsOf(state)).catch(() => undefined);
    });
    return true;
  }
}
