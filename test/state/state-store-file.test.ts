import Database from 'better-sqlite3';
import { chmodSync, existsSync, statSync, writeFileSync } from 'node:fs';
import { SCHEMA_VERSION } from '../../src/state/schema.js';
import { StateStore } from '../../src/state/state-store.js';
import { StateStoreError } from '../../src/state/state-store-error.js';
import { makeStateTestDir, type StateTestDir } from './state-test-dir.js';

const identity = { job: 'crm-nightly', keyField: 'customerid' };
let temp: StateTestDir;
beforeEach(() => {
  temp = makeStateTestDir();
});
afterEach(() => temp.remove());

function thrownBy(action: () => unknown): StateStoreError {
  try {
    action();
  } catch (error) {
    if (error instanceof StateStoreError) return error;
    throw error;
  }
  throw new Error('expected a StateStoreError, nothing was thrown');
}

function mode(path: string): number {
  return statSync(path).mode & 0o777;
}

describe('the state file', () => {
  test('is created with its parent directories, and keeps its data across close and reopen', () => {
    const path = temp.statePath();
    const store = StateStore.open(path, identity);
    store.recordConfirmed('C-1', { contactId: '100', surface: 'v1', fields: { email: 'a@example.com' }, tagsAdded: ['crm'], draftHash: 'h1' });
    store.markCreatePending('C-2');
    store.close();
    store.close();

    const reopened = StateStore.open(path, identity);
    expect(reopened.get('C-1')).toMatchObject({ contact: { id: '100', custom_fields: { email: 'a@example.com' }, tags: ['crm'] }, draftHash: 'h1' });
    expect(reopened.pendingCreates()).toEqual(['C-2']);
    expect(reopened.summary()).toMatchObject({ path, job: 'crm-nightly', keyField: 'customerid', keys: 1, pendingCreates: 1 });
    reopened.close();
  });

  test('is readable and writable by its owner only, and so are its -wal and -shm files', () => {
    const path = temp.statePath();
    const store = StateStore.open(path, identity);
    store.recordConfirmed('C-1', { contactId: '100', surface: 'v1', draftHash: null });
    expect(mode(path)).toBe(0o600);
    expect(mode(`${path}-wal`)).toBe(0o600);
    expect(mode(`${path}-shm`)).toBe(0o600);
    store.close();
  });

  test('that already exists with a wider mode is narrowed to 0600 on open', () => {
    const path = temp.statePath();
    StateStore.open(path, identity).close();
    chmodSync(path, 0o644);
    StateStore.open(path, identity).close();
    expect(mode(path)).toBe(0o600);
  });

  test('recorded for another key field is refused with the file and the reset command in the message', () => {
    const path = temp.statePath();
    StateStore.open(path, identity).close();
    const error = thrownBy(() => StateStore.open(path, { job: 'crm-nightly', keyField: 'email' }));
    expect(error.code).toBe('STATE_KEY_FIELD_MISMATCH');
    expect(error.path).toBe(path);
    expect(error.message).toContain(path);
    expect(error.message).toContain('"customerid"');
    expect(error.message).toContain('"email"');
    expect(error.message).toContain('contact-sync state reset <jobs.yaml> --job crm-nightly');
  });

  test('opened under a new job name keeps its data and shows the new name', () => {
    const path = temp.statePath();
    const first = StateStore.open(path, identity);
    first.recordConfirmed('C-1', { contactId: '100', surface: 'v1', draftHash: null });
    first.close();
    const renamed = StateStore.open(path, { job: 'crm-renamed', keyField: 'customerid' });
    expect(renamed.summary().job).toBe('crm-renamed');
    expect(renamed.get('C-1')?.contact.id).toBe('100');
    renamed.close();
  });

  test('that is not a SQLite database is refused as unreadable, naming the file and the fix', () => {
    const path = temp.statePath();
    StateStore.open(path, identity).close();
    writeFileSync(path, 'this is not a database, just some text that is long enough to fill a header page');
    const error = thrownBy(() => StateStore.open(path, identity));
    expect(error.code).toBe('STATE_UNREADABLE');
    expect(error.message).toContain(path);
    expect(error.message).toContain('contact-sync state reset <jobs.yaml> --job crm-nightly');
  });

  test('written by a newer schema version is refused', () => {
    const path = temp.statePath();
    const store = StateStore.open(path, identity);
    store.close();
    // What a newer contact-sync would have left: a migration this version does not know.
    const raw = new Database(path);
    raw.exec("INSERT INTO schema_version (version, description, applied_at) VALUES (999, 'future', 0)");
    raw.close();
    expect(thrownBy(() => StateStore.open(path, identity)).code).toBe('STATE_SCHEMA_TOO_NEW');
  });

  test('reset deletes the file with its -wal and -shm, and a reopened store is empty', () => {
    const path = temp.statePath();
    const store = StateStore.open(path, identity);
    store.recordConfirmed('C-1', { contactId: '100', surface: 'v1', draftHash: null });
    store.close();
    expect(StateStore.reset(path)).toContain(path);
    expect(existsSync(path)).toBe(false);
    expect(existsSync(`${path}-wal`)).toBe(false);
    expect(existsSync(`${path}-shm`)).toBe(false);
    expect(StateStore.reset(path)).toEqual([]);
    const fresh = StateStore.open(path, { job: 'crm-nightly', keyField: 'email' });
    expect(fresh.summary().keys).toBe(0);
    fresh.close();
  });
});

