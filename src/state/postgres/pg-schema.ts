/**
 * The PostgreSQL adapter's tables, in a schema of their own (`contact_sync` unless `state:
 * {url, schema}` names another), and how a database gets from any earlier version to this one.
 * A migration is never edited once released: a change is a new migration at the end.
 *
 * Every table of the SQLite store (../schema.ts, version 14, and the journal's expiry of 15) is
 * here with the same columns and contents, plus `job_id` first in its primary key: one database
 * holds every job of every jobs file on every host that names it, each job by its identity (table
 * `jobs`: name, key field, platform). Timestamps stay BIGINT ms since the epoch and the JSON
 * columns stay TEXT, so a state copy between the two stores is a copy. The tables the views name
 * (`runs`, `changes`, `messages`) are `state_runs`, `state_changes` and `state_messages`: the
 * views, documented with stable columns for SQL readers (docs/state.md, "State in PostgreSQL"),
 * take the plain names.
 */
import { StateStoreError } from '../state-store-error.js';
import type { SyncBridge } from './sync-bridge.js';

/** The default schema of `state: postgres://...`. */
export const DEFAULT_PG_SCHEMA = 'contact_sync';

export interface PgMigration {
  readonly version: number;
  readonly description: string;
  /** The statements, for the schema named `s` (already quoted). */
  readonly sql: (s: string) => string;
}

