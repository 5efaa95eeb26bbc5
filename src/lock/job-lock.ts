/**
 * One run per job at a time (docs/operations.md). A run holds its job's lock from before its first
 * call to after its last report line; a second run of the same job finds it held and stops before
 * any call (exit 75), naming the holder.
 *
 * On one host the lock is an exclusive SQLite transaction on a small lock file: the operating
 * system holds it for the process and drops it when the process ends, however it ends (a SIGKILL,
 * an OOM kill, a reboot), so a lock is never left behind and no lease or pid guess is needed to
 * take it over. A sidecar JSON file names the holder (host, pid, start, command) for the message
 * of the run that is refused, and tells the next run that a holder died: its lock is free, its
 * sidecar still there. With `rateLimits.redis` the lock also lives in Redis (redis-lock.ts), so
 * two hosts cannot run the same job.
 */
import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import type Database from 'better-sqlite3';
import { openSqliteDatabase, SqliteBindingError } from '../state/sqlite-database.js';
import { ContactSyncError } from '../failure/contact-sync-error.js';

/** Who holds a lock, as the refused run and `state show` name it. */
export interface LockHolder {
  host: string;
  pid: number;
  startedAt: string;
  command: string;
  /** Unique per acquisition: a holder releases only its own sidecar. */
  id: string;
}

export interface LockIdentity {
  /** The jobs file, absolute. */
  jobsFile: string;
  job: string;
  /** `I/N` when the run is one shard: shards lock apart. */
  shard?: string;
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
    return { what: this.what, holder: this.holder };
  }

  constructor(
    readonly holder: LockHolder | undefined,
    readonly what: string,
  ) {
    super(
      `${what} is already running${holder === undefined ? '' : `: pid ${holder.pid} on ${holder.host}, started ${holder.startedAt} (${holder.command})`}; ` +
        'nothing was done: let that run finish, or stop it, then run again',
    );
  }
}

/** What a lock file is named after: the job (and shard), and the jobs file it comes from. */
export function lockName(identity: LockIdentity): string {
  const digest = createHash('sha256').update(identity.jobsFile).digest('hex').slice(0, 10);
  const shard = identity.shard === undefined ? '' : `.shard-${identity.shard.replace('/', '-of-')}`;
  return `${identity.job}${shard}.${digest}`;
}

/** `<folder of the jobs file>/.contact-sync/locks/<job>[.shard-I-of-N].<digest>.lock`. */
export function lockPath(identity: LockIdentity): string {
  return join(dirname(identity.jobsFile), '.contact-sync', 'locks', `${lockName(identity)}.lock`);
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
}

/**
 * How long a refused run waits for the holder to name itself. The holder writes its sidecar just
 * after it takes the lock; a run refused in between (two cron entries firing together on a busy
 * machine) would otherwise say "already running" without saying who.
 */
const HOLDER_WAIT = { attempts: 40, intervalMs: 25 } as const;

function atomicsSleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Takes the job's lock, or throws LockHeldError naming the holder. Never waits: a cron run that
 * finds its job running has nothing to do.
 */
export function acquireJobLock(identity: LockIdentity, options: AcquireOptions): HeldLock {
  const path = lockPath(identity);
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const db = openSqliteDatabase(path, { timeout: 0 });
  try {
    // The rollback journal, not WAL: an EXCLUSIVE lock in WAL mode would let readers in.
    db.pragma('journal_mode = DELETE');
    db.exec('BEGIN EXCLUSIVE');
  } catch (error) {
    db.close();
    if (isBusy(error)) throw new LockHeldError(awaitHolder(path, options.sleepSync ?? atomicsSleep), describeLock(identity));
    throw error;
  }
  // The lock was free, yet a holder is named: that run ended without releasing it (killed).
  const tookOverFrom = readHolder(path);
  const holder: LockHolder = {
    host: options.host ?? hostname(),
    pid: options.pid ?? process.pid,
    startedAt: (options.now ?? (() => new Date()))().toISOString(),
    command: options.command,
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
 * The holder of a lock found busy. Its sidecar may not be written yet, or may still name the dead
 * run it took over from (a process of this host that is gone): then it is read again, a bounded
 * number of times, and undefined when the holder never names itself.
 */
function awaitHolder(path: string, sleepSync: (ms: number) => void): LockHolder | undefined {
  for (let attempt = 1; ; attempt += 1) {
    const holder = readHolder(path);
    if (holder !== undefined && !isGoneFromThisHost(holder)) return holder;
    if (attempt === HOLDER_WAIT.attempts) return undefined;
    sleepSync(HOLDER_WAIT.intervalMs);
  }
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
