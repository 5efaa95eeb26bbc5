/**
 * `state copy`'s two halves (StateTransfer) across the two stores: SQLite -> PostgreSQL -> SQLite
 * gives back the same pages, with run and line ids kept; a job's many keys go a page at a time.
 */
import type { StatePage, StatePort } from '../../../src/state/state-port.js';
import { StateStore } from '../../../src/state/state-store.js';
import { useTestDatabase } from '../../helpers/postgres-support.js';
import { makeStateTestDir } from '../state-test-dir.js';
import { openPg } from './pg-store-fixtures.js';

const database = useTestDatabase();

function pagesOf(store: StatePort): StatePage[] {
  const pages: StatePage[] = [];
  store.exportState((page) => pages.push({ table: page.table, rows: page.rows.map((row) => ({ ...row })) }));
  return pages;
}

/** A bit of every table of the state. */
function fill(store: StatePort, now: { clock: number }): void {
  const first = store.startRun({ job: 'crm', argv: 'run jobs.yaml', full: true, surface: 'v1' });
  store.recordConfirmed('C-1', { contactId: '100', surface: 'v1', fields: { plan: 'pro' }, tagsAdded: ['vip'], draftHash: 'd1', rowHash: 'r1' });
  store.journalChange('C-1', '100', { operation: 'create', fields: { plan: [null, 'pro'] }, beforeRead: true });
  store.recordObserved('C-2', { contactId: '200', surface: 'v1', fields: { plan: 'free' }, tags: ['a'], draftHash: null });
  store.journalChange('C-2', '200', { operation: 'add-tags', tags: ['a'], beforeRead: false });
  store.markCreatePending('C-3');
  store.recordMessage('100', 'm1', 'sent');
  store.markMessageDue('C-4');
  store.finishRun(first, { rows: { total: 4, created: 1 }, exitCode: 0, status: 'completed' });
  now.clock += 1000;
  store.startRun({ job: 'crm', argv: 'reconcile', full: false, surface: 'v1' });
  store.recordDeparture('C-2', { contactId: '200', surface: 'v1', action: 'tag', tagsAdded: ['left'] });
  store.recordReconcileRead('C-5', true);
  store.recordUncreatable('C-6', { rowHash: 'r6', surface: 'v2', code: 'V2_CANNOT_CREATE', message: 'no email' });
  store.keepLearntLimits([{ name: 'contacts', rate: { limit: 50, periodMs: 10_000 } }]);
  store.recordHeader(['id', 'plan']);
  store.recordVerifyPages(2, 9);
}

test('SQLite -> PostgreSQL -> SQLite: the same pages, run and line ids kept, and the copy works as the original', () => {
  const now = { clock: 1_700_000_000_000 };
  const temp = makeStateTestDir();
  const source = StateStore.open(temp.statePath('source'), { job: 'crm', keyField: 'customerid', now: () => now.clock });
  const pg = openPg(database, { schema: 'copy', now: () => now.clock });
  const back = StateStore.open(temp.statePath('back'), { job: 'crm', keyField: 'customerid', now: () => now.clock });
  try {
    fill(source, now);
    const original = pagesOf(source);
    expect(original.map((page) => page.table)).toEqual(['meta', 'contacts', 'pending_creates', 'messages', 'messages_due', 'runs', 'departed', 'changes', 'absent_reads', 'uncreatable_rows', 'learnt_limits']);
    expect(pg.holdsState()).toBe(false);
    pg.importState((visit) => source.exportState(visit));
    expect(pg.holdsState()).toBe(true);
    expect(pg.lastRuns(5)).toEqual(source.lastRuns(5));
    expect(pg.changesOfKey('C-1')).toEqual(source.changesOfKey('C-1'));
    expect(pg.get('C-2')).toEqual(source.get('C-2'));
    expect([pg.isCreatePending('C-3'), pg.isMessageDue('C-4'), pg.absentRead('C-5'), pg.uncreatableAhead(['C-6']).size, pg.lastHeader(), pg.verifyPages()]).toEqual([
      true,
      true,
      source.absentRead('C-5'),
      1,
      ['id', 'plan'],
      { next: 2, known: 9 },
    ]);
    expect(pg.summary()).toMatchObject({ keys: 2, pendingCreates: 1, messages: 1, departed: 1, changes: 2 });
    // The next run on the copy follows the copied ones.
    expect(pg.startRun({ job: 'crm', argv: 'run', full: false, surface: 'v1' })).toBe(3);
    back.importState((visit) => {
      // The run just started is not the original's: copy what the original had.
      for (const page of pagesOf(pg)) visit(page.table === 'runs' ? { table: 'runs', rows: page.rows.filter((row) => row.id !== 3) } : page);
    });
    expect(pagesOf(back)).toEqual(original);
    expect(back.summary()).toMatchObject({ job: 'crm', keyField: 'customerid' });
  } finally {
    source.close();
    pg.close();
    back.close();
    temp.remove();
  }
});

test('a job of many keys is exported and scanned a page at a time, in key order', () => {
  const store = openPg(database, { schema: 'many' });
  const keys = Array.from({ length: 12_001 }, (_, index) => `K-${String(index).padStart(6, '0')}`);
  try {
    store.importState((visit) => {
      visit({ table: 'contacts', rows: keys.map((key) => ({ key, contact_id: `id-${key}`, fields_json: '{}', tags_json: '[]', draft_hash: null, updated_at: 1, job_tags_json: null, row_hash: null, surface: 'v1', verified_at: null })) });
    });
    const pages = pagesOf(store);
    expect(pages.map((page) => page.rows.length)).toEqual([5_000, 5_000, 2_001]);
    expect(pages.flatMap((page) => page.rows.map((row) => row.key))).toEqual(keys);
    const scanned: string[] = [];
    store.scanKeys((key) => scanned.push(key.key));
    expect(scanned).toEqual(keys);
    const verified: string[] = [];
    store.markVerified([[keys[0] ?? '', `id-${keys[0] ?? ''}`]]);
    store.scanByVerified((key) => {
      verified.push(key.key);
      return true;
    });
    expect(verified).toEqual([...keys.slice(1), keys[0]]);
  } finally {
    store.close();
  }
});
