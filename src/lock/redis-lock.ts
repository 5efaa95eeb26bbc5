/**
 * The job's lock in Redis, for jobs whose connection shares its rate limit through Redis
 * (`rateLimits.redis`): those may run on several hosts, where a lock file on one host does not
 * see a run on another. A key with an expiry (the lease) that the holder renews; released at the
 * end. A holder that died stops renewing, and its key expires after the lease: the next run takes
 * it over and says so (a `last` key remembers who held it). See docs/operations.md.
 */
import { Redis } from 'ioredis';
import { LockHeldError, type LockHolder } from './job-lock.js';
import { channelDigest, type LockedJob } from './lock-target.js';

/** How long a key outlives its last renewal. */
export const REDIS_LOCK_LEASE_MS = 30_000;

/** Sets the value only where it is ours: renew (PEXPIRE) or release (DEL). */
const RENEW = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end";
const RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then redis.call('del', KEYS[2]); return redis.call('del', KEYS[1]) else return 0 end";

export interface HeldRedisLock {
  readonly tookOverFrom: LockHolder | undefined;
  release(): Promise<void>;
}

/**
 * What makes two runs on two hosts "the same job": the job (and shard) with its key field on the
 * same channel (base URL and token), the identity of its channel lock on one host
 * (lock-target.ts). Not its state file: the paths of two hosts cannot be compared. Digested: the
 * key never shows the token.
 */
export function redisLockKey(job: LockedJob, shard: string | undefined): string {
  return `contact-sync:lock:${channelDigest(job, shard).slice(0, 32)}`;
}

export async function acquireRedisLock(
  url: string,
  key: string,
  holder: LockHolder,
  what: string,
  shared: string,
  leaseMs: number = REDIS_LOCK_LEASE_MS,
): Promise<HeldRedisLock> {
  const redis = new Redis(url, { connectTimeout: 5_000, maxRetriesPerRequest: 2, lazyConnect: true, disconnectTimeout: 200 });
  const last = `${key}:last`;
  const value = JSON.stringify(holder);
  try {
    await redis.connect();
    const taken = await redis.set(key, value, 'PX', leaseMs, 'NX');
    if (taken !== 'OK') {
      const current = await redis.get(key);
      throw new LockHeldError(current === null ? undefined : (JSON.parse(current) as LockHolder), `${what} (held in Redis)`, shared);
    }
    // A `last` holder left behind released nothing: its run died and its lease ran out.
    const previous = await redis.getset(last, value);
    const tookOverFrom = previous === null ? undefined : (JSON.parse(previous) as LockHolder);
    const renew = setInterval(() => {
      redis.eval(RENEW, 1, key, value, String(leaseMs)).catch(() => undefined);
    }, Math.max(1, Math.floor(leaseMs / 3)));
    renew.unref();
    return {
      tookOverFrom: tookOverFrom?.id === holder.id ? undefined : tookOverFrom,
      async release() {
        clearInterval(renew);
        await redis.eval(RELEASE, 2, key, last, value).catch(() => undefined);
        redis.disconnect();
      },
    };
  } catch (error) {
    redis.disconnect();
    throw error;
  }
}