export const PG_MIGRATIONS: readonly PgMigration[] = [
  {
    version: 1,
    description: 'jobs, every table of the SQLite store (its version 15) by job, run locks, the views',
    sql: (s) => `
      -- A job's identity: what its runs share, on whatever host (docs/state.md, "State in PostgreSQL").
      -- platform: the connection's platform identity, as the caller names it (v2:<digest>...).
      -- next_run_id, next_change_id: the job's ids, never reused (as SQLite's AUTOINCREMENT).
      CREATE TABLE ${s}.jobs (
        id             BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        name           TEXT NOT NULL,
        key_field      TEXT NOT NULL,
        platform       TEXT NOT NULL,
        created_at     BIGINT NOT NULL,
        next_run_id    BIGINT NOT NULL DEFAULT 1,
        next_change_id BIGINT NOT NULL DEFAULT 1,
        UNIQUE (name, key_field, platform)
      );

      -- The job's other notes (last_header, verify pages): SQLite's meta less its identity.
      CREATE TABLE ${s}.meta (
        job_id BIGINT NOT NULL,
        name   TEXT COLLATE "C" NOT NULL,
        value  TEXT NOT NULL,
        PRIMARY KEY (job_id, name)
      );

      -- Keys sort as SQLite's do (byte order): COLLATE "C".
      CREATE TABLE ${s}.contacts (
        job_id        BIGINT NOT NULL,
        key           TEXT COLLATE "C" NOT NULL,
        contact_id    TEXT NOT NULL,
        fields_json   TEXT NOT NULL,
        tags_json     TEXT NOT NULL,
        draft_hash    TEXT,
        updated_at    BIGINT NOT NULL,
        job_tags_json TEXT,
        row_hash      TEXT,
        surface       TEXT NOT NULL DEFAULT 'v1' CHECK (surface IN ('v1', 'v2')),
        verified_at   BIGINT,
        PRIMARY KEY (job_id, key)
      );
      CREATE INDEX contacts_by_verified ON ${s}.contacts (job_id, verified_at NULLS FIRST, key);

      CREATE TABLE ${s}.pending_creates (
        job_id    BIGINT NOT NULL,
        key       TEXT COLLATE "C" NOT NULL,
        marked_at BIGINT NOT NULL,
        run_id    BIGINT,
        PRIMARY KEY (job_id, key)
      );

      CREATE TABLE ${s}.state_messages (
        job_id       BIGINT NOT NULL,
        contact_id   TEXT COLLATE "C" NOT NULL,
        message_hash TEXT COLLATE "C" NOT NULL,
        status       TEXT NOT NULL CHECK (status IN ('sent', 'unknown')),
        recorded_at  BIGINT NOT NULL,
        message_id   TEXT,
        PRIMARY KEY (job_id, contact_id, message_hash)
      );

      CREATE TABLE ${s}.messages_due (
        job_id      BIGINT NOT NULL,
        key         TEXT COLLATE "C" NOT NULL,
        recorded_at BIGINT NOT NULL,
        PRIMARY KEY (job_id, key)
      );

      CREATE TABLE ${s}.state_runs (
        job_id             BIGINT NOT NULL,
        id                 BIGINT NOT NULL,
        job                TEXT NOT NULL,
        started_at         BIGINT NOT NULL,
        argv               TEXT NOT NULL,
        "full"             SMALLINT NOT NULL CHECK ("full" IN (0, 1)),
        finished_at        BIGINT,
        rows_json          TEXT,
        exit_code          INTEGER,
        status             TEXT,
        pruned_at          BIGINT,
        surface            TEXT NOT NULL DEFAULT 'v1' CHECK (surface IN ('v1', 'v2')),
        journal_expired_at BIGINT,
        PRIMARY KEY (job_id, id)
      );

      CREATE TABLE ${s}.departed (
        job_id      BIGINT NOT NULL,
        key         TEXT COLLATE "C" NOT NULL,
        contact_id  TEXT NOT NULL,
        action      TEXT NOT NULL CHECK (action IN ('tag', 'untag', 'update')),
        tags_json   TEXT NOT NULL,
        departed_at BIGINT NOT NULL,
        surface     TEXT NOT NULL DEFAULT 'v1' CHECK (surface IN ('v1', 'v2')),
        PRIMARY KEY (job_id, key)
      );

      CREATE TABLE ${s}.state_changes (
        job_id       BIGINT NOT NULL,
        id           BIGINT NOT NULL,
        run_id       BIGINT NOT NULL,
        key          TEXT COLLATE "C" NOT NULL,
        contact_id   TEXT NOT NULL,
        operation    TEXT NOT NULL CHECK (operation IN ('create', 'update', 'add-tags', 'remove-tags', 'delete', 'merge')),
        changes_json TEXT NOT NULL,
        recorded_at  BIGINT NOT NULL,
        before_read  SMALLINT CHECK (before_read IN (0, 1)),
        PRIMARY KEY (job_id, id)
      );
      CREATE INDEX changes_by_run ON ${s}.state_changes (job_id, run_id, id);
      CREATE INDEX changes_by_key ON ${s}.state_changes (job_id, key, id);

      CREATE TABLE ${s}.absent_reads (
        job_id  BIGINT NOT NULL,
        key     TEXT COLLATE "C" NOT NULL,
        run_id  BIGINT NOT NULL,
        read_at BIGINT NOT NULL,
        PRIMARY KEY (job_id, key)
      );

      CREATE TABLE ${s}.uncreatable_rows (
        job_id      BIGINT NOT NULL,
        key         TEXT COLLATE "C" NOT NULL,
        row_hash    TEXT NOT NULL,
        surface     TEXT NOT NULL CHECK (surface IN ('v1', 'v2')),
        code        TEXT NOT NULL,
        message     TEXT NOT NULL,
        recorded_at BIGINT NOT NULL,
        PRIMARY KEY (job_id, key)
      );

      CREATE TABLE ${s}.learnt_limits (
        job_id    BIGINT NOT NULL,
        budget    TEXT COLLATE "C" NOT NULL,
        calls     INTEGER NOT NULL CHECK (calls >= 1),
        period_ms BIGINT NOT NULL CHECK (period_ms > 0),
        learnt_at BIGINT NOT NULL,
        PRIMARY KEY (job_id, budget)
      );

      -- Who holds the job's run lock (the advisory lock is the lock; these rows name its holders
      -- for the message of the run refused): one row for a whole run, one per shard for the shards
      -- of one count, which hold it shared (shard_count: their N; NULL for a whole run). lock_pid is
      -- the holder's lock connection (pg_backend_pid): a holder that died leaves its row, and a row
      -- whose connection is gone is stale.
      CREATE TABLE ${s}.run_locks (
        job_id      BIGINT NOT NULL,
        lock_pid    INTEGER NOT NULL,
        host        TEXT NOT NULL,
        pid         INTEGER NOT NULL,
        command     TEXT NOT NULL,
        started_at  BIGINT NOT NULL,
        shard_count INTEGER,
        PRIMARY KEY (job_id, lock_pid)
      );

      -- The views: stable columns, one row per job's line, with the job's name.
      CREATE VIEW ${s}.runs AS
        SELECT j.name AS job, r.id AS run_id,
               to_timestamp(r.started_at / 1000.0) AS started_at,
               to_timestamp(r.finished_at / 1000.0) AS finished_at,
               r.status, r.exit_code, r.argv, r.surface,
               (r.rows_json::jsonb ->> 'created')::bigint AS created,
               (r.rows_json::jsonb ->> 'updated')::bigint AS updated,
               (r.rows_json::jsonb ->> 'unchanged')::bigint AS unchanged,
               (r.rows_json::jsonb ->> 'failed')::bigint AS failed
        FROM ${s}.state_runs r JOIN ${s}.jobs j ON j.id = r.job_id;

      CREATE VIEW ${s}.changes AS
        SELECT j.name AS job, c.run_id, c.key, c.contact_id, c.operation,
               c.changes_json::jsonb AS changes,
               to_timestamp(c.recorded_at / 1000.0) AS recorded_at
        FROM ${s}.state_changes c JOIN ${s}.jobs j ON j.id = c.job_id;

      CREATE VIEW ${s}.messages AS
        SELECT j.name AS job, m.contact_id, m.message_hash, m.status, m.message_id,
               to_timestamp(m.recorded_at / 1000.0) AS recorded_at
        FROM ${s}.state_messages m JOIN ${s}.jobs j ON j.id = m.job_id;
    `,
  },
  {
    version: 2,
    description: 'report folders of runs (the SQLite store\'s version 17)',
    sql: (s) => `
      -- The folder a run wrote its reports to, as the host that ran it names it (NULL for runs
      -- journalled before this column, and for a forget): \`forget\` searches each it finds.
      ALTER TABLE ${s}.state_runs ADD COLUMN report_dir TEXT;
    `,
  },
];

