/**
 * One run per job at a time (docs/operations.md). A run holds its job's lock from before its first
 * call to after its last report line; a second run of the same job finds it held and stops before
 * any call (exit 75), naming the holder.
 *
 * On one host the lock is an exclusive SQLite transaction (a shard's: a shared one, below) on a
 * small, owner-only lock file: the operating
 * system holds it for the process and drops it when the process ends, however it ends (a SIGKILL,
 * an OOM kill, a reboot), so a lock is never left behind and no lease or pid guess is needed to
 * take it over. A sidecar JSON file names the holder (host, pid, start, command, job) for the
 * message of the run that is refused, and tells the next run that a holder died: its lock is free,
 * its sidecar still there. What a lock file stands for (the job on its channel, the state store's
 * file) is lock-target.ts's. With `rateLimits.redis` the lock also lives in Redis
 * (redis-lock.ts), so two hosts cannot run the same job.
 */
import { randomUUID } from 'node:crypto';
import { chmodSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
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
  /** `I/N` when the run is one shard: it holds the target shared with the other shards of N. */
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
 *
 * A whole run holds the target's lock file alone (an exclusive SQLite transaction). A shard
 * (`identity.shard`, `I/N`) holds it shared (a read transaction, which other shards' reads let
 * in and a whole run's exclusive one does not), and its own shard's file alone
 * (`<lock>.shard-I-of-N.lock`: two copies of one shard are refused), and is refused while a shard
 * of another count holds its file: `--shard 1/2` beside `--shard 1/3` would split the keys two
 * ways at once. So the shards of one count run side by side, and a whole run, or a shard of
 * another count, waits for none of them: it is refused (75) while any runs, and the other way
 * round.
 */
export function acquireJobLock(identity: LockIdentity, options: AcquireOptions): HeldLock {
  const path = lockPath(identity);
  const shard = sharedShard(identity.shard);
  if (shard === undefined) {
    const db = takeLock(path, 'exclusive', identity, options);
    return heldLock([{ path, db }], path, identity, options);
  }
  const shared = takeLock(path, 'shared', identity, options);
  const own = shardLockPath(path, shard);
  let mine: Database.Database;
  try {
    mine = takeLock(own, 'exclusive', identity, options);
  } catch (error) {
    shared.close();
    throw error;
  }
  const other = otherCountHolder(path, shard);
  if (other !== undefined) {
    mine.close();
    shared.close();
    throw new LockHeldError(other.holder, describeLock(identity), `${identity.target.what} (shard ${other.shard})`);
  }
  return heldLock([{ path: own, db: mine }, { path, db: shared }], own, identity, options);
}

/** The shard a run holds its locks shared for: none for a whole run, nor for `1/1`, which is one. */
export function sharedShard(shard: string | undefined): string | undefined {
  return shard === undefined || shard.endsWith('/1') ? undefined : shard;
}

/** `<lock>.shard-1-of-2.lock` for shard `1/2` of `<lock>.lock`. */
export function shardLockPath(path: string, shard: string): string {
  return `${path.replace(/\.lock$/, '')}.shard-${shard.replace('/', '-of-')}.lock`;
}

/** The shard files beside a lock: `[file, "I/N"]`. */
function shardFiles(path: string): Array<{ file: string; shard: string }> {
  const stem = `${basename(path, '.lock')}.shard-`;
  let names: string[];
  try {
    names = readdirSync(dirname(path));
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    const match = name.startsWith(stem) ? /^(\d+)-of-(\d+)\.lock$/.exec(name.slice(stem.length)) : null;
    return match === null ? [] : [{ file: join(dirname(path), name), shard: `${match[1]}/${match[2]}` }];
  });
}

/** A shard of another count than `shard`'s that holds its file now. */
function otherCountHolder(path: string, shard: string): { shard: string; holder: LockHolder | undefined } | undefined {
  const count = shard.split('/')[1];
  for (const other of shardFiles(path)) {
    if (other.shard.split('/')[1] === count) continue;
    if (isHeld(other.file)) return { shard: other.shard, holder: liveHolder(other.file) };
  }
  return undefined;
}

/** Whether a run holds the lock file now, alone or shared: an exclusive transaction cannot start. */
function isHeld(path: string): boolean {
  let db: Database.Database;
  try {
    db = openSqliteDatabase(path, { timeout: 0, fileMustExist: true });
  } catch (error) {
    if (error instanceof SqliteBindingError) throw error;
    return false;
  }
  try {
    db.exec('BEGIN EXCLUSIVE');
    db.exec('ROLLBACK');
    return false;
  } catch (error) {
    if (isBusy(error)) return true;
    throw error;
  } finally {
    db.close();
  }
}

/**
 * Opens the lock file (created owner-only: its holder names a job, a command line and a host) and
 * starts its transaction, exclusive or shared; tries again while it is busy with nobody named.
 */
function takeLock(path: string, hold: 'exclusive' | 'shared', identity: LockIdentity, options: AcquireOptions): Database.Database {
  createLockFile(path);
  const db = openSqliteDatabase(path, { timeout: 0 });
  const sleepSync = options.sleepSync ?? atomicsSleep;
  const random = options.random ?? Math.random;
  for (let attempt = 1; ; attempt += 1) {
    try {
      // The rollback journal, not WAL: an EXCLUSIVE lock in WAL mode would let readers in.
      db.pragma('journal_mode = DELETE');
      if (hold === 'exclusive') db.exec('BEGIN EXCLUSIVE');
      else {
        db.exec('BEGIN');
        // A read holds SQLite's SHARED lock until the transaction ends.
        db.prepare('SELECT count(*) FROM sqlite_master').get();
      }
      return db;
    } catch (error) {
      if (db.inTransaction) db.exec('ROLLBACK');
      if (!isBusy(error)) {
        db.close();
        throw error;
      }
    }
    const holder = liveHolder(path) ?? liveShardHolder(path);
    if (holder !== undefined || attempt === HOLDER_WAIT.attempts) {
      db.close();
      throw new LockHeldError(holder, describeLock(identity), identity.target.what);
    }
    sleepSync(Math.round(HOLDER_WAIT.intervalMs * (0.5 + random())));
  }
}

/** A shard that holds a lock shared names itself in its own shard's file. */
function liveShardHolder(path: string): LockHolder | undefined {
  for (const { file } of shardFiles(path)) {
    const holder = liveHolder(file);
    if (holder !== undefined && isHeld(file)) return holder;
  }
  return undefined;
}

/** The lock file, owner-only (0600 like the state store): created so, or set so when this user's. */
function createLockFile(path: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  try {
    // Only a new file is opened here: opening and closing one this process holds would drop its locks.
    writeFileSync(path, '', { flag: 'wx', mode: LOCK_FILE_MODE });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    try {
      chmodSync(path, LOCK_FILE_MODE);
    } catch {
      // Another user's lock file beside a shared state store: theirs to keep.
    }
  }
}

/** Owner read/write only, as the state store (state-file.ts) and the reports. */
export const LOCK_FILE_MODE = 0o600;

/** The holder named in `named`'s sidecar; released with every file's transaction. */
function heldLock(files: Array<{ path: string; db: Database.Database }>, named: string, identity: LockIdentity, options: AcquireOptions): HeldLock {
  // The lock was free, yet a holder is named: that run ended without releasing it (killed).
  const tookOverFrom = readHolder(named);
  const holder: LockHolder = {
    host: options.host ?? hostname(),
    pid: options.pid ?? process.pid,
    startedAt: (options.now ?? (() => new Date()))().toISOString(),
    command: options.command,
    job: identity.job,
    id: randomUUID(),
  };
  writeHolder(named, holder);
  let released = false;
  return {
    holder,
    tookOverFrom,
    release() {
      if (released) return;
      released = true;
      if (readHolder(named)?.id === holder.id) rmSync(sidecarPath(named), { force: true });
      for (const { db } of files) {
        try {
          db.exec('ROLLBACK');
        } finally {
          db.close();
        }
      }
    },
  };
}

/**
 * The holder of the job's lock when a run holds it now, a whole run or a shard; undefined when
 * the job is not running.
 */
export function runningHolder(identity: LockIdentity): LockHolder | undefined {
  const path = lockPath(identity);
  if (!isHeld(path)) return undefined;
  return readHolder(path) ?? liveShardHolder(path) ?? { host: '?', pid: 0, startedAt: '?', command: '?', id: '' };
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
