/**
 * Opening the PostgreSQL store (postgres-store.ts): the database as messages name it (never the
 * password), what went wrong at open said with its fix, the job's identity found or recorded, and
 * the job's run lock taken. docs/state.md, "State in PostgreSQL".
 */
import { LockHeldError, type LockHolder } from '../../lock/job-lock.js';
import { StateStoreError, resetCommand } from '../state-store-error.js';
import type { BridgeFailure, Row, Statement, SyncBridge } from './sync-bridge.js';

/** The connection as messages name it: never the password. */
export interface Endpoint {
  readonly host: string;
  readonly port: string;
  readonly database: string;
  readonly user: string;
  readonly password: string;
}

/** `text` with every occurrence of the password masked (a message that might quote the URL). */
export function hidePassword(text: string, password: string): string {
  return password === '' ? text : text.split(password).join('***');
}

/** Host, port, database and user of a `postgres://` URL (libpq's defaults where it names none). */
export function parseEndpoint(url: string): Endpoint {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    parsed = new URL('invalid://');
  }
  const shown = url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    throw new StateStoreError('STATE_UNREADABLE', shown, `${shown}: not a PostgreSQL URL: write it postgres://USER:PASSWORD@HOST:PORT/DATABASE (\${ENV} may hold the password).`);
  }
  const user = decodeURIComponent(parsed.username) || process.env.PGUSER || '';
  return {
    host: parsed.hostname === '' ? (process.env.PGHOST ?? 'localhost') : parsed.hostname,
    port: parsed.port === '' ? (process.env.PGPORT ?? '5432') : parsed.port,
    database: decodeURIComponent(parsed.pathname.replace(/^\//, '')) || process.env.PGDATABASE || user,
    user,
    password: decodeURIComponent(parsed.password),
  };
}

/** What went wrong at open, in one sentence naming host, port and database, and the fix; never the password. */
export function openFailure(error: BridgeFailure, endpoint: Endpoint, path: string, job: string): StateStoreError {
  const at = `the PostgreSQL database "${endpoint.database}" at host ${endpoint.host}, port ${endpoint.port}`;
  const code = error.code;
  let sentence: string;
  if (code === '28P01' || code === '28000') {
    sentence = `${at} refused the login of user "${endpoint.user}" (${code}): check the user and password in the job's \`state:\` URL (or the variable that holds it) and the server's pg_hba.conf.`;
  } else if (code === '3D000') {
    sentence = `${at} does not exist (${code}): create it (createdb -h ${endpoint.host} -p ${endpoint.port} ${endpoint.database}) or name an existing database in the job's \`state:\` URL.`;
  } else if (code === '42501') {
    sentence = `${at} refused user "${endpoint.user}" the right to create the state schema (${code}): grant it (GRANT CREATE ON DATABASE ${endpoint.database} TO ${endpoint.user}), or have its owner run contact-sync once to create it.`;
  } else if (/^E[A-Z]+$/.test(code) || /timeout|terminated/i.test(error.message)) {
    sentence = `cannot reach ${at} (${code === 'PG_FAILED' ? 'no answer in time' : code}): check that PostgreSQL runs there and accepts connections from this host (listen_addresses, pg_hba.conf, a firewall), or fix the host and port in the job's \`state:\` URL.`;
  } else {
    sentence = `${at} failed while opening the state store of job "${job}" (${code}: ${error.message}); check the server's log, or ${resetCommand(job)} if the schema is damaged.`;
  }
  return new StateStoreError('STATE_UNREADABLE', path, hidePassword(`${path}: ${sentence}`, endpoint.password), { cause: new Error(hidePassword(error.message, endpoint.password)) });
}

/** Finds or records the job's identity (name, key field, platform); refuses another key field for the same name and platform. */
export function bindIdentity(bridge: SyncBridge, path: string, s: string, options: IdentityOptions, now: number): number {
  refuseOtherKeyField(bridge, path, s, options);
  // The row and its id in one round trip.
  const [, rows] = bridge.run([
    {
      text: `INSERT INTO ${s}.jobs (name, key_field, platform, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT (name, key_field, platform) DO NOTHING`,
      values: [options.job, options.keyField, options.platform, now],
    },
    identityQuery(s, options),
  ]);
  const id = idOf(rows);
  if (id === undefined) throw new Error(`internal: job "${options.job}" has no row in ${path} after it was recorded`);
  return id;
}

/** The job's recorded identity, undefined when none is there (nothing written); refuses another key field as `bindIdentity` does. */
export function existingIdentity(bridge: SyncBridge, path: string, s: string, options: IdentityOptions): number | undefined {
  refuseOtherKeyField(bridge, path, s, options);
  return findIdentity(bridge, s, options);
}

interface IdentityOptions {
  readonly job: string;
  readonly keyField: string;
  readonly platform: string;
}

function findIdentity(bridge: SyncBridge, s: string, options: IdentityOptions): number | undefined {
  return idOf(bridge.run([identityQuery(s, options)])[0]);
}

function identityQuery(s: string, options: IdentityOptions): Statement {
  return { text: `SELECT id FROM ${s}.jobs WHERE name = $1 AND key_field = $2 AND platform = $3`, values: [options.job, options.keyField, options.platform] };
}

function idOf(rows: readonly Row[] | undefined): number | undefined {
  const id = rows?.[0]?.id;
  return id === undefined ? undefined : Number(id);
}

function refuseOtherKeyField(bridge: SyncBridge, path: string, s: string, options: IdentityOptions): void {
  const [others] = bridge.run([
    { text: `SELECT key_field FROM ${s}.jobs WHERE name = $1 AND platform = $2 AND key_field <> $3 ORDER BY id LIMIT 1`, values: [options.job, options.platform, options.keyField] },
  ]);
  const recorded = others?.[0]?.key_field;
  if (recorded === undefined) return;
  throw new StateStoreError(
    'STATE_KEY_FIELD_MISMATCH',
    path,
    `${path}: the state of job "${options.job}" holds keys of the field "${recorded as string}", but the job now uses the key field ` +
      `"${options.keyField}"; its keys would name other contacts. Start the job's state afresh with \`${resetCommand(options.job)}\` ` +
      `(the next run searches each key once), or give the job another name.`,
  );
}

/** Who takes a job's run lock: this host and process, its command; a shard of N holds it with the other shards of N. */
export interface RunLockTaker {
  readonly host: string;
  readonly pid: number;
  readonly command: string;
  /** `--shard I/N`: N. The shards of one count hold the lock shared; a whole run (none) holds it alone. */
  readonly shardCount?: number;
}

/**
 * Takes the job's run lock: a session advisory lock (the schema's lock class, the job's id) on the
 * worker's second connection, held until that connection ends (close, or the process's death:
 * the server frees it). A whole run holds it alone; the shards of one count hold it shared, as the
 * shards of a state file share its lock (docs/scaling.md), and a shard of another count is refused
 * as a whole run is. The holders' rows name them for the run that is refused.
 * Returns the lock connection's backend pid, which keys the holder's row.
 * @throws LockHeldError naming a holder's host, pid and start
 */
export function takeRunLock(bridge: SyncBridge, path: string, s: string, schema: string, jobId: number, job: string, holder: RunLockTaker, now: number): number {
  const shared = holder.shardCount !== undefined;
  const lock = [`contact-sync run ${schema}`, jobId];
  const [taken] = bridge.run([{ text: `SELECT ${shared ? 'pg_try_advisory_lock_shared' : 'pg_try_advisory_lock'}(hashtext($1), $2::int) AS taken, pg_backend_pid() AS lock_pid`, values: lock }], { client: 'lock' });
  const lockPid = Number(taken?.[0]?.lock_pid);
  // Rows of holders whose lock connection is gone (killed) name no one.
  const live = `lock_pid IN (SELECT pid FROM pg_stat_activity)`;
  if (taken?.[0]?.taken === true) {
    // One shard start at a time per job (the job's row locked): each sees the others' rows.
    const [, , others] = bridge.run(
      [
        { text: `SELECT id FROM ${s}.jobs WHERE id = $1 FOR UPDATE`, values: [jobId] },
        { text: `DELETE FROM ${s}.run_locks WHERE job_id = $1 AND NOT ${live}`, values: [jobId] },
        { text: `SELECT host, pid, command, started_at, shard_count FROM ${s}.run_locks WHERE job_id = $1 AND shard_count IS DISTINCT FROM $2::int ORDER BY started_at LIMIT 1`, values: [jobId, holder.shardCount ?? null] },
      ],
      { begin: true },
    );
    const other = others?.[0];
    if (shared && other !== undefined) {
      bridge.run([{ text: 'ROLLBACK' }]);
      bridge.run([{ text: 'SELECT pg_advisory_unlock_shared(hashtext($1), $2::int)', values: lock }], { client: 'lock' });
      throw new LockHeldError(holderOf(other, job), `job "${job}"`, `the state database ${path}`);
    }
    bridge.run(
      [
        {
          text: `INSERT INTO ${s}.run_locks (job_id, lock_pid, host, pid, command, started_at, shard_count) VALUES ($1, $2, $3, $4, $5, $6, $7)
                 ON CONFLICT (job_id, lock_pid) DO UPDATE SET host = excluded.host, pid = excluded.pid, command = excluded.command, started_at = excluded.started_at, shard_count = excluded.shard_count`,
          values: [jobId, lockPid, holder.host, holder.pid, holder.command, now, holder.shardCount ?? null],
        },
      ],
      { commit: true },
    );
    return lockPid;
  }
  const [rows] = bridge.run([{ text: `SELECT host, pid, command, started_at FROM ${s}.run_locks WHERE job_id = $1 AND ${live} ORDER BY (shard_count IS NULL) DESC, started_at LIMIT 1`, values: [jobId] }]);
  throw new LockHeldError(rows?.[0] === undefined ? undefined : holderOf(rows[0], job), `job "${job}"`, `the state database ${path}`);
}

function holderOf(row: Record<string, unknown>, job: string): LockHolder {
  return { host: String(row.host), pid: Number(row.pid), command: String(row.command), startedAt: new Date(Number(row.started_at)).toISOString(), job, id: `${String(row.host)}:${String(row.pid)}` };
}

