/**
 * The locks of the jobs one command runs (src/lock/): a lock file per job (and shard) taken before
 * any call, and for jobs sharing their rate limit through Redis a Redis lock too, taken once Redis
 * answered. A lock left by a run that died is taken over, and the log says so.
 */
import type { Logger } from 'pino';
import type { Job } from '../config/job-types.js';
import { acquireJobLock, describeLock, type HeldLock, type LockIdentity } from '../lock/job-lock.js';
import { acquireRedisLock, redisLockKey, type HeldRedisLock } from '../lock/redis-lock.js';

export class JobLocks {
  readonly #held = new Map<string, { identity: LockIdentity; lock: HeldLock }>();
  readonly #shared: HeldRedisLock[] = [];

  constructor(
    private readonly jobsFile: string,
    private readonly shard: string | undefined,
    private readonly command: string,
    private readonly logger: Logger,
  ) {}

  /** Each job's lock file; throws LockHeldError (exit 75) naming the holder of the first held. */
  acquire(jobs: readonly Job[]): void {
    for (const job of jobs) {
      if (this.#held.has(job.name)) continue;
      const identity: LockIdentity = { jobsFile: this.jobsFile, job: job.name, ...(this.shard === undefined ? {} : { shard: this.shard }) };
      const lock = acquireJobLock(identity, { command: this.command });
      this.#held.set(job.name, { identity, lock });
      const gone = lock.tookOverFrom;
      if (gone !== undefined) {
        this.logger.warn(
          { job: job.name },
          `took over the lock of ${describeLock(identity)}: its last run (pid ${gone.pid} on ${gone.host}, started ${gone.startedAt}) ended without releasing it (killed?); a killed run is safe to repeat`,
        );
      }
    }
  }

  /** For jobs with `rateLimits.redis`: the lock in Redis, so two hosts cannot run the same job. */
  async acquireShared(jobs: readonly Job[]): Promise<void> {
    for (const job of jobs) {
      const { redis } = job.connection.rateLimits;
      const held = this.#held.get(job.name);
      if (redis === undefined || held === undefined) continue;
      const key = redisLockKey(job.connection, job.name, this.shard);
      const lock = await acquireRedisLock(redis, key, held.lock.holder, describeLock(held.identity));
      this.#shared.push(lock);
      const gone = lock.tookOverFrom;
      if (gone !== undefined) {
        this.logger.warn(
          { job: job.name },
          `took over the Redis lock of ${describeLock(held.identity)}: its last run (pid ${gone.pid} on ${gone.host}, started ${gone.startedAt}) stopped renewing it`,
        );
      }
    }
  }

  async releaseShared(): Promise<void> {
    await Promise.all(this.#shared.splice(0).map((lock) => lock.release()));
  }

  release(): void {
    for (const { lock } of this.#held.values()) lock.release();
    this.#held.clear();
  }
}
