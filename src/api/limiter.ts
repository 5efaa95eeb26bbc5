/**
 * One Bottleneck limiter per (base URL, token, API group), shared by every client in the process:
 * the platform counts calls per channel token, so two jobs on one token share one budget.
 *
 * With a Redis URL (`rateLimits.redis`) the limiter is clustered: Bottleneck keeps its state in
 * Redis, so every process on the same base URL, token and group draws from one budget. The
 * Bottleneck id (the Redis key) holds the base URL and a SHA-256 digest of the token, never the
 * token. No request leaves without Redis: a process pacing itself alone would spend the others'
 * budget, so an unreachable Redis fails the start and a lost one stops the job.
 */
import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import Bottleneck from 'bottleneck';
import { Redis } from 'ioredis';
import type { ApiGroup, Rate } from '../limits.js';
import { RateLimiterUnavailableError, type RateLimiterPhase } from './rate-limiter-unavailable-error.js';
import { attachSlots, LimiterSlots, paceFor } from './limiter-slots.js';

export { PACE_FRACTION, paceFor } from './limiter-slots.js';
import { stripUrlAuth } from './strip-url-auth.js';
import { LocalPauses, RedisPauses } from './endpoint-pauses.js';
import type { SlotSet, SlotSource } from './slot-source.js';

/** Idle time after which Redis forgets a shared limiter's keys, in milliseconds. */
export const REDIS_KEY_IDLE_MS = 10 * 60_000;
/** The Bottleneck id (and Redis key) prefix of shared limiters. */
export const REDIS_ID_PREFIX = 'contact-sync';
/** Bound of one TCP connect to Redis, in milliseconds. */
const REDIS_CONNECT_TIMEOUT_MS = 5_000;
/** Bound of stopping one shared limiter whose Redis does not answer, in milliseconds. */
const REDIS_STOP_TIMEOUT_MS = 2_000;

export interface LimiterOptions {
  /**
   * A redis:// or rediss:// URL (user and password allowed): the limiter is shared through this
   * Redis with every process that uses the same base URL, token and group.
   * @default undefined: this process paces itself alone
   */
  readonly redis?: string;
  /** Where the URL was configured, for messages, like `connections.main.rateLimits.redis`. */
  readonly redisWhere?: string;
}

export interface LimiterRegistryOptions {
  /** Longest wait of `ready()` for Redis, in milliseconds. @default 10000 */
  readonly readyTimeoutMs?: number;
  /**
   * Reconnection attempts, 200 ms apart growing to 1 s, before a Redis that went away counts as
   * lost (at the start: as unreachable). Requests wait meanwhile, so a restart of Redis within
   * about 3 s goes unnoticed. @default 5
   */
  readonly reconnectAttempts?: number;
  /** The monotonic clock the slots are held on, in milliseconds (tests). @default performance.now */
  readonly now?: () => number;
}

/** A family of budgets an adapter keeps through the registry (`sharedBudgets`): v2's learnt limits of one organisation. */
export interface SharedBudgetsOptions extends LimiterOptions {
  /** The family's stem of Redis keys and Bottleneck ids: `<prefix>|<name>` for each set. */
  readonly prefix: string;
  /** The family as messages name it, like `the v2 limits of organisation Acme at api.example.com`. */
  readonly described: string;
  /** Who must name one Redis for it, like `every connection of one organisation`. */
  readonly sharers: string;
}

function checkRate(rate: Rate, group: ApiGroup): void {
  const { limit, periodMs } = rate;
  if (!Number.isInteger(limit) || limit < 1) {
    throw new RangeError(`Rate of the ${group} API: \`limit\` must be a whole number of calls from 1 up, got \`${String(limit)}\``);
  }
  if (!Number.isFinite(periodMs) || periodMs <= 0) {
    throw new RangeError(`Rate of the ${group} API: \`periodMs\` must be a positive number of milliseconds, got \`${String(periodMs)}\``);
  }
}

