/**
 * What a run of a job locks: the things two runs really share, whatever path names the jobs
 * file (docs/operations.md, "What the lock is taken on"). A jobs file reached through a symlinked
 * folder, or copied to a backup, names the same job; a lock keyed on the path as typed let both
 * run and create every new key twice.
 *
 * - **The job on its channel**, always: the base URL (normalised), a digest of the token, the key
 *   field, the job's name and shard. Two runs of one job write the same keys on the same
 *   contacts, wherever their jobs files lie. Its lock file lies in the user's lock folder
 *   (`userLockDir`), the one place on a host that every copy of the jobs file sees. The job's
 *   name is part of it: two jobs on one channel with one key field (disjoint files sharing a
 *   budget, docs/configuration.md `rateLimits.redis`) are two jobs and run side by side.
 * - **The state store's real file**, for a job with one: two jobs that share one state file, by
 *   whatever name or symlink, would overwrite each other's memory of what they wrote. Its lock
 *   file lies beside the real state file, where every user and path that reaches the state sees it.
 *
 * The token is never in a lock file's name or content, nor in a message: only a digest of a
 * digest of it is, which cannot be turned back.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, realpathSync, statSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { stripUrlAuth } from '../api/strip-url-auth.js';

/** The parts of a job that say what its runs share. */
export interface LockedJob {
  name: string;
  /** The state file (absolute), or false for none. */
  state: string | false;
  /** The custom field that holds the key. */
  keyField: string;
  connection: { baseUrl: string; token: string };
}

/** One thing a run holds while it runs. */
export interface LockTarget {
  /** `state` for the state store's real file, `channel` for the job on its channel. */
  readonly kind: 'state' | 'channel';
  /** What is shared, in words for a refused run: `the state store /srv/cs/.contact-sync/crm.db`. */
  readonly what: string;
  /** The lock file (a job's name is file-safe: JOB_NAME_PATTERN). */
  readonly file: string;
}

export interface LockTargetOptions {
  /** `I/N` when the run is one shard: shards lock apart. */
  shard?: string;
  /** The folder of the channel locks (`userLockDir`). */
  lockDir: string;
  /** @default fs.realpathSync.native */
  realpath?: (path: string) => string;
}

/** The channel's lock first, then the state's: every run takes them in one order. */
export function lockTargets(job: LockedJob, options: LockTargetOptions): LockTarget[] {
  const channel = channelLockTarget(job, options.shard, options.lockDir);
  return job.state === false ? [channel] : [channel, stateLockTarget(job.state, options.shard, options.realpath)];
}

/** The job on its channel: `<lock folder>/<job>[.shard-I-of-N].<digest>.lock`. */
export function channelLockTarget(job: LockedJob, shard: string | undefined, lockDir: string): LockTarget {
  return {
    kind: 'channel',
    what: `job "${job.name}"${job.keyField === '' ? '' : ` (key field ${job.keyField})`} on the channel at ${displayedBaseUrl(job.connection.baseUrl)}`,
    file: join(lockDir, `${job.name}${shardSuffix(shard)}.${channelDigest(job, shard).slice(0, 16)}.lock`),
  };
}

/** The state store's real file: `<real state file>[.shard-I-of-N].lock`, beside it. */
export function stateLockTarget(state: string, shard?: string, realpath?: (path: string) => string): LockTarget {
  const real = realPathOf(state, realpath);
  return { kind: 'state', what: `the state store ${real}`, file: `${real}${shardSuffix(shard)}.lock` };
}

function shardSuffix(shard: string | undefined): string {
  return shard === undefined ? '' : `.shard-${shard.replace('/', '-of-')}`;
}

/**
 * The job on its channel, digested: the name of its lock file on this host and of its key in
 * Redis across hosts (redis-lock.ts), where the paths of two hosts cannot be compared.
 */
export function channelDigest(job: LockedJob, shard: string | undefined): string {
  const token = createHash('sha256').update(job.connection.token).digest('hex');
  const parts = [normalisedBaseUrl(job.connection.baseUrl), token, job.keyField, job.name, shard ?? ''];
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
}

/**
 * The real path of a file that may not exist yet (a job's first run creates its state): the real
 * path of its nearest existing folder, with the rest appended, so that the first run and the
 * next, through a symlink or not, name one file.
 */
export function realPathOf(path: string, realpath: (path: string) => string = realpathSync.native): string {
  try {
    return realpath(path);
  } catch (error) {
    const parent = dirname(path);
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || parent === path) return path;
    return join(realPathOf(parent, realpath), basename(path));
  }
}

/**
 * The folder of this user's channel locks: `$XDG_STATE_HOME/contact-sync/locks`, by default
 * `~/.local/state/contact-sync/locks`. Where the home cannot hold it (a container whose home is
 * read-only, or none), `<tmp>/contact-sync-<uid>/locks`, once it is sure that folder is this
 * user's: a folder another user made there could hold this user's jobs back. Created owner-only.
 * @throws Error naming the folder and the fix when neither can be had
 */
export function userLockDir(env: Readonly<Record<string, string | undefined>>): string {
  const preferred = preferredLockDir(env);
  if (preferred !== undefined) {
    try {
      mkdirSync(preferred, { recursive: true, mode: 0o700 });
      return preferred;
    } catch {
      // The fallback below.
    }
  }
  const uid = process.getuid?.();
  const mine = join(nonEmpty(env.TMPDIR) ?? tmpdir(), `contact-sync-${uid ?? 'user'}`);
  const fallback = join(mine, 'locks');
  try {
    mkdirSync(fallback, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new Error(`the folder of the job locks, ${fallback}, cannot be created (${(error as NodeJS.ErrnoException).code ?? String(error)}); set XDG_STATE_HOME to a folder this user can write; nothing was done`, { cause: error });
  }
  if (uid !== undefined && statSync(mine).uid !== uid) {
    throw new Error(`the folder of the job locks, ${mine}, belongs to another user; set XDG_STATE_HOME to a folder this user owns; nothing was done`);
  }
  return fallback;
}

function preferredLockDir(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const stateHome = nonEmpty(env.XDG_STATE_HOME);
  if (stateHome !== undefined) return join(stateHome, 'contact-sync', 'locks');
  let home = nonEmpty(env.HOME);
  try {
    home ??= nonEmpty(homedir());
  } catch {
    // No home in the environment nor in the user database: the fallback.
  }
  return home === undefined ? undefined : join(home, '.local', 'state', 'contact-sync', 'locks');
}

/** Scheme, host and path, lower-cased where URLs are, without credentials or a trailing slash. */
function normalisedBaseUrl(baseUrl: string): string {
  if (!URL.canParse(baseUrl)) return baseUrl.replace(/\/+$/, '');
  const url = new URL(baseUrl);
  url.username = '';
  url.password = '';
  url.hash = '';
  return url.href.replace(/\/+$/, '');
}

function displayedBaseUrl(baseUrl: string): string {
  return stripUrlAuth(normalisedBaseUrl(baseUrl));
}

function nonEmpty(text: string | undefined): string | undefined {
  return text === undefined || text === '' ? undefined : text;
}
