/**
 * Migration 16 (issue 46): the change journal's `operation` CHECK widened to `delete` and `merge`
 * by rebuilding the table, keeping its lines' ids, its AUTOINCREMENT high mark and its indexes.
 */
import Database from 'better-sqlite3';
import { ChangeJournal } from '../../src/state/change-journal.js';
import { MIGRATIONS, migrate, SCHEMA_VERSION } from '../../src/state/schema.js';

/** A database as the migrations before 16 leave it. */
function before16(): Database.Database {
  const db = new Database(':memory:');
  db.exec('CREATE TABLE schema_version (version INTEGER PRIMARY KEY NOT NULL, description TEXT NOT NULL, applied_at INTEGER NOT NULL)');
  for (const migration of MIGRATIONS.filter((m) => m.version < 16)) {
    db.exec(migration.sql);
    db.prepare('INSERT INTO schema_version (version, description, applied_at) VALUES (?, ?, 0)').run(migration.version, migration.description);
  }
  return db;
}

function insert(db: Database.Database, operation: string): number {
  return Number(db.prepare("INSERT INTO changes (run_id, key, contact_id, operation, changes_json, recorded_at, before_read) VALUES (1, 'K', '7', ?, '{}', 5, 1)").run(operation).lastInsertRowid);
}

describe('migration 16', () => {
  test('before it, the journal refuses a delete line (what it widens)', () => {
    const db = before16();
    expect(() => insert(db, 'delete')).toThrow(/CHECK constraint failed/);
    db.close();
  });

  test('keeps every line and its id, never gives a pruned id again, keeps the indexes, and takes delete and merge lines', () => {
    const db = before16();
    const kept = [insert(db, 'create'), insert(db, 'update'), insert(db, 'add-tags')];
    const pruned = insert(db, 'remove-tags');
    db.prepare('DELETE FROM changes WHERE id = ?').run(pruned);
    const rows = db.prepare('SELECT * FROM changes ORDER BY id').all();

    expect(migrate(db, ':memory:', 'crm', 0)).toBe(Math.max(...MIGRATIONS.filter((m) => m.version < 16).map((m) => m.version)));
    expect(db.prepare('SELECT * FROM changes ORDER BY id').all()).toEqual(rows);
    expect(kept).toEqual([1, 2, 3]);
    // The next line follows the pruned one's id, as it would have without the rebuild.
    expect(insert(db, 'delete')).toBe(pruned + 1);
    expect(insert(db, 'merge')).toBe(pruned + 2);
    expect(() => insert(db, 'rename')).toThrow(/CHECK constraint failed/);
    const indexes = db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'changes' ORDER BY name").all();
    expect(indexes).toEqual([{ name: 'changes_by_key' }, { name: 'changes_by_run' }]);
    expect(db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'changes_v16'").get()).toEqual({ n: 0 });
    expect(SCHEMA_VERSION).toBeGreaterThanOrEqual(16);
    db.close();
  });

  test('the journal writes and reads back a deletion\'s values and a merge\'s ids and fields', () => {
    const db = before16();
    migrate(db, ':memory:', 'crm', 0);
    const journal = new ChangeJournal(db);
    journal.record(3, 'K1', '7', { operation: 'delete', values: { fields: { email: 'a@example.com', plan: 'pro' }, tags: ['crm', 'vip'] }, beforeRead: true }, 10);
    journal.record(3, 'K2', '8', { operation: 'merge', merged: ['9'], fields: { plan: ['free', 'pro'] }, beforeRead: true }, 11);
    expect(journal.forRun(3)).toEqual([
      { id: 1, runId: 3, key: 'K1', contactId: '7', recordedAt: 10, beforeRead: true, operation: 'delete', values: { fields: { email: 'a@example.com', plan: 'pro' }, tags: ['crm', 'vip'] } },
      { id: 2, runId: 3, key: 'K2', contactId: '8', recordedAt: 11, beforeRead: true, operation: 'merge', merged: ['9'], fields: { plan: ['free', 'pro'] } },
    ]);
    db.close();
  });
});
