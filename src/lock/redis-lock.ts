/**
 * The job's lock in Redis, for jobs whose connection shares its rate limit through Redis
 * (`rateLimits.redis`): those may run on several hosts, where a lock file on one host does not
 * see a run on another. A key with an expiry (the lease) that the holder renews; released at the
 * end. A holder that died stops renewing, and its key expires after the lease: the next run takes
 * it over and says so (a `last` key remembers who held it). A shard holds it shared with the
 * shards of its count (a hash of them, each with its lease), a whole run alone. See
 * docs/operations.md.
 */
import { Redis } from 'ioredis';
import { LockHeldError, type LockHolder } from './job-lock.js';
import { channelDigest, type LockedJob } from './lock-target.js';

/** How long a key outlives its last renewal. */
export const REDIS_LOCK_LEASE_MS = 30_000;

/**
 * The whole run's key (`KEYS[1]`, the holder as its value, with the lease as its expiry) and the
 * shards' hash (`KEYS[2]`: field `I/N`, value the holder; `KEYS[3]`: field `I/N`, the time its
 * lease ends), so that a whole run holds the job alone and the shards of one count hold it
 * together. Each script reads and writes at once, in Redis, so two hosts cannot both step in.
 * Returns `{1}` when taken, `{0, holder}` when refused.
 */
const PRUNE = `
local now = redis.call('time')
local ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
local ends = redis.call('hgetall', KEYS[3])
for i = 1, #ends, 2 do
  if tonumber(ends[i + 1]) <= ms then
    redis.call('hdel', KEYS[2], ends[i])
    redis.call('hdel', KEYS[3], ends[i])
  end
end
`;
const TAKE_WHOLE = `${PRUNE}
local current = redis.call('get', KEYS[1])
if current then return {0, current} end
local shards = redis.call('hvals', KEYS[2])
if #shards > 0 then return {0, shards[1]} end
redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2])
return {1}`;
const TAKE_SHARD = `${PRUNE}
local current = redis.call('get', KEYS[1])
if current then return {0, current} end
local count = string.match(ARGV[3], '/(%d+)$')
local fields = redis.call('hgetall', KEYS[2])
for i = 1, #fields, 2 do
  if fields[i] == ARGV[3] or string.match(fields[i], '/(%d+)$') ~= count then return {0, fields[i + 1]} end
end
redis.call('hset', KEYS[2], ARGV[3], ARGV[1])
redis.call('hset', KEYS[3], ARGV[3], ms + tonumber(ARGV[2]))
redis.call('pexpire', KEYS[2], ARGV[2])
redis.call('pexpire', KEYS[3], ARGV[2])
return {1}`;
/** Sets the value only where it is ours: renew (PEXPIRE) or release (DEL). */
const RENEW = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end";
const RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then redis.call('del', KEYS[2]); return redis.call('del', KEYS[1]) else return 0 end";
const RENEW_SHARD = `
if redis.call('hget', KEYS[1], ARGV[3]) ~= ARGV[1] then return 0 end
local now = redis.call('time')
redis.call('hset', KEYS[2], ARGV[3], tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000) + tonumber(ARGV[2]))
redis.call('pexpire', KEYS[1], ARGV[2])
return redis.call('pexpire', KEYS[2], ARGV[2])`;
const RELEASE_SHARD = `
if redis.call('hget', KEYS[1], ARGV[2]) ~= ARGV[1] then return 0 end
redis.call('hdel', KEYS[1], ARGV[2])
redis.call('hdel', KEYS[2], ARGV[2])
redis.call('del', KEYS[3])
return 1`;

export interface HeldRedisLock {
  readonly tookOverFrom: LockHolder | undefined;
  release(): Promise<void>;
}

/**
 * What makes two runs on two hosts "the same job": the job with its key field on the same channel
 * (its token and surface), the identity of its channel lock on one host (lock-target.ts). Not its
 * state file: the paths of two hosts cannot be compared; nor the base URL's text. Digested: the
 * key never shows the token.
 */
export function redisLockKey(job: LockedJob): string {
  return `contact-sync:lock:${channelDigest(job).slice(0, 32)}`;
}

/**
 * Takes the job's lock in Redis: alone for a whole run, shared with the shards of its count for
 * `shard` (`I/N`), as on one host (job-lock.ts); or throws LockHeldError naming the holder.
 */
export async function acquireRedisLock(
  url: string,
  key: string,
  holder: LockHolder,
  what: string,
  shared: string,
  shard?: string,
  leaseMs: number = REDIS_LOCK_LEASE_MS,
): Promise<HeldRedisLock> {
  const redis = new Redis(url, { connectTimeout: 5_000, maxRetriesPerRequest: 2, lazyConnect: true, disconnectTimeout: 200 });
  const last = shard === undefined ? `${key}:last` : `${key}:last:${shard}`;
  const [shards, ends] = [`${key}:shards`, `${key}:shard-ends`];
  const value = JSON.stringify(holder);
  try {
    await redis.connect();
    const taken =
      shard === undefined
        ? ((await redis.eval(TAKE_WHOLE, 3, key, shards, ends, value, String(leaseMs))) as [number, string?])
        : ((await redis.eval(TAKE_SHARD, 3, key, shards, ends, value, String(leaseMs), shard)) as [number, string?]);
    if (taken[0] !== 1) {
      const current = taken[1];
      throw new LockHeldError(current === undefined ? undefined : (JSON.parse(current) as LockHolder), `${what} (held in Redis)`, shared);
    }
    // A `last` holder left behind released nothing: its run died and its lease ran out.
    const previous = await redis.getset(last, value);
    const tookOverFrom = previous === null ? undefined : (JSON.parse(previous) as LockHolder);
    const renew = setInterval(
      () => {
        const renewal = shard === undefined ? redis.eval(RENEW, 1, key, value, String(leaseMs)) : redis.eval(RENEW_SHARD, 2, shards, ends, value, String(leaseMs), shard);
        renewal.catch(() => undefined);
      },
      Math.max(1, Math.floor(leaseMs / 3)),
    );
    renew.unref();
    return {
      tookOverFrom: tookOverFrom?.id === holder.id ? undefined : tookOverFrom,
      async release() {
        clearInterval(renew);
        const release = shard === undefined ? redis.eval(RELEASE, 2, key, last, value) : redis.eval(RELEASE_SHARD, 3, shards, ends, last, value, shard);
        await release.catch(() => undefined);
        redis.disconnect();
      },
    };
  } catch (error) {
    redis.disconnect();
    throw error;
  }
}