/** Read without `instanceof Error`: errors of node's sockets may come from another realm (jest). */
function messageOf(error: unknown): string {
  const message = typeof error === 'object' && error !== null ? (error as { message?: unknown }).message : undefined;
  return typeof message === 'string' ? message : String(error);
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** One Redis URL: a client pair (commands, pub/sub) shared by every limiter on it. */
class RedisLink {
  readonly url: string;
  /** The URL without user and password, for messages. */
  readonly shown: string;
  readonly where: string | undefined;
  readonly client: Redis;
  readonly connection: Bottleneck.IORedisConnection;
  /** Resolves when the client gave up reconnecting (or was closed). */
  readonly ended: Promise<void>;
  /** Rejects with `lost` when the client gave up (never when the registry closed it). */
  readonly failed: Promise<never>;
  lastError: unknown;
  everReady = false;
  stopping = false;
  lost: RateLimiterUnavailableError | undefined;

  constructor(url: string, where: string | undefined, reconnectAttempts: number, onLost: (link: RedisLink) => void) {
    this.url = url;
    this.shown = stripUrlAuth(url);
    this.where = where;
    this.client = new Redis(url, {
      connectTimeout: REDIS_CONNECT_TIMEOUT_MS,
      // ioredis waits this long on a socket that failed to connect before it lets the process end.
      disconnectTimeout: 200,
      // Commands wait while the client reconnects and fail when it gives up, not before.
      maxRetriesPerRequest: null,
      retryStrategy: (times) => (times > reconnectAttempts ? null : Math.min(times * 200, 1_000)),
    });
    this.connection = new Bottleneck.IORedisConnection({ client: this.client, Redis });
    this.connection.on('error', (error: unknown) => {
      this.lastError = error;
    });
    this.ended = new Promise((resolve) => this.client.once('end', () => resolve()));
    this.failed = this.ended.then(() => {
      if (this.stopping) return new Promise<never>(() => undefined);
      // Lost before it was ever ready too: a request waiting for it is refused (v2's limiters are made on use).
      const lost = this.failure(this.everReady ? 'lost' : 'start', this.lastError ?? new Error('the connection was closed'));
      this.lost = lost;
      onLost(this);
      throw lost;
    });
    // Awaited by the requests that race it; none may be.
    this.failed.catch(() => undefined);
  }

  failure(phase: RateLimiterPhase, cause: unknown): RateLimiterUnavailableError {
    const encoded = URL.canParse(this.url) ? new URL(this.url).password : '';
    let reason = messageOf(this.lastError ?? cause);
    for (const password of [encoded, safeDecode(encoded)]) if (password !== '') reason = reason.split(password).join('***');
    return new RateLimiterUnavailableError({ redis: this.shown, phase, reason, cause, ...(this.where === undefined ? {} : { where: this.where }) });
  }

  async close(): Promise<void> {
    this.stopping = true;
    const healthy = this.client.status === 'ready';
    // A healthy link quits after its pending replies; a broken one drops them.
    await this.connection.disconnect(healthy).catch(() => undefined);
  }
}

/** Shared limiters and their Redis, for `limiterFailure`. */
const clusteredLinks = new WeakMap<Bottleneck, RedisLink>();

/**
 * What a failure of `limiter.schedule()` itself (the scheduled function never ran) means: for a
 * limiter shared through Redis, a `RateLimiterUnavailableError`; for any other, the error as is.
 */
export function limiterFailure(limiter: Bottleneck, error: unknown): unknown {
  const link = clusteredLinks.get(limiter);
  if (link === undefined || error instanceof RateLimiterUnavailableError) return error;
  return link.lost ?? link.failure(link.everReady ? 'lost' : 'start', error);
}

/**
 * Resolves when none of this process's jobs is waiting (for its turn or a slot) and no request is
 * in flight; slots may still be held. Every job ends started or dropped (a lost Redis drops the
 * waiting ones), and every request ends (its timeout), so this settles without a bound of its own.
 */
function requestsSettled(limiter: Bottleneck, slots: LimiterSlots, includeQueued: boolean): Promise<void> {
  return new Promise((resolve) => {
    // Bottleneck has no way to remove a listener: a settled check just does nothing more.
    let settled = false;
    let removeSlotListener: () => void = () => undefined;
    const check = (): void => {
      if (settled) return;
      const counts = limiter.counts();
      const waiting = includeQueued ? slots.waitingForTurn + counts.RECEIVED + counts.QUEUED + counts.RUNNING : 0;
      if (waiting + slots.requestsInFlight === 0) {
        settled = true;
        removeSlotListener();
        resolve();
      }
    };
    limiter.on('done', check);
    limiter.on('dropped', check);
    limiter.on('executing', check);
    removeSlotListener = slots.onRequestEnded(check);
    check();
  });
}

/**
 * Bottleneck arms a timer per job with an `expiration` (the Redis expiry of a held slot, minutes
 * long) and clears it only when the job ends: the jobs of abandoned slots never do, and their
 * timers would keep the process alive. Redis frees those slots on its own clock; the local
 * timers are cleared. `_scheduled` is Bottleneck's own table of started jobs (2.19.5, its last
 * release); without it there is nothing to clear.
 */
function clearLocalExpiryTimers(limiter: Bottleneck): void {
  const scheduled = (limiter as unknown as { _scheduled?: Record<string, { expiration?: NodeJS.Timeout | null } | undefined> })._scheduled;
  for (const job of Object.values(scheduled ?? {})) {
    if (job?.expiration) clearTimeout(job.expiration);
  }
}

/** N slots and a window; when callers ask for different rates on one key, both strictest. */
interface Strictest {
  limit: number;
  periodMs: number;
}

interface Entry {
  limiter: Bottleneck;
  slots: LimiterSlots;
  rate: Strictest;
  /** Set on shared limiters. */
  link?: RedisLink;
  /** Bottleneck id, the stem of its Redis keys. */
  id: string;
  stopped: boolean;
  /** v2's learnt slots: their number is what the server said, never lowered to `rate`. */
  learnt?: boolean;
}

interface SharedEntry {
  readonly budgets: unknown;
  readonly link: RedisLink | undefined;
}

export class LimiterRegistry {
  readonly #entries = new Map<string, Entry>();
  readonly #links = new Map<string, RedisLink>();
  readonly #readyTimeoutMs: number;
  readonly #reconnectAttempts: number;
  readonly #now: () => number;
  readonly #shared = new Map<string, SharedEntry>();

  constructor(options: LimiterRegistryOptions = {}) {
    this.#readyTimeoutMs = options.readyTimeoutMs ?? 10_000;
    this.#reconnectAttempts = options.reconnectAttempts ?? 5;
    this.#now = options.now ?? (() => performance.now());
  }

  /**
   * The limiter of this base URL, token and group, created on first use. When callers ask for
   * different rates on one key, the strictest one wins: the budget is the server's, not theirs.
   * With `options.redis` the limiter is shared through Redis; call `ready()` before using it.
   */
  get(baseUrl: string, token: string, group: ApiGroup, rate: Rate, options: LimiterOptions = {}): Bottleneck {
    checkRate(rate, group);
    const key = LimiterRegistry.key(baseUrl, token, group);
    const existing = this.#entries.get(key);
    if (existing) {
      // The config refuses such a pair at its YAML path (config/shared-budget-rule.ts): reaching
      // this is a caller's mistake, not a user's.
      if (existing.link?.url !== options.redis) {
        const was = existing.link === undefined ? 'paced by this process alone' : `shared through Redis at ${existing.link.shown}`;
        throw new Error(
          `${options.redisWhere === undefined ? '' : `${options.redisWhere}: `}the ${group} limit of ${baseUrl} with this token is already ${was}; ` +
            'give every connection with the same baseUrl and token the same rateLimits.redis',
        );
      }
      // The fewest slots held the longest window keep both rates: N calls in any window of the
      // longer period are at most the smaller N.
      const stricter = { limit: Math.min(existing.rate.limit, rate.limit), periodMs: Math.max(existing.rate.periodMs, rate.periodMs) };
      if (stricter.limit !== existing.rate.limit || stricter.periodMs !== existing.rate.periodMs) {
        existing.rate = stricter;
        existing.slots.holdMs = stricter.periodMs;
        existing.slots.paceMs = paceFor(stricter);
        if (existing.link === undefined) {
          existing.slots.rampMs = stricter.periodMs / stricter.limit;
          existing.limiter.updateSettings({ maxConcurrent: stricter.limit });
        } else if (existing.link.everReady) void this.#raiseSharedSettings(existing).catch(() => undefined);
      }
      return existing.limiter;
    }
    if (options.redis === undefined) {
      const entry = this.#newEntry(key, group, rate, undefined);
      // A process's first window is spaced exactly window / limit: this process cannot know what
      // the server counted of a process that ran just before it on the token (the old spacing's
      // rate). Its slots keep the limit from there on, and the spacing loosens (see `paceFor`).
      entry.slots.rampUntil(rate.limit, rate.periodMs / rate.limit);
      return entry.limiter;
    }
    // Each process spaces its own calls; the slots, in Redis, keep the limit of them all.
    return this.#newEntry(key, `${REDIS_ID_PREFIX}|${key}`, rate, this.#link(options.redis, options.redisWhere)).limiter;
  }

  /**
   * A limiter of `rate.limit` slots held `rate.periodMs` each, calls spaced by `paceFor(rate)`,
   * registered under `key`; shared through `link` when given (the Bottleneck `id` is then the
   * stem of its Redis keys).
   */
  #newEntry(key: string, id: string, rate: Rate, link: RedisLink | undefined, learnt = false): Entry {
    // Bottleneck keeps the slots only; the spacing is the calls' turns, before they ask for one.
    const settings = { maxConcurrent: rate.limit, minTime: 0, id };
    let limiter: Bottleneck;
    if (link === undefined) limiter = new Bottleneck(settings);
    else {
      limiter = new Bottleneck({ ...settings, datastore: 'ioredis', connection: link.connection, timeout: REDIS_KEY_IDLE_MS });
      limiter.on('error', (error: unknown) => {
        link.lastError = error;
      });
      // ready() answers for it; a rejection nobody awaited would end the process.
      limiter.ready().catch(() => undefined);
      clusteredLinks.set(limiter, link);
    }
    const slots = attachSlots(limiter, new LimiterSlots(rate.periodMs, learnt ? 0 : paceFor(rate), link !== undefined, this.#now));
    const entry: Entry = { limiter, slots, rate: { limit: rate.limit, periodMs: rate.periodMs }, id, stopped: false, learnt, ...(link === undefined ? {} : { link }) };
    this.#entries.set(key, entry);
    return entry;
  }

  /**
   * An adapter's family of budgets under `key` (v2's learnt limits of one host and organisation:
   * `v2/learnt-limits.ts` `organisationLimits`), made by `create` on first use from a source of
   * slot sets, pauses and the clock: every connection and job that asks for the same key in this
   * process shares it, and with `options.redis` every process (call `ready()` before using it).
   * The registry keeps the sets and the Redis link and knows nothing of what the adapter does with
   * them; the first caller's family is every later caller's.
   */
  sharedBudgets<T>(key: string, options: SharedBudgetsOptions, create: (source: SlotSource) => T): T {
    const existing = this.#shared.get(key);
    if (existing !== undefined) {
      if (existing.link?.url !== options.redis) {
        const was = existing.link === undefined ? 'paced by this process alone' : `shared through Redis at ${existing.link.shown}`;
        throw new Error(`${options.redisWhere === undefined ? '' : `${options.redisWhere}: `}${options.described} are already ${was}; give ${options.sharers} the same rateLimits.redis`);
      }
      return existing.budgets as T;
    }
    const link = options.redis === undefined ? undefined : this.#link(options.redis, options.redisWhere);
    const { prefix } = options;
    const source: SlotSource = {
      now: this.#now,
      pauses:
        link === undefined
          ? new LocalPauses(this.#now)
          : new RedisPauses(link.client, prefix, (error) => link.lost ?? link.failure(link.everReady ? 'lost' : 'start', error)),
      failure: (set: SlotSet, error: unknown) => limiterFailure(set.limiter, error),
      ...(link === undefined ? {} : { unavailable: link.failed }),
      slotSet: (name, maxConcurrent, holdMs, kind) => {
        if (link?.lost !== undefined) throw link.lost;
        const entry = this.#newEntry(`${prefix}|${name}`, `${prefix}|${name}`, { limit: maxConcurrent, periodMs: holdMs }, link, kind === 'learnt');
        // A ceiling made after ready() lowers the shared slots as get()'s do.
        if (link?.everReady === true) void this.#raiseSharedSettings(entry).catch(() => undefined);
        return entry;
      },
    };
    const budgets = create(source);
    this.#shared.set(key, { budgets, link });
    return budgets;
  }

  /**
   * Waits until every shared limiter is connected to its Redis and holds the strictest spacing.
   * @throws RateLimiterUnavailableError when a Redis does not answer within `readyTimeoutMs`
   */
  async ready(): Promise<void> {
    await Promise.all([...this.#links.values()].map((link) => this.#linkReady(link)));
  }

  /** The registry key: the token enters only as a SHA-256 digest, so no dump or log of keys shows it. */
  static key(baseUrl: string, token: string, group: ApiGroup): string {
    const digest = createHash('sha256').update(token, 'utf8').digest('hex');
    return `${baseUrl.replace(/\/+$/, '')}|${digest}|${group}`;
  }

  /** The Bottleneck id of a shared limiter: its Redis keys are `b_<id>_...`. */
  static redisId(baseUrl: string, token: string, group: ApiGroup): string {
    return `${REDIS_ID_PREFIX}|${LimiterRegistry.key(baseUrl, token, group)}`;
  }

  /** Limiters created so far. */
  get size(): number {
    return this.#entries.size;
  }

  /**
   * Stops every limiter, forgets it and closes the Redis connections. Queued jobs are rejected
   * when `dropWaitingJobs` is true (an interrupted run), otherwise they run first; requests in
   * flight end first either way. Slots held by this process are freed at once when the limiter
   * is its own; a shared limiter leaves them taken in Redis until their expiry, so the other
   * processes stay within the window this process's last calls opened. The shared state in Redis
   * stays for the other processes; it expires after `REDIS_KEY_IDLE_MS` idle.
   */
  async stop(options: { dropWaitingJobs?: boolean } = {}): Promise<void> {
    const entries = [...this.#entries.values()];
    const links = [...this.#links.values()];
    this.#entries.clear();
    this.#shared.clear();
    this.#links.clear();
    for (const link of links) link.stopping = true;
    const dropWaitingJobs = options.dropWaitingJobs ?? false;
    await Promise.all(
      entries.map(async (entry) => {
        if (entry.stopped) return;
        entry.stopped = true;
        // Without Redis, waiting jobs cannot run: they are dropped, and the waits are bounded.
        const healthy = entry.link === undefined || (entry.link.lost === undefined && entry.link.client.status === 'ready');
        if (!dropWaitingJobs && healthy) await requestsSettled(entry.limiter, entry.slots, true);
        // Calls still waiting for their turn are dropped like Bottleneck's waiting jobs.
        entry.slots.closeTurns();
        // Bottleneck's own stop waits for executing jobs, held slots included: not awaited here.
        const stopped = entry.limiter.stop({ dropWaitingJobs: true }).catch(() => undefined);
        // Requests in flight end by their own timeout; a shared limiter waits a bounded time, as before.
        await this.#bounded(requestsSettled(entry.limiter, entry.slots, false), entry.link === undefined ? undefined : REDIS_STOP_TIMEOUT_MS);
        if (entry.link === undefined) {
          entry.slots.releaseAll();
          await stopped;
        } else {
          entry.slots.abandonAll();
          clearLocalExpiryTimers(entry.limiter);
        }
      }),
    );
    await Promise.all(links.map((link) => link.close()));
  }

  async #bounded(promise: Promise<void>, boundMs: number | undefined): Promise<void> {
    if (boundMs === undefined) return promise;
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, boundMs);
    });
    await Promise.race([promise, bound]).finally(() => clearTimeout(timer));
  }

  #link(url: string, where: string | undefined): RedisLink {
    const existing = this.#links.get(url);
    if (existing) return existing;
    const link = new RedisLink(url, where, this.#reconnectAttempts, (lost) => this.#onLost(lost));
    this.#links.set(url, link);
    return link;
  }

  /** Redis gave up: waiting jobs are dropped (their requests never leave) and new ones refused. */
  #onLost(link: RedisLink): void {
    for (const entry of this.#entries.values()) {
      if (entry.link !== link || entry.stopped) continue;
      entry.stopped = true;
      entry.slots.closeTurns();
      entry.limiter.stop({ dropWaitingJobs: true }).catch(() => undefined);
    }
  }

  async #linkReady(link: RedisLink): Promise<void> {
    if (link.lost !== undefined) throw link.lost;
    const entries = [...this.#entries.values()].filter((entry) => entry.link === link);
    const connected = Promise.all([
      // v2's limiters are made on their first request: the link answers for them.
      link.client.ping(),
      ...entries.map(async (entry) => {
        await entry.limiter.ready();
        await this.#raiseSharedSettings(entry);
      }),
    ]);
    const ended = link.ended.then(() => Promise.reject(new Error('the connection was closed')));
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${this.#readyTimeoutMs} ms`)), this.#readyTimeoutMs);
    });
    // The losers of the race settle later: handled here, so they cannot end the process.
    for (const promise of [connected, ended, timedOut]) promise.catch(() => undefined);
    try {
      await Promise.race([connected, ended, timedOut]);
      link.everReady = true;
    } catch (error) {
      throw link.failure('start', error);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Another process may have created the shared settings with looser ones: Bottleneck keeps the
   * first, so fewer slots are written over them. More slots never are: the strictest rate of the
   * processes wins while the keys live. Each process holds its own slots for its own window, and
   * spaces its own calls; give every process the same rate.
   */
  async #raiseSharedSettings(entry: Entry): Promise<void> {
    if (entry.link === undefined || entry.learnt === true) return;
    const [maxConcurrent] = await entry.link.client.hmget(`b_${entry.id}_settings`, 'maxConcurrent');
    const stored = maxConcurrent === null || maxConcurrent === '' ? Number.POSITIVE_INFINITY : Number(maxConcurrent);
    if (!(stored <= entry.rate.limit)) {
      // Typed as returning the limiter; with a Redis datastore it is a promise of the write.
      await (entry.limiter.updateSettings({ maxConcurrent: entry.rate.limit }) as unknown as Promise<Bottleneck>);
    }
  }
}
