/** The state store's memory of verification (schema version 10, verify.share): when each key was last verified, and where the pages' round robin goes on. */
import { StateStore } from '../../src/state/state-store.js';
import { makeStateTestDir, type StateTestDir } from './state-test-dir.js';

let temp: StateTestDir;
let store: StateStore;
let clock: number;
beforeEach(() => {
  temp = makeStateTestDir();
  clock = 1_700_000_000_000;
  store = StateStore.open(temp.statePath(), { job: 'crm', keyField: 'customerid', now: () => clock });
});
afterEach(() => {
  try {
    store.close();
  } finally {
    temp.remove();
  }
});

function order(limit = Infinity): string[] {
  const keys: string[] = [];
  store.scanByVerified((key) => {
    keys.push(`${key.key}${key.departed ? ' (departed)' : ''}`);
    return keys.length < limit;
  });
  return keys;
}

describe('least recently verified first', () => {
  beforeEach(() => {
    for (const key of ['C-1', 'C-2', 'C-3', 'C-4']) store.recordConfirmed(key, { contactId: `id-${key}`, surface: 'v1', fields: { firstName: key }, draftHash: 'h' });
  });

  test('never verified first, by key; then the oldest verification; the visit stops when asked', () => {
    expect(order()).toEqual(['C-1', 'C-2', 'C-3', 'C-4']);
    clock += 1000;
    store.markVerified([['C-2', 'id-C-2'], ['C-1', 'id-C-1']]);
    clock += 1000;
    store.markVerified([['C-3', 'id-C-3']]);
    expect(order()).toEqual(['C-4', 'C-1', 'C-2', 'C-3']);
    expect(order(2)).toEqual(['C-4', 'C-1']);
  });

  test('a key whose contact changed since the read is not marked; a write keeps the mark; departed keys say so', () => {
    store.markVerified([['C-1', 'another-id']]);
    expect(order()[0]).toBe('C-1');
    store.markVerified([['C-1', 'id-C-1']]);
    store.recordConfirmed('C-1', { contactId: 'id-C-1', surface: 'v1', fields: { firstName: 'Ann' }, draftHash: 'h2' });
    expect(order()).toEqual(['C-2', 'C-3', 'C-4', 'C-1']);
    store.recordDeparture('C-2', { contactId: 'id-C-2', surface: 'v1', action: 'tag', tagsAdded: ['left'] });
    expect(order()).toContain('C-2 (departed)');
  });

  test('a contact read from the platform (a search, a reconcile) counts as verified then', () => {
    clock += 1000;
    store.recordObserved('C-1', { contactId: 'id-C-1', surface: 'v1', fields: { firstName: 'C-1' }, tags: [], draftHash: 'h' });
    expect(order()).toEqual(['C-2', 'C-3', 'C-4', 'C-1']);
  });

  test('the records visited are whole', () => {
    store.scanByVerified((key) => {
      expect(key.record).toMatchObject({ key: key.key, contact: { id: `id-${key.key}`, custom_fields: { firstName: key.key } }, draftHash: 'h' });
      return true;
    });
  });
});

test('the pages round robin starts at page 1 and goes on where the last run stopped', () => {
  expect(store.verifyPages()).toEqual({ next: 1 });
  store.recordVerifyPages(6, 10);
  expect(store.verifyPages()).toEqual({ next: 6, known: 10 });
});
