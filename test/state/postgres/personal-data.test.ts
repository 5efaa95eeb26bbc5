/** Retention and erasure (PersonalDataStore, issue 45) on the PostgreSQL store, as state-port.ts says them. */
import { spawnSync } from 'node:child_process';
import { postgresSettings, useTestDatabase } from '../../helpers/postgres-support.js';
import { openPg } from './pg-store-fixtures.js';

const database = useTestDatabase();

test("the journal's lines of runs started before a time expire; the runs stay, marked", async () => {
  let clock = 1_000;
  const store = openPg(database, { schema: 'retention', now: () => clock });
  try {
    const old = store.startRun({ job: 'crm', argv: 'run', full: false, surface: 'v1' });
    store.journalChange('C-1', '100', { operation: 'update', fields: { email: ['a@x', 'b@x'] }, beforeRead: true });
    store.journalChange('C-2', '200', { operation: 'add-tags', tags: ['t'], beforeRead: false });
    clock = 5_000;
    const recent = store.startRun({ job: 'crm', argv: 'run', full: false, surface: 'v1' });
    store.journalChange('C-1', '100', { operation: 'update', fields: { email: ['b@x', 'c@x'] }, beforeRead: true });
    clock = 9_000;
    expect(store.expireJournal(2_000)).toEqual({ runs: 1, lines: 2 });
    expect([store.changeCountOfRun(old), store.changeCountOfRun(recent), store.run(old)?.id]).toEqual([0, 1, old]);
    expect(await database.query('SELECT id, journal_expired_at FROM retention.state_runs ORDER BY id')).toEqual([
      { id: String(old), journal_expired_at: '9000' },
      { id: String(recent), journal_expired_at: null },
    ]);
    expect(store.expireJournal(2_000)).toEqual({ runs: 0, lines: 0 });
  } finally {
    store.close();
  }
});

test('an erased key leaves every table of the job; a key the store never held is said so; another job keeps its own', async () => {
  const store = openPg(database, { schema: 'erasure' });
  const other = openPg(database, { schema: 'erasure', job: 'other' });
  try {
    other.recordConfirmed('C-1', { contactId: '100', surface: 'v1', draftHash: null });
    const run = store.startRun({ job: 'crm', argv: 'run', full: false, surface: 'v1' });
    store.recordConfirmed('C-1', { contactId: '100', surface: 'v1', fields: { email: 'a@x' }, draftHash: 'd1' });
    store.journalChange('C-1', '100', { operation: 'create', fields: { email: [null, 'a@x'] }, beforeRead: true });
    store.recordMessage('100', 'm1', 'sent');
    store.markMessageDue('C-1');
    store.recordDeparture('C-1', { contactId: '100', surface: 'v1', action: 'tag', tagsAdded: ['left'] });
    store.markCreatePending('C-1');
    store.recordConfirmed('C-2', { contactId: '200', surface: 'v1', draftHash: null });
    expect(store.eraseKeys(['C-1', 'NOPE'])).toEqual([
      {
        key: 'C-1',
        known: true,
        contactId: '100',
        removed: { record: 1, pendingCreate: 1, changeLines: 1, messages: 1, messageDue: 1, departure: 1 },
        runIds: [run],
      },
      { key: 'NOPE', known: false, removed: {}, runIds: [] },
    ]);
    expect([store.get('C-1'), store.messageRecord('100', 'm1'), store.isMessageDue('C-1'), store.departedRecord('C-1'), store.changesOfKey('C-1')]).toEqual([undefined, undefined, false, undefined, []]);
    expect([store.knows('C-2'), other.knows('C-1')]).toEqual([true, true]);
    expect(await database.query("SELECT count(*)::int AS n FROM erasure.contacts WHERE key = 'C-1'")).toEqual([{ n: 1 }]);
  } finally {
    store.close();
    other.close();
  }
});

/** What `pg_dump` shows of a schema's data: the bytes a backup of the database would hold. */
function dumped(schema: string): string {
  const { host, port, user } = postgresSettings();
  const dump = spawnSync('pg_dump', ['--data-only', '--schema', schema, '--host', host, '--port', String(port), '--username', user, database.name], { encoding: 'utf8' });
  if (dump.status !== 0) throw new Error(`pg_dump failed (${String(dump.status)}): ${dump.stderr}`);
  return dump.stdout;
}

test('a forgotten key and an expired run leave none of their values in what pg_dump shows', () => {
  let clock = 1_000;
  const store = openPg(database, { schema: 'dumped', now: () => clock });
  try {
    store.startRun({ job: 'crm', argv: 'run', full: false, surface: 'v1' });
    store.recordConfirmed('ERASE-7731', { contactId: '771', surface: 'v1', fields: { email: 'erase-me-7731@example.com' }, draftHash: 'd1' });
    store.journalChange('ERASE-7731', '771', { operation: 'create', fields: { email: [null, 'erase-me-7731@example.com'] }, beforeRead: true });
    store.journalChange('KEEP-1', '772', { operation: 'update', fields: { firstName: ['Ottoline-old', 'Ottoline-new'] }, beforeRead: true });
    clock = 5_000;
    store.startRun({ job: 'crm', argv: 'run', full: false, surface: 'v1' });
    store.journalChange('KEEP-1', '772', { operation: 'update', fields: { firstName: ['Ottoline-new', 'Ottoline-newest'] }, beforeRead: true });
    const before = dumped('dumped');
    expect([before.includes('erase-me-7731'), before.includes('ERASE-7731'), before.includes('Ottoline-old')]).toEqual([true, true, true]);

    store.eraseKeys(['ERASE-7731']);
    store.expireJournal(2_000);

    const after = dumped('dumped');
    expect([after.includes('erase-me-7731'), after.includes('ERASE-7731'), after.includes('Ottoline-old')]).toEqual([false, false, false]);
    // The later run's lines stay.
    expect(after).toContain('Ottoline-newest');
  } finally {
    store.close();
  }
});