/** The version a schema has once `migratePg` ran. */
export const PG_SCHEMA_VERSION: number = PG_MIGRATIONS.length;

/** A schema name the product accepts: a plain lower-case identifier (it is written into SQL). */
export function validSchemaName(schema: string): boolean {
  return /^[a-z_][a-z0-9_]{0,62}$/.test(schema);
}

/** `"schema"`, for SQL text (the name was validated). */
export function quoted(schema: string): string {
  return `"${schema}"`;
}

/** What `migratePg` needs to name the database in a refusal. */
export interface MigrationTarget {
  /** The database, as messages show it (no password). */
  readonly where: string;
  readonly schema: string;
  readonly job: string;
}

/**
 * Brings the schema to `PG_SCHEMA_VERSION`, in one transaction under a transaction-level advisory
 * lock: two hosts migrating at once migrate once, and a failure leaves the schema as it was. A
 * schema at the current version is only read (a role with no right to create anything can use it).
 * Returns the version it had before.
 * @throws StateStoreError `STATE_SCHEMA_TOO_NEW` when a newer contact-sync migrated it
 * @throws BridgeFailure when the database refused (42501: no right to create the schema)
 */
export function migratePg(bridge: SyncBridge, target: MigrationTarget, now: number): number {
  const s = quoted(target.schema);
  const current = currentVersion(bridge, target.schema);
  refuseNewer(current, target);
  if (current === PG_SCHEMA_VERSION) return current;
  bridge.run([{ text: 'SELECT pg_advisory_xact_lock(hashtext($1), hashtext($2))', values: ['contact-sync migrate', target.schema] }], { begin: true });
  try {
    const [exists] = bridge.run([{ text: 'SELECT 1 FROM pg_namespace WHERE nspname = $1', values: [target.schema] }]);
    const statements = (exists ?? []).length === 0 ? [{ text: `CREATE SCHEMA ${s}` }] : [];
    statements.push({
      text: `CREATE TABLE IF NOT EXISTS ${s}.schema_version (version INTEGER PRIMARY KEY, description TEXT NOT NULL, applied_at BIGINT NOT NULL)`,
    });
    bridge.run(statements);
    // Read again under the lock: another host may have migrated while this one waited.
    const [rows] = bridge.run([{ text: `SELECT coalesce(max(version), 0) AS version FROM ${s}.schema_version` }]);
    const before = Number(rows?.[0]?.version ?? 0);
    refuseNewer(before, target);
    const work = PG_MIGRATIONS.filter((migration) => migration.version > before).flatMap((migration) => [
      { text: migration.sql(s) },
      { text: `INSERT INTO ${s}.schema_version (version, description, applied_at) VALUES ($1, $2, $3)`, values: [migration.version, migration.description, now] },
    ]);
    bridge.run(work, { commit: true });
    return before;
  } catch (error) {
    // The bridge rolled back a failed request's transaction; a refusal thrown here left it open.
    if (error instanceof StateStoreError) bridge.run([{ text: 'ROLLBACK' }]);
    throw error;
  }
}

/** The schema's version, 0 when it (or its version table) does not exist yet (only read). */
export function currentVersion(bridge: SyncBridge, schema: string): number {
  const [rows] = bridge.run([{ text: 'SELECT to_regclass($1) IS NOT NULL AS present', values: [`${quoted(schema)}.schema_version`] }]);
  if (rows?.[0]?.present !== true) return 0;
  const [versions] = bridge.run([{ text: `SELECT coalesce(max(version), 0) AS version FROM ${quoted(schema)}.schema_version` }]);
  return Number(versions?.[0]?.version ?? 0);
}

function refuseNewer(version: number, target: MigrationTarget): void {
  if (version <= PG_SCHEMA_VERSION) return;
  throw new StateStoreError(
    'STATE_SCHEMA_TOO_NEW',
    target.where,
    `${target.where}: the state schema "${target.schema}" has version ${version}, migrated by a newer contact-sync ` +
      `(this one knows up to ${PG_SCHEMA_VERSION}). Run the newer contact-sync for job "${target.job}" (every host that ` +
      `names this database must run it), or point the job's \`state:\` at another schema ({url, schema}).`,
  );
}

