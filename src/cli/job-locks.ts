/**
 * The locks of the jobs one command runs (src/lock/): for each job a lock file on the job on its
 * channel and those on its state store's file (lock-target.ts), taken before any call, and for
 * jobs sharing their rate limit through Redis a Redis lock too, taken once Redis answered. A shard
 * holds them shared with the other shards of its count, a whole run alone (job-lock.ts). A lock
 * left by a run that died is taken over, and the log says so.
 */
import type { Logger } from 'pino';
import type { Job } from '../config/job-types.js';
import { acquireJobLock, describeLock, sharedShard, type HeldLock, type LockIdentity } from '../lock/job-lock.js';
import { lockTargets, type LockedJob, type LockTarget } from '../lock/lock-target.js';
import { acquireRedisLock, redisLockKey, type HeldRedisLock } from '../lock/redis-lock.js';
import { UsageError } from './usage-error.js';

export class JobLocks {
  /** Per job, the locks it took: its channel's first. */
  readonly #held = new Map<string, Array<{ identity: LockIdentity; lock: HeldLock }>>();
  readonly #shared: HeldRedisLock[] = [];

  /**
   * @param jobsFile the jobs file, absolute, as given: for messages only
   * @param lockDir the host's lock folder (`hostLockDir`)
   */
  constructor(
    private readonly jobsFile: string,
    private readonly shard: string | undefined,
    private readonly command: string,
    private readonly logger: Logger,
    private readonly lockDir: string,
  ) {}

  /**
   * Each job's lock files; throws LockHeldError (exit 75) naming the holder of the first held, or
   * a UsageError (exit 2) when two of the jobs share one state store through different paths.
   */
  acquire(jobs: readonly Job[]): void {
    const targets = new Map(jobs.map((job) => [job.name, lockTargets(lockedJob(job), { lockDir: this.lockDir })]));
    this.#refuseSharedState(jobs, targets);
    for (const job of jobs) {
      if (this.#held.has(job.name)) continue;
      const held: Array<{ identity: LockIdentity; lock: HeldLock }> = [];
      this.#held.set(job.name, held);
      for (const target of targets.get(job.name) ?? []) {
        const identity: LockIdentity = { jobsFile: this.jobsFile, job: job.name, ...(this.shard === undefined ? {} : { shard: this.shard }), target };
        held.push({ identity, lock: acquireJobLock(identity, { command: this.command }) });
      }
      const taken = held.filter(({ lock }) => lock.tookOverFrom !== undefined);
      const gone = taken[0]?.lock.tookOverFrom;
      if (gone !== undefined) {
        this.logger.warn(
          { job: job.name },
          `took over the lock of ${describeLock(held[0]!.identity)} (${taken.map(({ identity }) => identity.target.what).join(' and ')}): its last run (pid ${gone.pid} on ${gone.host}, started ${gone.startedAt}) ended without releasing it (killed?); a killed run is safe to repeat`,
        );
      }
    }
  }

  /**
   * Two jobs of one command on one state file are refused by the config's rule when their
   * `state:` paths are alike; through a symlink or another spelling the rule cannot see it, the
   * lock can. Refused, not run one after the other: one job's runs would then read the other's
   * record of what it wrote as their own (docs/operations.md).
   */
  #refuseSharedState(jobs: readonly Job[], targets: ReadonlyMap<string, readonly LockTarget[]>): void {
    const owner = new Map<string, string>();
    for (const job of jobs) {
      // Beside the real file, and by its inode: a hard link is seen by the second.
      for (const state of targets.get(job.name)?.filter((target) => target.kind === 'state') ?? []) {
        const first = owner.get(state.file);
        if (first !== undefined && first !== job.name) {
          throw new UsageError(
            `${this.jobsFile}: jobs "${first}" and "${job.name}" share ${state.what} (their state: paths lead to one file, through a symlink, a hard link or another spelling); ` +
              'give each job its own state file, or state: false; nothing was done',
          );
        }
        owner.set(state.file, job.name);
      }
    }
  }

  /**
   * For jobs with `rateLimits.redis`: the lock in Redis, so two hosts cannot run the same job. Keyed
   * by the job on its channel, like the channel's lock file (a state path of one host means
   * nothing on another); a shard holds it shared with the shards of its count.
   */
  async acquireShared(jobs: readonly Job[]): Promise<void> {
    for (const job of jobs) {
      const { redis } = job.connection.rateLimits;
      const channel = this.#held.get(job.name)?.[0];
      if (redis === undefined || channel === undefined) continue;
      const key = redisLockKey(lockedJob(job));
      const lock = await acquireRedisLock(redis, key, channel.lock.holder, describeLock(channel.identity), channel.identity.target.what, sharedShard(this.shard));
      this.#shared.push(lock);
      const gone = lock.tookOverFrom;
      if (gone !== undefined) {
        this.logger.warn(
          { job: job.name },
          `took over the Redis lock of ${describeLock(channel.identity)}: its last run (pid ${gone.pid} on ${gone.host}, started ${gone.startedAt}) stopped renewing it`,
        );
      }
    }
  }

  async releaseShared(): Promise<void> {
    await Promise.all(this.#shared.splice(0).map((lock) => lock.release()));
  }

  release(): void {
    for (const held of this.#held.values()) for (const { lock } of held) lock.release();
    this.#held.clear();
  }
}

/**
 * What a job's locks are taken on: its name, state file, key field and channel (token and
 * surface). A state in PostgreSQL has no file to lock: the store takes the lock across hosts
 * itself (`open-state.ts`, `runLock`); the channel's lock file stays.
 */
export function lockedJob(job: Job): LockedJob {
  return { name: job.name, state: typeof job.state === 'string' ? job.state : false, keyField: job.key.field, connection: job.connection };
}
