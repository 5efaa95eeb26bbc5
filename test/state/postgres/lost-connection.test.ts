/**
 * A lost database connection ends the store: the call that meets the loss and every later one
 * throw a store failure the pipeline recognises (isStoreFailure: the job stops, exit 3), and
 * nothing is written after the loss; the next open resumes from what was committed.
 */
import pg from 'pg';
import { isStoreFailure } from '../../../src/pipeline/job-abort.js';
import { useTestDatabase } from '../../helpers/postgres-support.js';
import { backendsOf, openPg } from './pg-store-fixtures.js';

const database = useTestDatabase();

function thrown(call: () => unknown): unknown {
  try {
    call();
  } catch (error) {
    return error;
  }
  return undefined;
}

test('the connection killed mid-use: every later call fails at once as a store failure, nothing more is written, the next run resumes', async () => {
  const store = openPg(database, { url: database.url.replace('postgres@', 'postgres:s3cret-pw@') });
  try {
    const run = store.startRun({ job: 'crm', argv: 'run', full: false, surface: 'v1' });
    store.recordConfirmed('C-1', { contactId: '100', surface: 'v1', draftHash: 'd1' });
    store.journalChange('C-1', '100', { operation: 'create', fields: { plan: [null, 'pro'] }, beforeRead: true });
    const pids = await backendsOf(database);
    expect(pids).toHaveLength(1);
    await database.query('SELECT pg_terminate_backend($1)', [pids[0]]);

    const first = thrown(() => store.recordConfirmed('C-2', { contactId: '200', surface: 'v1', draftHash: 'd2' }));
    expect(isStoreFailure(first)).toBe(true);
    expect(first).toMatchObject({ code: 'STATE_PG_LOST' });
    expect((first as Error).message).toContain('lost its connection');
    expect((first as Error).message).not.toContain('s3cret-pw');
    // Every later call, read or write, fails at once with the same failure.
    expect(thrown(() => store.markCreatePending('C-3'))).toBe(first);
    expect(thrown(() => store.get('C-1'))).toBe(first);
    expect(thrown(() => store.finishRun(run, { rows: {}, exitCode: 3, status: 'aborted' }))).toBe(first);
  } finally {
    store.close();
  }
  const keys = await database.query<{ key: string }>('SELECT key FROM contact_sync.contacts ORDER BY key');
  expect(keys.map((row) => row.key)).toEqual(['C-1']);
  expect(await database.query('SELECT key FROM contact_sync.pending_creates')).toEqual([]);

  const next = openPg(database);
  try {
    expect([next.get('C-1')?.contact.id, next.changesOfKey('C-1').length, next.lastRun()?.finished]).toEqual(['100', 1, false]);
  } finally {
    next.close();
  }
});

test('no answer in time (a row held by another session): the call fails as a store failure, and so does every later one; nothing is written', async () => {
  const setup = openPg(database, { schema: 'slow' });
  setup.recordConfirmed('C-1', { contactId: '100', surface: 'v1', draftHash: null });
  setup.close();
  const holder = new pg.Client({ connectionString: database.url });
  await holder.connect();
  try {
    await holder.query('BEGIN');
    await holder.query("SELECT * FROM slow.contacts WHERE key = 'C-1' FOR UPDATE");
    const store = openPg(database, { schema: 'slow', timeoutMs: 500 });
    try {
      const first = thrown(() => store.recordConfirmed('C-1', { contactId: '100', surface: 'v1', fields: { plan: 'late' }, draftHash: null }));
      expect(isStoreFailure(first)).toBe(true);
      expect(first).toMatchObject({ code: 'STATE_PG_TIMEOUT' });
      expect((first as Error).message).toContain('got no answer from the database');
      expect(thrown(() => store.markCreatePending('C-2'))).toBe(first);
    } finally {
      await holder.query('ROLLBACK');
      store.close();
    }
  } finally {
    await holder.end();
  }
  expect(await database.query('SELECT key, fields_json FROM slow.contacts')).toEqual([{ key: 'C-1', fields_json: '{}' }]);
  expect(await database.query('SELECT key FROM slow.pending_creates')).toEqual([]);
});
