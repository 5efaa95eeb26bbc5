/**
 * What a run of a job locks: the things two runs really share, whatever path, spelling or
 * environment names them (docs/operations.md, "What the lock is taken on"). A jobs file reached
 * through a symlinked folder, or copied to a backup, a base URL spelt `localhost` or
 * `127.0.0.1`, a state file reached through a hard link, a shell with another `XDG_STATE_HOME`:
 * each still names the same job, and a lock keyed on the text let both run and create every new
 * key twice (issues 33 and 42).
 *
 * - **The job on its channel**, always: a digest of the token (the channel or workspace it
 *   opens, never the URL's text), the surface (v1 or v2), the key field and the job's name. Two
 *   runs of one job write the same keys on the same contacts, wherever their jobs files lie. Its
 *   lock file lies in the host's lock folder (`hostLockDir`), which no user setting moves. The
 *   job's name is part of it: two jobs on one channel with one key field (disjoint files sharing
 *   a budget, docs/configuration.md `rateLimits.redis`) are two jobs and run side by side.
 * - **The state store's file**, for a job with one: two jobs that share one state file, by
 *   whatever name, symlink or hard link, would overwrite each other's memory of what they wrote.
 *   Two locks stand for it: one beside the real state file (`<real path>.lock`), which every user
 *   and path that reaches the state sees, and, once the file exists, one in the host's lock folder
 *   named by the file's device and inode, which every hard link of it shares.
 *
 * A shard does not lock apart: its run holds the same locks, shared with the other shards of its
 * count, where a whole run holds them alone (job-lock.ts).
 *
 * The token is never in a lock file's name or content, nor in a message: only a digest of a
 * digest of it is, which cannot be turned back.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, realpathSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { stripUrlAuth } from '../api/strip-url-auth.js';

/** The parts of a job that say what its runs share. */
export interface LockedJob {
  name: string;
  /** The state file (absolute), or false for none. */
  state: string | false;
  /** The custom field that holds the key. */
  keyField: string;
  /** `api`: the surface the token opens (v1 when absent). The base URL is only shown, never keyed on. */
  connection: { baseUrl: string; token: string; api?: 'v1' | 'v2' };
}

/** One thing a run holds while it runs. */
export interface LockTarget {
  /** `state` for the state store's file (beside it, or by its inode), `channel` for the job on its channel. */
  readonly kind: 'state' | 'channel';
  /** What is shared, in words for a refused run: `the state store /srv/cs/.contact-sync/crm.db`. */
  readonly what: string;
  /** The lock file (a job's name is file-safe: JOB_NAME_PATTERN). */
  readonly file: string;
}

export interface LockTargetOptions {
  /** The host's lock folder (`hostLockDir`). */
  lockDir: string;
  /** @default fs.realpathSync.native */
  realpath?: (path: string) => string;
  /** @default fs.statSync */
  stat?: (path: string) => { dev: number; ino: number };
}

/** The channel's lock first, then the state's: every run takes them in one order. */
export function lockTargets(job: LockedJob, options: LockTargetOptions): LockTarget[] {
  const channel = channelLockTarget(job, options.lockDir);
  if (job.state === false) return [channel];
  const inode = stateInodeLockTarget(job.state, options.lockDir, options.realpath, options.stat);
  return [channel, stateLockTarget(job.state, options.realpath), ...(inode === undefined ? [] : [inode])];
}

/** The job on its channel: `<lock folder>/<job>.<digest>.lock`. */
export function channelLockTarget(job: LockedJob, lockDir: string): LockTarget {
  return {
    kind: 'channel',
    what: `job "${job.name}"${job.keyField === '' ? '' : ` (key field ${job.keyField})`} on the channel at ${displayedBaseUrl(job.connection.baseUrl)}`,
    file: join(lockDir, `${job.name}.${channelDigest(job).slice(0, 16)}.lock`),
  };
}

/** The state store's real file: `<real state file>.lock`, beside it. */
export function stateLockTarget(state: string, realpath?: (path: string) => string): LockTarget {
  const real = realPathOf(state, realpath);
  return { kind: 'state', what: `the state store ${real}`, file: `${real}.lock` };
}

/**
 * The state store's file by its device and inode, which its hard links share:
 * `<lock folder>/state-<dev>-<inode>.lock`; none while the file does not exist (nothing can link
 * to it yet, and the lock beside its real path holds it).
 */
