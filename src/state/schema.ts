/**
 * The state store's tables and how a file gets from any earlier version to the current one.
 * A migration is never edited once released: a change is a new migration at the end.
 */
import type Database from 'better-sqlite3';
import { StateStoreError, resetCommand } from './state-store-error.js';

export interface Migration {
  /** 1, 2, 3... in order; recorded in `schema_version` once applied. */
  readonly version: number;
  readonly description: string;
  readonly sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'meta, contacts, pending creates, messages, runs',
    sql: `
      -- job, key_field, created_at: which job and key field the keys of this file belong to.
      CREATE TABLE meta (
        name  TEXT PRIMARY KEY NOT NULL,
        value TEXT NOT NULL
      ) WITHOUT ROWID;

      -- What the platform confirmed for each key. fields_json: custom field -> value written;
      -- tags_json: tags known present; draft_hash: NULL when the last write was partial.
      CREATE TABLE contacts (
        key         TEXT PRIMARY KEY NOT NULL,
        contact_id  TEXT NOT NULL,
        fields_json TEXT NOT NULL,
        tags_json   TEXT NOT NULL,
        draft_hash  TEXT,
        updated_at  INTEGER NOT NULL
      ) WITHOUT ROWID;

      -- Keys whose create was (about to be) sent without a confirmed answer yet: a later run
      -- searches them before creating. Apart from contacts because such a key has no id yet.
      CREATE TABLE pending_creates (
        key       TEXT PRIMARY KEY NOT NULL,
        marked_at INTEGER NOT NULL
      ) WITHOUT ROWID;

      -- Messages sent (or maybe sent) to a contact, by hash of the rendered message.
      CREATE TABLE messages (
        contact_id   TEXT NOT NULL,
        message_hash TEXT NOT NULL,
        status       TEXT NOT NULL CHECK (status IN ('sent', 'unknown')),
        recorded_at  INTEGER NOT NULL,
        PRIMARY KEY (contact_id, message_hash)
      ) WITHOUT ROWID;

      -- One row per run; finished_at stays NULL for a run that was killed.
      CREATE TABLE runs (
        id          INTEGER PRIMARY KEY AUTOINCREMENT,
        job         TEXT NOT NULL,
        started_at  INTEGER NOT NULL,
        argv        TEXT NOT NULL,
        full        INTEGER NOT NULL CHECK (full IN (0, 1)),
        finished_at INTEGER,
        rows_json   TEXT,
        exit_code   INTEGER
      );
    `,
  },
  {
    version: 2,
    description: 'messages due',
    sql: `
      -- Keys whose row's message is due but has not left yet (journalled before the row's writes,
      -- cleared once the message left or was settled): a run killed between a create and its
      -- greeting sends it on the re-run, whatever the row's outcome then (docs/reliability.md).
      CREATE TABLE messages_due (
        key         TEXT PRIMARY KEY NOT NULL,
        recorded_at INTEGER NOT NULL
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 3,
    description: 'run status',
    sql: `
      -- How each run ended: completed | interrupted | aborted | deadline (summary.json's status);
      -- NULL for a run still going or killed, and for runs journalled before this column.
      ALTER TABLE runs ADD COLUMN status TEXT;
    `,
  },
  {
    version: 4,
    description: 'tags the job set, departed keys',
    sql: `
      -- The tags this job added to the contact and has not removed since (tags.prune removes
      -- those the row no longer carries); NULL for keys recorded before this column: their
      -- tags are not known to be the job's, so only tags.owned prunes them.
      ALTER TABLE contacts ADD COLUMN job_tags_json TEXT;

      -- Keys that left the input and were acted on by onMissing (once each): the action taken,
      -- and for action tag the tags added, which are removed again if the key comes back.
      CREATE TABLE departed (
        key         TEXT PRIMARY KEY NOT NULL,
        contact_id  TEXT NOT NULL,
        action      TEXT NOT NULL CHECK (action IN ('tag', 'untag', 'update')),
        tags_json   TEXT NOT NULL,
        departed_at INTEGER NOT NULL
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 5,
    description: 'row hashes',
    sql: `
      -- The hash of the input row whose draft is draft_hash, under the job's mapping
      -- (pipeline/map/row-hash.ts): a re-run's row with this hash is unchanged without being
      -- mapped. NULL whenever draft_hash is, for keys recorded before this column, and after
      -- anything but the row's own write changed the contact (a departure).
      ALTER TABLE contacts ADD COLUMN row_hash TEXT;
    `,
  },
  {
    version: 6,
    description: 'change journal',
    sql: `
      -- Every write the platform confirmed, under the run that made it (change-journal.ts): the
      -- contact, the operation, and for a create or an update each field's value before (null:
      -- the contact had none) and after; for a tags call the tags added or removed. Written in its
      -- own transaction as each call is confirmed, before the next call leaves. Kept until pruned
      -- (state prune); undo reads it.
      CREATE TABLE changes (
        id           INTEGER PRIMARY KEY AUTOINCREMENT,
        run_id       INTEGER NOT NULL,
        key          TEXT NOT NULL,
        contact_id   TEXT NOT NULL,
        operation    TEXT NOT NULL CHECK (operation IN ('create', 'update', 'add-tags', 'remove-tags')),
        changes_json TEXT NOT NULL,
        recorded_at  INTEGER NOT NULL
      );
      CREATE INDEX changes_by_run ON changes (run_id, id);
      CREATE INDEX changes_by_key ON changes (key, id);
    `,
  },
  {
    version: 7,
    description: 'the run of a pending create',
    sql: `
      -- The run that sent the create (NULL: marked before this column, or with no run started):
      -- the run that settles the key with a contact journals it as that run's create, so that
      -- undo of that run tags it, even when the run was killed or its store failed before it
      -- could journal the create itself (docs/undo.md, "Creates whose answer was lost").
      ALTER TABLE pending_creates ADD COLUMN run_id INTEGER;
    `,
  },
  {
    version: 8,
    description: 'journal lines whose before was read, pruned runs',
    sql: `
      -- 1: the line's "before" (a field's value, whether a tag was there) was read from the
      -- platform in this run; 0: it was what the state store knew, unread (undo cannot vouch for
      -- it: docs/undo.md, "Unverified"). NULL for lines journalled before this column: unread.
      ALTER TABLE changes ADD COLUMN before_read INTEGER CHECK (before_read IN (0, 1));

      -- When \`state prune\` dropped the run's change journal (ms since the Unix epoch); NULL while
      -- it is kept. The run stays listed; undo of it says the journal was pruned, and when.
      ALTER TABLE runs ADD COLUMN pruned_at INTEGER;
    `,
  },
  {
    version: 9,
    description: 'absent reads',
    sql: `
      -- Keys a reconcile read on the platform and found no contact for (absent-reads.ts): the
      -- run right after that reconcile creates them without a search (docs/reconcile.md).
      -- run_id: the reconcile's; read_at: when it read the key.
      CREATE TABLE absent_reads (
        key     TEXT PRIMARY KEY NOT NULL,
        run_id  INTEGER NOT NULL,
        read_at INTEGER NOT NULL
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 10,
    description: 'the surface of each contact id',
    sql: `
      -- The surface of the platform (API v1 or v2: \`connections.<name>.api\`) whose answer gave
      -- the id (docs/reliability.md, "Moving a connection from v1 to v2"): an id is trusted only by
      -- a run on the same surface; a run on the other one matches the key again by its key field.
      -- Every id recorded before this column came from v1, the only surface there was.
      ALTER TABLE contacts ADD COLUMN surface TEXT NOT NULL DEFAULT 'v1' CHECK (surface IN ('v1', 'v2'));

      -- The surface the run spoke: the ids of its change lines (and of the contacts its undo
      -- would write to) came from it. Runs before this column spoke v1.
      ALTER TABLE runs ADD COLUMN surface TEXT NOT NULL DEFAULT 'v1' CHECK (surface IN ('v1', 'v2'));

      -- The surface of the departed contact's id.
      ALTER TABLE departed ADD COLUMN surface TEXT NOT NULL DEFAULT 'v1' CHECK (surface IN ('v1', 'v2'));
    `,
  },
  {
    version: 11,
    description: 'verified at',
    sql: `
      -- When the key's contact was last read from the platform and found (or repaired to) what
      -- the state holds (ms since the Unix epoch; verify.share, pipeline/verify/): verification
      -- re-reads the least recently verified first. NULL: never verified since recorded.
      ALTER TABLE contacts ADD COLUMN verified_at INTEGER;
      CREATE INDEX contacts_by_verified ON contacts (verified_at, key);
    `,
  },
  {
    version: 12,
    description: 'the messageId of a send',
    sql: `
      -- The platform's messageId of a message recorded \`sent\` on API v2: its send's answer, or the
      -- contact's message list that settled a send whose answer was lost (by this run, or by a later
      -- one: docs/reliability.md, "Messages exactly once on v2"). NULL for v1's sends (v1 answers
      -- none), for an \`unknown\` mark, and for every send recorded before this column.
      ALTER TABLE messages ADD COLUMN message_id TEXT;
    `,
  },
  {
    version: 13,
    description: 'rows the surface cannot create',
    sql: `
      -- A key no contact holds whose row failed before any call because the surface cannot create
      -- its contact (API v2 without an email or a phone: V2_CANNOT_CREATE), with that row's hash,
      -- the surface and the failure (uncreatable-rows.ts): the same row on the same surface fails
      -- again on the next run with no call. Dropped when a contact is recorded for the key.
      CREATE TABLE uncreatable_rows (
        key         TEXT PRIMARY KEY NOT NULL,
        row_hash    TEXT NOT NULL,
        surface     TEXT NOT NULL CHECK (surface IN ('v1', 'v2')),
        code        TEXT NOT NULL,
        message     TEXT NOT NULL,
        recorded_at INTEGER NOT NULL
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 14,
    description: 'limits learnt by earlier runs',
    sql: `
      -- What the platform's answers said a budget allows (API v2: per endpoint, X-RateLimit-Limit
      -- over its window; kept-limits.ts): calls per period_ms, and when a run learnt it. A dry run
      -- and a run's first rows reckon their estimates and ETA at it instead of a first guess.
      CREATE TABLE learnt_limits (
        budget    TEXT PRIMARY KEY NOT NULL,
        calls     INTEGER NOT NULL CHECK (calls >= 1),
        period_ms INTEGER NOT NULL CHECK (period_ms > 0),
        learnt_at INTEGER NOT NULL
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 15,
    description: 'journal expiry',
    sql: `
      -- When \`retention.journal\` expired the run's change journal (ms since the Unix epoch: the
      -- lines of a run started before the retention's horizon are deleted, by a run of the job or
      -- \`state prune\`); NULL while it is kept. The run and its counts stay listed; undo of it says
      -- when its journal expired (docs/personal-data.md).
      ALTER TABLE runs ADD COLUMN journal_expired_at INTEGER;
    `,
  },
  {
    version: 16,
    description: 'deletions and merges in the change journal',
    sql: `
      -- The change journal's lines may be a deletion (undo --delete-created: the contact's fields
      -- and tags as they were, so an undo of it creates it again) or a merge (reconcile
      -- --merge-duplicates: the ids merged away and the survivor's fields before). SQLite cannot
      -- alter a CHECK: the table is rebuilt with the wider one, its ids, its AUTOINCREMENT high
      -- mark (an id is never given twice, even after the last lines were pruned) and its indexes.
      CREATE TABLE changes_v16 (
        id           INTEGER PRIMARY KEY AUTOINCREMENT,
        run_id       INTEGER NOT NULL,
        key          TEXT NOT NULL,
        contact_id   TEXT NOT NULL,
        operation    TEXT NOT NULL CHECK (operation IN ('create', 'update', 'add-tags', 'remove-tags', 'delete', 'merge')),
        changes_json TEXT NOT NULL,
        recorded_at  INTEGER NOT NULL,
        before_read  INTEGER CHECK (before_read IN (0, 1))
      );
      INSERT INTO changes_v16 (id, run_id, key, contact_id, operation, changes_json, recorded_at, before_read)
        SELECT id, run_id, key, contact_id, operation, changes_json, recorded_at, before_read FROM changes ORDER BY id;
      DELETE FROM sqlite_sequence WHERE name = 'changes_v16';
      INSERT INTO sqlite_sequence (name, seq) SELECT 'changes_v16', seq FROM sqlite_sequence WHERE name = 'changes';
      DROP TABLE changes;
      ALTER TABLE changes_v16 RENAME TO changes;
      CREATE INDEX changes_by_run ON changes (run_id, id);
      CREATE INDEX changes_by_key ON changes (key, id);
    `,
  },
  {
    version: 17,
    description: 'report folders of runs',
    sql: `
      -- The folder a run wrote its reports to (absolute; NULL for runs journalled before this
      -- column, and for a forget): \`forget\` searches each for the keys it erases, since those
      -- files hold people's values too (docs/personal-data.md).
      ALTER TABLE runs ADD COLUMN report_dir TEXT;
    `,
  },
];

/**
 * The version a file has once `migrate` ran: the last migration's (not their count: a number may
 * be left for another branch's migration, issue 46's 16 beside a 15).
 */
export const SCHEMA_VERSION: number = MIGRATIONS[MIGRATIONS.length - 1]?.version ?? 0;

/**
 * Brings the file to `SCHEMA_VERSION` in one write transaction: a kill during a migration leaves
 * the file at its earlier version, and two processes opening it at once migrate it once.
 * Returns the version the file had before.
 */
export function migrate(db: Database.Database, path: string, job: string, now: number): number {
  const run = db.transaction((): number => {
    db.exec(`CREATE TABLE IF NOT EXISTS schema_version (
      version     INTEGER PRIMARY KEY NOT NULL,
      description TEXT NOT NULL,
      applied_at  INTEGER NOT NULL
    )`);
    const row = db.prepare<[], { version: number | null }>('SELECT max(version) AS version FROM schema_version').get();
    const current = row?.version ?? 0;
    if (current > SCHEMA_VERSION) {
      throw new StateStoreError(
        'STATE_SCHEMA_TOO_NEW',
        path,
        `${path}: this state file has schema version ${current}, written by a newer contact-sync ` +
          `(this one knows up to ${SCHEMA_VERSION}). Run the newer contact-sync, or start the state ` +
          `afresh with \`${resetCommand(job)}\`.`,
      );
    }
    const record = db.prepare<[number, string, number]>(
      'INSERT INTO schema_version (version, description, applied_at) VALUES (?, ?, ?)',
    );
    for (const migration of MIGRATIONS) {
      if (migration.version <= current) continue;
      db.exec(migration.sql);
      record.run(migration.version, migration.description, now);
    }
    return current;
  });
  return run.immediate();
}