describe('a state file of an earlier version', () => {
  let temp: StateTestDir;
  beforeEach(() => (temp = makeStateTestDir()));
  afterEach(() => temp.remove());

  test('of version 4 gains row hashes: its keys keep their draft hashes, with no row hash yet', () => {
    const path = temp.statePath();
    const store = StateStore.open(path, { job: 'crm', keyField: 'customerid' });
    store.recordConfirmed('C-1', { contactId: '100', surface: 'v1', fields: { plan: 'pro' }, draftHash: 'h1', rowHash: 'r1' });
    store.close();
    // What version 4 left: no row_hash column, no change journal, no absent reads, no migration 5 or later.
    const raw = new Database(path);
    raw.exec('ALTER TABLE runs DROP COLUMN report_dir; ALTER TABLE runs DROP COLUMN journal_expired_at; DROP TABLE learnt_limits; DROP TABLE uncreatable_rows; ALTER TABLE messages DROP COLUMN message_id; DROP INDEX contacts_by_verified; ALTER TABLE contacts DROP COLUMN verified_at; ALTER TABLE contacts DROP COLUMN surface; ALTER TABLE runs DROP COLUMN surface; ALTER TABLE departed DROP COLUMN surface; ALTER TABLE contacts DROP COLUMN row_hash; DROP TABLE changes; ALTER TABLE pending_creates DROP COLUMN run_id; ALTER TABLE runs DROP COLUMN pruned_at; DROP TABLE absent_reads; DELETE FROM schema_version WHERE version >= 5;');
    raw.close();

    const migrated = StateStore.open(path, { job: 'crm', keyField: 'customerid' });
    expect(migrated.summary().schemaVersion).toBe(SCHEMA_VERSION);
    expect(migrated.get('C-1')).toMatchObject({ contact: { id: '100', custom_fields: { plan: 'pro' } }, draftHash: 'h1', rowHash: null });
    migrated.close();
  });

  test('of version 5 gains an empty change journal, and its runs keep their ids', () => {
    const path = temp.statePath();
    const store = StateStore.open(path, { job: 'crm', keyField: 'customerid' });
    const runId = store.startRun({ job: 'crm', argv: 'run', full: false, surface: 'v1' });
    store.close();
    // What version 5 left: no changes table, no absent reads, no migration 6 or later.
    const raw = new Database(path);
    raw.exec('ALTER TABLE runs DROP COLUMN report_dir; ALTER TABLE runs DROP COLUMN journal_expired_at; DROP TABLE learnt_limits; DROP TABLE uncreatable_rows; ALTER TABLE messages DROP COLUMN message_id; DROP INDEX contacts_by_verified; ALTER TABLE contacts DROP COLUMN verified_at; ALTER TABLE contacts DROP COLUMN surface; ALTER TABLE runs DROP COLUMN surface; ALTER TABLE departed DROP COLUMN surface; DROP TABLE changes; ALTER TABLE pending_creates DROP COLUMN run_id; ALTER TABLE runs DROP COLUMN pruned_at; DROP TABLE absent_reads; DELETE FROM schema_version WHERE version >= 6;');
    raw.close();

    const migrated = StateStore.open(path, { job: 'crm', keyField: 'customerid' });
    expect(migrated.summary()).toMatchObject({ schemaVersion: SCHEMA_VERSION, changes: 0 });
    expect(migrated.run(runId)).toMatchObject({ id: runId, argv: 'run' });
    expect(migrated.changesOfRun(runId)).toEqual([]);
    migrated.close();
  });

  test('of version 6 keeps its pending creates; one marked then names no run, and the run that settles it journals the create', () => {
    const path = temp.statePath();
    const store = StateStore.open(path, { job: 'crm', keyField: 'customerid' });
    store.markCreatePending('C-1');
    store.close();
    // What version 6 left: pending creates with no run, no migration 7 or later.
    const raw = new Database(path);
    raw.exec('ALTER TABLE runs DROP COLUMN report_dir; ALTER TABLE runs DROP COLUMN journal_expired_at; DROP TABLE learnt_limits; DROP TABLE uncreatable_rows; ALTER TABLE messages DROP COLUMN message_id; DROP INDEX contacts_by_verified; ALTER TABLE contacts DROP COLUMN verified_at; ALTER TABLE contacts DROP COLUMN surface; ALTER TABLE runs DROP COLUMN surface; ALTER TABLE departed DROP COLUMN surface; ALTER TABLE pending_creates DROP COLUMN run_id; ALTER TABLE changes DROP COLUMN before_read; ALTER TABLE runs DROP COLUMN pruned_at; DROP TABLE absent_reads; DELETE FROM schema_version WHERE version >= 7;');
    raw.close();

    const migrated = StateStore.open(path, { job: 'crm', keyField: 'customerid' });
    expect(migrated.summary()).toMatchObject({ schemaVersion: SCHEMA_VERSION, pendingCreates: 1 });
    const runId = migrated.startRun({ job: 'crm', argv: 'run', full: false, surface: 'v1' });
    migrated.recordObserved('C-1', { contactId: '100', surface: 'v1', fields: { plan: 'pro' }, tags: [], draftHash: null });
    expect(migrated.changesOfRun(runId)).toMatchObject([{ key: 'C-1', contactId: '100', operation: 'create', fields: { plan: [null, 'pro'] } }]);
    migrated.close();
  });

  test('of version 7 keeps its journal lines, read as unverified, and its runs as not pruned', () => {
    const path = temp.statePath();
    const store = StateStore.open(path, { job: 'crm', keyField: 'customerid' });
    const runId = store.startRun({ job: 'crm', argv: 'run', full: false, surface: 'v1' });
    store.journalChange('C-1', '100', { operation: 'update', fields: { plan: ['basic', 'pro'] }, beforeRead: true });
    store.close();
    // What version 7 left: no before_read, no pruned_at, no migration 8.
    const raw = new Database(path);
    raw.exec('ALTER TABLE runs DROP COLUMN report_dir; ALTER TABLE runs DROP COLUMN journal_expired_at; DROP TABLE learnt_limits; DROP TABLE uncreatable_rows; ALTER TABLE messages DROP COLUMN message_id; DROP INDEX contacts_by_verified; ALTER TABLE contacts DROP COLUMN verified_at; ALTER TABLE contacts DROP COLUMN surface; ALTER TABLE runs DROP COLUMN surface; ALTER TABLE departed DROP COLUMN surface; ALTER TABLE changes DROP COLUMN before_read; ALTER TABLE runs DROP COLUMN pruned_at; DROP TABLE absent_reads; DELETE FROM schema_version WHERE version >= 8;');
    raw.close();

    const migrated = StateStore.open(path, { job: 'crm', keyField: 'customerid' });
    expect(migrated.summary().schemaVersion).toBe(SCHEMA_VERSION);
    // A line from before the flag: nobody can say its before was read, so undo will not vouch for it.
    expect(migrated.changesOfRun(runId)).toEqual([expect.objectContaining({ operation: 'update', fields: { plan: ['basic', 'pro'] }, beforeRead: false })]);
    expect(migrated.run(runId)).toMatchObject({ id: runId, prunedAt: null });
    migrated.close();
  });

  test('of version 8 gains the absent reads, empty: no key counts as read absent by a reconcile', () => {
    const path = temp.statePath();
    const store = StateStore.open(path, { job: 'crm', keyField: 'customerid' });
    store.startRun({ job: 'crm', argv: 'reconcile jobs.yaml', full: false, surface: 'v1' });
    store.recordReconcileRead('C-9', true);
    store.close();
    // What version 8 left: no absent_reads table, no migration 9.
    const raw = new Database(path);
    raw.exec('ALTER TABLE runs DROP COLUMN report_dir; ALTER TABLE runs DROP COLUMN journal_expired_at; DROP TABLE learnt_limits; DROP TABLE uncreatable_rows; ALTER TABLE messages DROP COLUMN message_id; DROP INDEX contacts_by_verified; ALTER TABLE contacts DROP COLUMN verified_at; ALTER TABLE contacts DROP COLUMN surface; ALTER TABLE runs DROP COLUMN surface; ALTER TABLE departed DROP COLUMN surface; DROP TABLE absent_reads; DELETE FROM schema_version WHERE version >= 9;');
    raw.close();

    const migrated = StateStore.open(path, { job: 'crm', keyField: 'customerid' });
    expect(migrated.summary().schemaVersion).toBe(SCHEMA_VERSION);
    expect(migrated.absentRead('C-9')).toBeUndefined();
    migrated.close();
  });

  test('of version 9 opens as version 10: every contact id, run and departure it holds came from API v1', () => {
    const path = temp.statePath();
    const store = StateStore.open(path, { job: 'crm', keyField: 'customerid' });
    const runId = store.startRun({ job: 'crm', argv: 'run', full: false, surface: 'v1' });
    store.recordConfirmed('C-1', { contactId: '100', surface: 'v1', fields: { plan: 'pro' }, draftHash: 'h1', rowHash: 'r1' });
    store.recordConfirmed('C-2', { contactId: '200', surface: 'v1', draftHash: 'h2' });
    store.recordDeparture('C-2', { contactId: '200', surface: 'v1', action: 'tag', tagsAdded: ['left'] });
    store.close();
    // What version 9 left: no surface anywhere, no migration 10.
    const raw = new Database(path);
    raw.exec('ALTER TABLE runs DROP COLUMN report_dir; ALTER TABLE runs DROP COLUMN journal_expired_at; DROP TABLE learnt_limits; DROP TABLE uncreatable_rows; ALTER TABLE messages DROP COLUMN message_id; DROP INDEX contacts_by_verified; ALTER TABLE contacts DROP COLUMN verified_at; ALTER TABLE contacts DROP COLUMN surface; ALTER TABLE runs DROP COLUMN surface; ALTER TABLE departed DROP COLUMN surface; DELETE FROM schema_version WHERE version >= 10;');
    expect(raw.prepare('SELECT max(version) AS version FROM schema_version').get()).toEqual({ version: 9 });
    raw.close();

    const migrated = StateStore.open(path, { job: 'crm', keyField: 'customerid' });
    expect(migrated.summary().schemaVersion).toBe(SCHEMA_VERSION);
    expect(migrated.listKeys(Infinity).map((known) => [known.key, known.contact.id, known.surface])).toEqual([
      ['C-1', '100', 'v1'],
      ['C-2', '200', 'v1'],
    ]);
    // The rest of each record is as it was: a v1 run still settles C-1 by its hashes.
    expect(migrated.get('C-1')).toMatchObject({ surface: 'v1', contact: { custom_fields: { plan: 'pro' } }, draftHash: 'h1', rowHash: 'r1' });
    expect(migrated.run(runId)).toMatchObject({ id: runId, surface: 'v1' });
    expect(migrated.departedRecord('C-2')).toMatchObject({ contactId: '200', surface: 'v1' });
    expect(migrated.knows('C-1', 'v1')).toBe(true);
    expect(migrated.knows('C-1', 'v2')).toBe(false);
    migrated.close();
  });

  test('of version 10 gains verified_at: every key counts as never verified, so verification starts with them in key order', () => {
    const path = temp.statePath();
    const store = StateStore.open(path, { job: 'crm', keyField: 'customerid' });
    for (const key of ['C-2', 'C-1']) store.recordConfirmed(key, { contactId: key, surface: 'v1', fields: { plan: 'pro' }, draftHash: 'h1' });
    store.close();
    // What version 10 left: no verified_at column, no migration 11.
    const raw = new Database(path);
    raw.exec('ALTER TABLE runs DROP COLUMN report_dir; ALTER TABLE runs DROP COLUMN journal_expired_at; DROP TABLE learnt_limits; DROP TABLE uncreatable_rows; ALTER TABLE messages DROP COLUMN message_id; DROP INDEX contacts_by_verified; ALTER TABLE contacts DROP COLUMN verified_at; DELETE FROM schema_version WHERE version >= 11;');
    raw.close();

    const migrated = StateStore.open(path, { job: 'crm', keyField: 'customerid' });
    expect(migrated.summary().schemaVersion).toBe(SCHEMA_VERSION);
    const keys: string[] = [];
    migrated.scanByVerified((key) => keys.push(key.key) > 0);
    expect(keys).toEqual(['C-1', 'C-2']);
    expect(migrated.get('C-1')).toMatchObject({ draftHash: 'h1', contact: { custom_fields: { plan: 'pro' } } });
    migrated.close();
  });

  test('of version 11 gains message_id: its sends and maybe-sent marks keep their status and time, with no messageId', () => {
    const path = temp.statePath();
    let now = 1_700_000_000_000;
    const store = StateStore.open(path, { job: 'crm', keyField: 'customerid', now: () => now });
    store.recordMessage('100', 'welcome', 'sent');
    now += 1000;
    store.recordMessage('200', 'welcome', 'unknown');
    store.close();
    // What version 11 left: no message_id column, no migration 12.
    const raw = new Database(path);
    raw.exec('ALTER TABLE runs DROP COLUMN report_dir; ALTER TABLE runs DROP COLUMN journal_expired_at; DROP TABLE learnt_limits; DROP TABLE uncreatable_rows; ALTER TABLE messages DROP COLUMN message_id; DELETE FROM schema_version WHERE version >= 12;');
    expect(raw.prepare('SELECT max(version) AS version FROM schema_version').get()).toEqual({ version: 11 });
    raw.close();

    const migrated = StateStore.open(path, { job: 'crm', keyField: 'customerid' });
    expect(migrated.summary()).toMatchObject({ schemaVersion: SCHEMA_VERSION, messages: 2 });
    expect(migrated.messageRecord('100', 'welcome')).toEqual({ status: 'sent', recordedAt: 1_700_000_000_000, messageId: null });
    expect(migrated.messageRecord('200', 'welcome')).toEqual({ status: 'unknown', recordedAt: 1_700_000_001_000, messageId: null });
    // A v2 send settled later keeps its messageId in the migrated file.
    migrated.recordMessage('200', 'welcome', 'sent', '9001');
    expect(migrated.messageRecord('200', 'welcome')).toMatchObject({ status: 'sent', messageId: '9001' });
    migrated.close();
  });

  test('of version 12 gains the rows the surface cannot create, empty; a mark is kept, read ahead, and dropped when a contact holds the key or on reset', () => {
    const path = temp.statePath();
    StateStore.open(path, { job: 'crm', keyField: 'customerid' }).close();
    const raw = new Database(path);
    raw.exec('ALTER TABLE runs DROP COLUMN report_dir; ALTER TABLE runs DROP COLUMN journal_expired_at; DROP TABLE learnt_limits; DROP TABLE uncreatable_rows; DELETE FROM schema_version WHERE version >= 13;');
    raw.close();

    const migrated = StateStore.open(path, { job: 'crm', keyField: 'customerid' });
    expect(migrated.summary().schemaVersion).toBe(SCHEMA_VERSION);
    expect(migrated.uncreatableAhead(['C1', 'C2'])).toEqual(new Map());
    const mark = { rowHash: 'h1', surface: 'v2', code: 'V2_CANNOT_CREATE', message: 'cannot' } as const;
    migrated.recordUncreatable('C1', mark);
    migrated.recordUncreatable('C2', { ...mark, rowHash: 'h2' });
    expect(migrated.uncreatableAhead(['C1', 'C2', 'C3'])).toEqual(new Map([['C1', mark], ['C2', { ...mark, rowHash: 'h2' }]]));
    migrated.recordConfirmed('C1', { contactId: '7', surface: 'v2', draftHash: null });
    expect([...migrated.uncreatableAhead(['C1', 'C2']).keys()]).toEqual(['C2']);
    migrated.forgetAllButMessages();
    expect(migrated.uncreatableAhead(['C2'])).toEqual(new Map());
    migrated.close();
  });

  test('of version 13 gains the limits learnt, none: a run keeps what it learnt, a budget it did not learn keeps the earlier one, and a reset of contacts keeps them', () => {
    const path = temp.statePath();
    StateStore.open(path, { job: 'crm', keyField: 'customerid' }).close();
    const raw = new Database(path);
    raw.exec('ALTER TABLE runs DROP COLUMN report_dir; ALTER TABLE runs DROP COLUMN journal_expired_at; DROP TABLE learnt_limits; DELETE FROM schema_version WHERE version >= 14;');
    raw.close();

    const migrated = StateStore.open(path, { job: 'crm', keyField: 'customerid' });
    expect(migrated.summary().schemaVersion).toBe(SCHEMA_VERSION);
    expect(migrated.learntLimits()).toEqual([]);
    migrated.keepLearntLimits([
      { name: 'POST /contact/list', rate: { limit: 10, periodMs: 1_000 } },
      { name: 'PUT /contact/{identifier}', rate: { limit: 5, periodMs: 1_000 } },
      { name: 'not a limit', rate: { limit: 0, periodMs: 1_000 } },
    ]);
    migrated.keepLearntLimits([{ name: 'POST /contact/list', rate: { limit: 20, periodMs: 2_000 } }]);
    migrated.forgetAllButMessages();
    expect(migrated.learntLimits()).toEqual([
      { name: 'POST /contact/list', rate: { limit: 20, periodMs: 2_000 } },
      { name: 'PUT /contact/{identifier}', rate: { limit: 5, periodMs: 1_000 } },
    ]);
    migrated.close();
  });

  test('of version 14 gains the journal expiry: its runs are kept, none expired, until a retention expires them', () => {
    const path = temp.statePath();
    const before = StateStore.open(path, { job: 'crm', keyField: 'customerid', now: () => 1000 });
    const runId = before.startRun({ job: 'crm', argv: 'run', full: false, surface: 'v1' });
    before.journalChange('C1', '7', { operation: 'create', fields: { plan: [null, 'pro'] }, beforeRead: true });
    before.close();
    const raw = new Database(path);
    raw.exec('ALTER TABLE runs DROP COLUMN report_dir; ALTER TABLE runs DROP COLUMN journal_expired_at; DELETE FROM schema_version WHERE version >= 15;');
    raw.close();

    const migrated = StateStore.open(path, { job: 'crm', keyField: 'customerid', now: () => 5000 });
    expect(migrated.summary().schemaVersion).toBe(SCHEMA_VERSION);
    expect(migrated.run(runId)).toMatchObject({ journalExpiredAt: null, prunedAt: null });
    expect(migrated.expireJournal(2000)).toEqual({ runs: 1, lines: 1 });
    expect(migrated.run(runId)?.journalExpiredAt).toBe(5000);
    migrated.close();
  });

  test('of version 16 gains the report folder of runs: its runs name none, a new run names its own', () => {
    const path = temp.statePath();
    const before = StateStore.open(path, { job: 'crm', keyField: 'customerid' });
    const old = before.startRun({ job: 'crm', argv: 'run', full: false, surface: 'v1' });
    before.close();
    const raw = new Database(path);
    raw.exec('ALTER TABLE runs DROP COLUMN report_dir; DELETE FROM schema_version WHERE version >= 17;');
    raw.close();

    const migrated = StateStore.open(path, { job: 'crm', keyField: 'customerid' });
    expect(migrated.summary().schemaVersion).toBe(SCHEMA_VERSION);
    expect([migrated.run(old)?.reportDir, migrated.reportFolders()]).toEqual([null, []]);
    migrated.startRun({ job: 'crm', argv: 'run', full: false, surface: 'v1', reportDir: '/srv/reports/night' });
    expect(migrated.reportFolders()).toEqual(['/srv/reports/night']);
    migrated.close();
  });
});
