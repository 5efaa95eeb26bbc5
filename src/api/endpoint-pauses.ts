/**
 * The pauses a 429's `Retry-After` asks for, per endpoint: no request of that endpoint leaves
 * before the pause has passed. Kept in this process, and through Redis for every process of the
 * organisation when the limits are shared: the pause is a Redis key that expires with it, so the
 * processes need not agree on a clock (each reads what is left of it, `PTTL`).
 */
import type { Redis } from 'ioredis';

export interface EndpointPauses {
  /** Records that `name` takes no request for `ms` from now (a longer pause already set stays). */
  pause(name: string, ms: number): Promise<void>;
  /** Milliseconds left of the pause of `name`; 0 when there is none. */
  left(name: string): Promise<number>;
}

/** Pauses of this process alone, on its clock. */
export class LocalPauses implements EndpointPauses {
  readonly #until = new Map<string, number>();

  constructor(private readonly now: () => number) {}

  pause(name: string, ms: number): Promise<void> {
    this.#until.set(name, Math.max(this.#until.get(name) ?? Number.NEGATIVE_INFINITY, this.now() + ms));
    return Promise.resolve();
  }

  left(name: string): Promise<number> {
    const until = this.#until.get(name);
    if (until === undefined) return Promise.resolve(0);
    const left = until - this.now();
    if (left <= 0) this.#until.delete(name);
    return Promise.resolve(Math.max(0, left));
  }
}

/** Sets the key to expire in ARGV[1] ms unless it already outlives that: a pause only grows. */
const PAUSE_SCRIPT = `local left = redis.call('pttl', KEYS[1])
if left < tonumber(ARGV[1]) then redis.call('set', KEYS[1], '1', 'PX', ARGV[1]) end
return 1`;

/**
 * Pauses shared through Redis, one key per endpoint, `<prefix>|<name>|retry-after`, which holds no
 * token (the prefix names the base URL's host and the organisation). A key expires with its
 * pause, so nothing is left behind.
 */
export class RedisPauses implements EndpointPauses {
  constructor(
    private readonly client: Redis,
    private readonly prefix: string,
    /** What a failed Redis command means (a `RateLimiterUnavailableError`). */
    private readonly failure: (error: unknown) => unknown,
  ) {}

  static key(prefix: string, name: string): string {
    return `${prefix}|${name}|retry-after`;
  }

  async pause(name: string, ms: number): Promise<void> {
    try {
      await this.client.eval(PAUSE_SCRIPT, 1, RedisPauses.key(this.prefix, name), String(Math.ceil(ms)));
    } catch (error) {
      throw this.failure(error);
    }
  }

  async left(name: string): Promise<number> {
    try {
      // -2: no key, -1: no expiry (never set so): no pause either way.
      return Math.max(0, await this.client.pttl(RedisPauses.key(this.prefix, name)));
    } catch (error) {
      throw this.failure(error);
    }
  }
}
