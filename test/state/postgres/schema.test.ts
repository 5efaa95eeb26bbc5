/**
 * The PostgreSQL store's schema: one database holds many jobs, each seeing only its own rows; a
 * schema newer than this contact-sync is refused; the documented views answer their columns;
 * a durable write is committed before the call returns.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { PG_MIGRATIONS, PG_SCHEMA_VERSION } from '../../../src/state/postgres/pg-schema.js';
import { useTestDatabase } from '../../helpers/postgres-support.js';
import { openPg } from './pg-store-fixtures.js';

const database = useTestDatabase();

describe("the PostgreSQL store's schema", () => {
  test("two jobs on one database do not see each other's keys, runs or messages", () => {
    const crm = openPg(database, { schema: 'two_jobs' });
    const shop = openPg(database, { schema: 'two_jobs', job: 'shop', keyField: 'sku' });
    try {
      crm.recordConfirmed('K-1', { contactId: '100', surface: 'v1', draftHash: null });
      crm.startRun({ job: 'crm', argv: 'run', full: false, surface: 'v1' });
      crm.recordMessage('100', 'm1', 'sent');
      shop.recordConfirmed('K-2', { contactId: '200', surface: 'v1', draftHash: null });
      expect([crm.knows('K-2'), shop.knows('K-1'), shop.get('K-2')?.contact.id]).toEqual([false, false, '200']);
      expect([...crm.readAhead(['K-1', 'K-2']).keys()]).toEqual(['K-1']);
      expect(shop.summary()).toMatchObject({ job: 'shop', keyField: 'sku', keys: 1, messages: 0, lastRun: undefined });
      expect(crm.summary()).toMatchObject({ job: 'crm', keyField: 'customerid', keys: 1, messages: 1 });
      // Each job's run ids start at 1.
      expect(shop.startRun({ job: 'shop', argv: 'run', full: false, surface: 'v1' })).toBe(1);
    } finally {
      crm.close();
      shop.close();
    }
    // The same name on another platform is another job.
    const elsewhere = openPg(database, { schema: 'two_jobs', platform: 'test:2' });
    expect(elsewhere.summary().keys).toBe(0);
    elsewhere.close();
  });

  test('a schema migrated by a newer contact-sync is refused, naming the database and what to do', async () => {
    openPg(database, { schema: 'too_new' }).close();
    await database.query('INSERT INTO too_new.schema_version (version, description, applied_at) VALUES ($1, $2, 0)', [PG_SCHEMA_VERSION + 1, 'from the future']);
    expect(() => openPg(database, { schema: 'too_new' })).toThrow(
      expect.objectContaining({
        code: 'STATE_SCHEMA_TOO_NEW',
        message: expect.stringContaining(`#too_new: the state schema "too_new" has version ${PG_SCHEMA_VERSION + 1}, migrated by a newer contact-sync`) as unknown,
      }) as Error,
    );
  });

  test('a host that finds another migrating the schema waits for it, then migrates nothing more', async () => {
    const other = new pg.Client({ connectionString: database.url });
    await other.connect();
    try {
      const migrations = PG_MIGRATIONS.map((migration) => `${migration.sql('"race"')}; INSERT INTO "race".schema_version VALUES (${migration.version}, 'the other host', 0)`).join(';');
      // The other host holds the migration lock for a second, its schema not yet committed.
      const migrated = other.query(
        `BEGIN; SELECT pg_advisory_xact_lock(hashtext('contact-sync migrate'), hashtext('race')); CREATE SCHEMA race;
         CREATE TABLE race.schema_version (version INTEGER PRIMARY KEY, description TEXT NOT NULL, applied_at BIGINT NOT NULL); ${migrations}; SELECT pg_sleep(1); COMMIT`,
      );
      for (let attempt = 0; ; attempt++) {
        const held = await database.query("SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())");
        if (held.length > 0) break;
        if (attempt > 200) throw new Error('the other host never took the lock');
        await sleep(10);
      }
      const store = openPg(database, { schema: 'race' });
      store.recordConfirmed('C-1', { contactId: '100', surface: 'v1', draftHash: null });
      store.close();
      await migrated;
      expect(await database.query('SELECT version, description FROM race.schema_version ORDER BY version')).toEqual(PG_MIGRATIONS.map((migration) => ({ version: migration.version, description: 'the other host' })));
    } finally {
      await other.end();
    }
  });

  test('the views answer their documented columns, a row per line with the job', async () => {
    let clock = Date.UTC(2026, 10, 28, 2, 0, 0);
    const store = openPg(database, { schema: 'views', now: () => clock });
    try {
      const run = store.startRun({ job: 'crm', argv: 'run jobs.yaml', full: false, surface: 'v2' });
      store.journalChange('C-1', '100', { operation: 'update', fields: { plan: ['free', 'pro'] }, beforeRead: true });
      store.recordMessage('100', 'm1', 'sent', 'msg-1');
      clock += 60_000;
      store.finishRun(run, { rows: { total: 3, created: 1, updated: 1, unchanged: 0, failed: 1 }, exitCode: 1, status: 'completed' });
    } finally {
      store.close();
    }
    const columns = async (view: string): Promise<string[]> =>
      (await database.query<{ column_name: string }>("SELECT column_name FROM information_schema.columns WHERE table_schema = 'views' AND table_name = $1 ORDER BY ordinal_position", [view])).map((row) => row.column_name);
    expect(await columns('runs')).toEqual(['job', 'run_id', 'started_at', 'finished_at', 'status', 'exit_code', 'argv', 'surface', 'created', 'updated', 'unchanged', 'failed']);
    expect(await columns('changes')).toEqual(['job', 'run_id', 'key', 'contact_id', 'operation', 'changes', 'recorded_at']);
    expect(await columns('messages')).toEqual(['job', 'contact_id', 'message_hash', 'status', 'message_id', 'recorded_at']);
    // docs/state.md's query: last night's failures.
    const failures = await database.query(
      "SELECT job, run_id, status, exit_code, failed, extract(epoch FROM finished_at - started_at)::int AS seconds FROM views.runs WHERE started_at > $1::timestamptz - interval '1 day' AND (failed > 0 OR exit_code <> 0)",
      [new Date(Date.UTC(2026, 10, 28, 12)).toISOString()],
    );
    expect(failures).toEqual([{ job: 'crm', run_id: '1', status: 'completed', exit_code: 1, failed: '1', seconds: 60 }]);
    // docs/state.md's query: a contact's changes.
    const changes = await database.query("SELECT job, run_id, operation, changes -> 'plan' ->> 1 AS plan, recorded_at FROM views.changes WHERE key = 'C-1' ORDER BY recorded_at");
    expect(changes).toEqual([{ job: 'crm', run_id: '1', operation: 'update', plan: 'pro', recorded_at: new Date(Date.UTC(2026, 10, 28, 2, 0, 0)) }]);
    expect(await database.query('SELECT job, contact_id, status, message_id FROM views.messages')).toEqual([{ job: 'crm', contact_id: '100', status: 'sent', message_id: 'msg-1' }]);
  });

  test('a pending create is committed before markCreatePending returns: another connection reads it at once', async () => {
    const store = openPg(database, { schema: 'crash' });
    try {
      store.startRun({ job: 'crm', argv: 'run', full: false, surface: 'v1' });
      store.markCreatePending('C-9');
      expect(await database.query('SELECT key, run_id FROM crash.pending_creates')).toEqual([{ key: 'C-9', run_id: '1' }]);
      store.markMessageDue('C-9');
      expect(await database.query('SELECT key FROM crash.messages_due')).toEqual([{ key: 'C-9' }]);
      store.journalChange('C-9', '900', { operation: 'create', fields: { plan: [null, 'pro'] }, beforeRead: true });
      expect(await database.query('SELECT key, operation FROM crash.state_changes')).toEqual([{ key: 'C-9', operation: 'create' }]);
    } finally {
      store.close();
    }
  });

  test('row hash notes are held, seen by a read of their key, and written by close', async () => {
    const store = openPg(database, { schema: 'notes' });
    try {
      store.recordConfirmed('C-1', { contactId: '100', surface: 'v1', draftHash: 'd1' });
      store.noteRowHash('C-1', 'd1', 'r1');
      expect(await database.query('SELECT row_hash FROM notes.contacts')).toEqual([{ row_hash: null }]);
      expect(store.readAhead(['C-1']).get('C-1')?.rowHash).toBe('r1');
      store.recordConfirmed('C-2', { contactId: '200', surface: 'v1', draftHash: 'd2' });
      store.noteRowHash('C-2', 'd2', 'r2');
    } finally {
      store.close();
    }
    expect(await database.query('SELECT key, row_hash FROM notes.contacts ORDER BY key')).toEqual([
      { key: 'C-1', row_hash: 'r1' },
      { key: 'C-2', row_hash: 'r2' },
    ]);
  });
});
