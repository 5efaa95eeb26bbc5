/**
 * The state store keeps, per contact id, the surface of the platform it came from (schema version
 * 10; docs/reliability.md, "Moving a connection from v1 to v2"): each write records the surface it
 * is given, and an id of one surface never merges with what was known under the other.
 */
import { StateStore } from '../../src/state/state-store.js';
import { makeStateTestDir, type StateTestDir } from './state-test-dir.js';

let temp: StateTestDir;
let store: StateStore;
beforeEach(() => {
  temp = makeStateTestDir();
  store = StateStore.open(temp.statePath(), { job: 'crm', keyField: 'customerid', now: () => 1_700_000_000_000 });
});
afterEach(() => {
  try {
    store.close();
  } finally {
    temp.remove();
  }
});

describe('the surface of each contact id', () => {
  test('each write records the surface it is given; every read says it', () => {
    store.recordConfirmed('C-1', { contactId: '100', surface: 'v1', fields: { plan: 'pro' }, draftHash: 'h1', rowHash: 'r1' });
    store.recordObserved('C-2', { contactId: '200', surface: 'v2', fields: {}, tags: [], draftHash: 'h2' });
    expect(store.get('C-1')?.surface).toBe('v1');
    expect(store.get('C-2')?.surface).toBe('v2');
    const ahead = store.readAhead(['C-1', 'C-2']);
    expect([ahead.get('C-1')?.surface, ahead.get('C-2')?.surface]).toEqual(['v1', 'v2']);
    expect(ahead.get('C-2')?.record()?.surface).toBe('v2');
    const scanned: Array<[string, string]> = [];
    store.scanKeys((key) => scanned.push([key.key, key.surface]));
    expect(scanned).toEqual([
      ['C-1', 'v1'],
      ['C-2', 'v2'],
    ]);
    expect([store.knows('C-1'), store.knows('C-1', 'v1'), store.knows('C-1', 'v2'), store.knows('C-2', 'v2')]).toEqual([true, true, false, true]);
  });

  test('the same id learnt on the other surface is another contact: what was known is replaced, not merged', () => {
    store.recordConfirmed('C-1', { contactId: '100', surface: 'v1', fields: { plan: 'pro', old: 'x' }, tagsAdded: ['vip'], draftHash: 'h1', rowHash: 'r1' });
    store.recordConfirmed('C-1', { contactId: '100', surface: 'v2', fields: { plan: 'team' }, draftHash: 'h2' });
    expect(store.get('C-1')).toMatchObject({ surface: 'v2', contact: { id: '100', custom_fields: { plan: 'team' }, tags: [] }, jobTags: null, draftHash: 'h2', rowHash: null });
    // The job's tags known under v1 are not carried to the v2 contact read with the same tag.
    store.recordConfirmed('C-2', { contactId: '200', surface: 'v1', tagsAdded: ['vip'], draftHash: 'h' });
    store.recordObserved('C-2', { contactId: '200', surface: 'v2', fields: {}, tags: ['vip'], draftHash: null });
    expect(store.get('C-2')).toMatchObject({ surface: 'v2', contact: { tags: ['vip'] }, jobTags: null });
  });

  test('a departure recorded for an id of another surface leaves the known contact as it is', () => {
    store.recordConfirmed('C-1', { contactId: '100', surface: 'v2', fields: { status: 'active' }, draftHash: 'h1' });
    store.recordDeparture('C-1', { contactId: '100', surface: 'v1', action: 'update', fields: { status: 'inactive' } });
    expect(store.get('C-1')).toMatchObject({ surface: 'v2', contact: { custom_fields: { status: 'active' } }, draftHash: 'h1' });
    expect(store.departedRecord('C-1')).toMatchObject({ contactId: '100', surface: 'v1' });
    store.recordDeparture('C-1', { contactId: '100', surface: 'v2', action: 'update', fields: { status: 'inactive' } });
    expect(store.get('C-1')).toMatchObject({ surface: 'v2', contact: { custom_fields: { status: 'inactive' } }, draftHash: null });
  });

  test('each run records the surface it spoke', () => {
    const v1 = store.startRun({ job: 'crm', argv: 'run', full: false, surface: 'v1' });
    const v2 = store.startRun({ job: 'crm', argv: 'run', full: false, surface: 'v2' });
    expect([store.run(v1)?.surface, store.run(v2)?.surface]).toEqual(['v1', 'v2']);
  });

  test('a create a v1 run left pending and a v2 run settles is journalled as the v2 run’s: the v1 run’s undo never writes to a v2 id', () => {
    const v1 = store.startRun({ job: 'crm', argv: 'run', full: false, surface: 'v1' });
    store.markCreatePending('C-9');
    const v2 = store.startRun({ job: 'crm', argv: 'run', full: false, surface: 'v2' });
    store.recordObserved('C-9', { contactId: '900', surface: 'v2', fields: { plan: 'pro' }, tags: [], draftHash: null });
    expect(store.changesOfRun(v1)).toEqual([]);
    expect(store.changesOfRun(v2)).toMatchObject([{ key: 'C-9', contactId: '900', operation: 'create' }]);
    expect(store.pendingCreates()).toEqual([]);
  });

  test('a create left pending by a run of the same surface is still journalled as that run’s', () => {
    const sender = store.startRun({ job: 'crm', argv: 'run', full: false, surface: 'v2' });
    store.markCreatePending('C-9');
    const settler = store.startRun({ job: 'crm', argv: 'run', full: false, surface: 'v2' });
    store.recordObserved('C-9', { contactId: '900', surface: 'v2', fields: {}, tags: [], draftHash: null });
    expect(store.changesOfRun(sender)).toMatchObject([{ key: 'C-9', contactId: '900', operation: 'create' }]);
    expect(store.changesOfRun(settler)).toEqual([]);
  });
});
