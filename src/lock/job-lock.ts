/**
 * One run per job at a time (docs/operations.md). A run holds its job's lock from before its first
 * call to after its last report line; a second run of the same job finds it held and stops before
 * any call (exit 75), naming the holder.
 *
 * On one host the lock is an exclusive SQLite transaction on a small lock file: the operating
 * system holds it for the process and drops it when the process ends, however it ends (a SIGKILL,
 * an OOM kill, a reboot), so a lock is never left behind and no lease or pid guess is needed to
 * take it over. A sidecar JSON file names the holder (host, pid, start, command, job) for the
 * message of the run that is refused, and tells the next run that a holder died: its lock is free,
 * its sidecar still there. What a lock file stands for (the job on its channel, the state store's
 * real file) is lock-target.ts's. With `rateLimits.redis` the lock also lives in Redis
 * (redis-lock.ts), so two hosts cannot run the same job.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import type { LockTarget } from './lock-target.js';
import type Database from 'better-sqlite3';
import { openSqliteDatabase, SqliteBindingError } from '../state/sqlite-database.js';
import { ContactSyncError } from '../failure/contact-sync-error.js';

/** Who holds a lock, as the refused run and `state show` name it. */
export interface LockHolder {
  host: string;
  pid: number;
  startedAt: string;
  command: string;
  /** The job that holds it; absent in the sidecars of older versions. */
  job?: string;
  /** Unique per acquisition: a holder releases only its own sidecar. */
  id: string;
}

export interface LockIdentity {
  /** The jobs file, absolute, as the run was given it: for messages. */
  jobsFile: string;
  job: string;
  /** `I/N` when the run is one shard: for messages (the target's file tells shards apart). */
  shard?: string;
  /** What the lock is taken on (lock-target.ts). */
  target: LockTarget;
}

export interface HeldLock {
  readonly holder: LockHolder;
  /** The previous holder, when its process was gone and this run took the lock over. */
  readonly tookOverFrom: LockHolder | undefined;
  release(): void;
}

export class LockHeldError extends ContactSyncError<'LOCK_HELD'> {
  override readonly name = 'LockHeldError';
  readonly code = 'LOCK_HELD';

  get context(): Readonly<Record<string, unknown>> {
    return { what: this.what, ...(this.shared === undefined ? {} : { shared: this.shared }), holder: this.holder };
  }

  /**
   * @param what the refused run: `job "crm" of /etc/jobs.yaml`
   * @param shared what it shares with the holder, when the lock stands for it: `the state store /srv/crm.db`
   */
  constructor(
    readonly holder: LockHolder | undefined,
    readonly what: string,
    readonly shared?: string,
  ) {
    super(`${what} is already running${refusalDetail(holder, shared)}; nothing was done: let that run finish, or stop it, then run again`);
  }
}

/** `: the state store /srv/crm.db is in use by job "crm": pid 4242 on cron-1, started ... (run jobs.yaml)`. */
function refusalDetail(holder: LockHolder | undefined, shared: string | undefined): string {
  const pid = holder === undefined ? undefined : `pid ${holder.pid} on ${holder.host}, started ${holder.startedAt} (${holder.command})`;
  if (shared === undefined) return pid === undefined ? '' : `: ${pid}`;
  if (pid === undefined) return `: ${shared} is in use`;
  return `: ${shared} is in use by ${holder?.job === undefined ? '' : `job "${holder.job}": `}${pid}`;
}

/** The lock file: the target's. */
export function lockPath(identity: LockIdentity): string {
  return identity.target.file;
}

/** A run's description of the job it locks, for messages: `job "crm" of /etc/jobs.yaml (shard 1/2)`. */
export function describeLock(identity: LockIdentity): string {
  return `job "${identity.job}" of ${identity.jobsFile}${identity.shard === undefined ? '' : ` (shard ${identity.shard})`}`;
}

export interface AcquireOptions {
  command: string;
  now?: () => Date;
  pid?: number;
  host?: string;
  /** Blocks for the given milliseconds; injected by tests. @default Atomics.wait on a private buffer */
  sleepSync?: (ms: number) => void;
  /** In [0, 1): the jitter of the pause between tries. @default Math.random */
  random?: () => number;
}