export function stateInodeLockTarget(
  state: string,
  lockDir: string,
  realpath?: (path: string) => string,
  stat: (path: string) => { dev: number; ino: number } = statSync,
): LockTarget | undefined {
  let id: { dev: number; ino: number };
  try {
    id = stat(state);
  } catch {
    return undefined;
  }
  return { kind: 'state', what: `the state store ${realPathOf(state, realpath)}`, file: join(lockDir, `state-${id.dev}-${id.ino}.lock`) };
}

/**
 * The job on its channel, digested: the name of its lock file on this host and of its key in
 * Redis across hosts (redis-lock.ts), where the paths of two hosts cannot be compared. The token
 * says which channel or workspace it is; the base URL's text does not (`localhost` and
 * `127.0.0.1`, `/api` and `/%61pi` are one platform).
 */
export function channelDigest(job: LockedJob): string {
  const parts = [tokenDigest(job.connection.token), job.connection.api ?? 'v1', job.keyField, job.name];
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
}

/** The token, digested: what the channel's lock and a state store's platform identity are keyed on, never the token itself. */
export function tokenDigest(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/**
 * The platform identity a state store in PostgreSQL keys a job's state on, with the job's name and
 * key field (docs/state.md, "Choosing where the state lives"): `<surface>:<digest>`, the surface
 * (v1 or v2) and a digest of the token's digest (the channel or workspace it opens; the base URL's
 * text does not say which). Another token, a rotated one too, is another identity.
 */
export function platformIdentity(connection: { token: string; api?: 'v1' | 'v2' }): string {
  const digest = createHash('sha256').update(`contact-sync platform\u0000${tokenDigest(connection.token)}`).digest('hex');
  return `${connection.api ?? 'v1'}:${digest.slice(0, 32)}`;
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

/** The environment variable that names the host's lock folder instead of the default. */
export const LOCK_DIR_VARIABLE = 'CONTACT_SYNC_LOCK_DIR';

/**
 * The host's folder of job locks for this user: `/var/tmp/contact-sync-<uid>/locks`, whatever the
 * environment says of homes (`HOME`, `XDG_STATE_HOME` differ between cron and a person's shell,
 * and a lock in each let both run). `/var/tmp` outlives a reboot's cleaning of `/tmp` and is on
 * every Unix host. `CONTACT_SYNC_LOCK_DIR` names another folder, for a host without a writable
 * `/var/tmp` (every run on the host must then set it alike). The folder is this user's, made
 * owner-only: one that another user made first could hold this user's jobs back.
 * @param hostTemp the host's lasting temporary folder (injected by tests)
 * @throws Error naming the folder and the fix when it cannot be had
 */
export function hostLockDir(env: Readonly<Record<string, string | undefined>>, hostTemp: string = process.platform === 'win32' ? tmpdir() : '/var/tmp'): string {
  const chosen = nonEmpty(env[LOCK_DIR_VARIABLE]);
  if (chosen !== undefined) {
    try {
      mkdirSync(chosen, { recursive: true, mode: 0o700 });
    } catch (error) {
      throw new Error(`the folder of the job locks, ${chosen} (${LOCK_DIR_VARIABLE}), cannot be created (${(error as NodeJS.ErrnoException).code ?? String(error)}); set ${LOCK_DIR_VARIABLE} to a folder this user can write; nothing was done`, { cause: error });
    }
    return chosen;
  }
  const uid = process.getuid?.();
  const mine = join(hostTemp, `contact-sync-${uid ?? 'user'}`);
  const folder = join(mine, 'locks');
  try {
    mkdirSync(folder, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new Error(`the folder of the job locks, ${folder}, cannot be created (${(error as NodeJS.ErrnoException).code ?? String(error)}); set ${LOCK_DIR_VARIABLE} to a folder this user can write, the same for every run on this host; nothing was done`, { cause: error });
  }
  if (uid !== undefined && statSync(mine).uid !== uid) {
    throw new Error(`the folder of the job locks, ${mine}, belongs to another user; remove it, or set ${LOCK_DIR_VARIABLE} to a folder this user owns, the same for every run on this host; nothing was done`);
  }
  return folder;
}

/** Scheme, host and path, lower-cased where URLs are, without credentials or a trailing slash: for messages. */
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