/**
 * How long a run that finds the lock busy keeps trying before it is refused without a name. A lock
 * is busy for two reasons. A holder has it: the holder writes its sidecar just after taking the
 * lock, and a run that reads a live holder there is refused at once. Or another run is taking it
 * at the same instant: SQLite's locks are taken step by step, and two runs that both step in can
 * each find the other's brief shared lock and both be refused, though neither holds the job (two
 * cron entries firing together). So a busy lock with no live holder named is tried again, after a
 * jittered pause so that the two do not meet again, until one of them holds it.
 */
const HOLDER_WAIT = { attempts: 40, intervalMs: 25 } as const;

function atomicsSleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Takes the job's lock, or throws LockHeldError naming the holder. Never waits for a holder: a cron
 * run that finds its job running has nothing to do. It waits (a second at most) only while nobody
 * is named, for the holder to name itself or for a run starting at the same instant to settle.
 */
export function acquireJobLock(identity: LockIdentity, options: AcquireOptions): HeldLock {
  const path = lockPath(identity);
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const db = openSqliteDatabase(path, { timeout: 0 });
  const sleepSync = options.sleepSync ?? atomicsSleep;
  const random = options.random ?? Math.random;
  for (let attempt = 1; ; attempt += 1) {
    try {
      // The rollback journal, not WAL: an EXCLUSIVE lock in WAL mode would let readers in.
      db.pragma('journal_mode = DELETE');
      db.exec('BEGIN EXCLUSIVE');
      break;
    } catch (error) {
      if (!isBusy(error)) {
        db.close();
        throw error;
      }
    }
    const holder = liveHolder(path);
    if (holder !== undefined || attempt === HOLDER_WAIT.attempts) {
      db.close();
      throw new LockHeldError(holder, describeLock(identity), identity.target.what);
    }
    sleepSync(Math.round(HOLDER_WAIT.intervalMs * (0.5 + random())));
  }
  // The lock was free, yet a holder is named: that run ended without releasing it (killed).
  const tookOverFrom = readHolder(path);
  const holder: LockHolder = {
    host: options.host ?? hostname(),
    pid: options.pid ?? process.pid,
    startedAt: (options.now ?? (() => new Date()))().toISOString(),
    command: options.command,
    job: identity.job,
    id: randomUUID(),
  };
  writeHolder(path, holder);
  let released = false;
  return {
    holder,
    tookOverFrom,
    release() {
      if (released) return;
      released = true;
      if (readHolder(path)?.id === holder.id) rmSync(sidecarPath(path), { force: true });
      try {
        db.exec('ROLLBACK');
      } finally {
        db.close();
      }
    },
  };
}

/** The holder of the job's lock when a run holds it now; undefined when the job is not running. */
export function runningHolder(identity: LockIdentity): LockHolder | undefined {
  const path = lockPath(identity);
  let db: Database.Database;
  try {
    db = openSqliteDatabase(path, { timeout: 0, fileMustExist: true });
  } catch (error) {
    if (error instanceof SqliteBindingError) throw error;
    return undefined;
  }
  try {
    db.exec('BEGIN EXCLUSIVE');
    db.exec('ROLLBACK');
    return undefined;
  } catch (error) {
    if (isBusy(error)) return readHolder(path) ?? { host: '?', pid: 0, startedAt: '?', command: '?', id: '' };
    throw error;
  } finally {
    db.close();
  }
}

function sidecarPath(path: string): string {
  return join(dirname(path), `${basename(path, '.lock')}.holder.json`);
}

function readHolder(path: string): LockHolder | undefined {
  try {
    return JSON.parse(readFileSync(sidecarPath(path), 'utf8')) as LockHolder;
  } catch {
    return undefined;
  }
}

/** Through a rename: a reader never sees half a holder. */
function writeHolder(path: string, holder: LockHolder): void {
  const sidecar = sidecarPath(path);
  const temporary = `${sidecar}.${holder.id}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(holder)}\n`, { mode: 0o600 });
  renameSync(temporary, sidecar);
}

/**
 * The holder a busy lock's sidecar names, unless that is a process of this host that is gone: then
 * it is the dead run the new holder took over from, before the new one has named itself.
 */
function liveHolder(path: string): LockHolder | undefined {
  const holder = readHolder(path);
  return holder !== undefined && !isGoneFromThisHost(holder) ? holder : undefined;
}

function isGoneFromThisHost(holder: LockHolder): boolean {
  if (holder.host !== hostname() || !Number.isInteger(holder.pid) || holder.pid <= 0) return false;
  try {
    process.kill(holder.pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED';
}
