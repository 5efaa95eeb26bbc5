/**
 * Personal data leaves the SQLite file for good (issue 45): after `expireJournal` and `eraseKeys`,
 * the bytes of the store's file and of its -wal hold no expired or erased value. Each test first
 * finds the value in those bytes (the store still open, its WAL not checkpointed), so it can fail.
 */
import { existsSync, readFileSync } from 'node:fs';
import { StateStore } from '../../src/state/state-store.js';
import { makeStateTestDir, type StateTestDir } from './state-test-dir.js';

const DAY = 86_400_000;
const EMAIL = 'erase-me-7731@example.com';
const NAME = 'Quillonette';

let temp: StateTestDir;
beforeEach(() => (temp = makeStateTestDir()));
afterEach(() => temp.remove());

/** Whether the file or its -wal holds `value`'s UTF-8 bytes. */
function inFiles(path: string, value: string): boolean {
  const bytes = Buffer.from(value, 'utf8');
  return [path, `${path}-wal`].some((file) => existsSync(file) && readFileSync(file).includes(bytes));
}

/** A store with `EMAIL` and `NAME` journalled by an old run, and a hundred other keys around them. */
function storeWithValues(path: string, clock: { now: number }): StateStore {
  const store = StateStore.open(path, { job: 'crm', keyField: 'customerid', now: () => clock.now });
  store.startRun({ job: 'crm', startedAt: clock.now - 100 * DAY, argv: 'run', full: false, surface: 'v1' });
  for (let index = 0; index < 100; index++) {
    const key = `C-${String(index).padStart(3, '0')}`;
    store.recordConfirmed(key, { contactId: `id-${index}`, surface: 'v1', fields: { email: `other-${index}@example.com` }, draftHash: null });
    store.journalChange(key, `id-${index}`, { operation: 'update', fields: { email: [`was-${index}@example.com`, `other-${index}@example.com`] }, beforeRead: true });
  }
  store.journalChange('C-050', 'id-50', { operation: 'update', fields: { email: [EMAIL, 'other-50@example.com'], firstname: [NAME, 'Ann'] }, beforeRead: true });
  store.startRun({ job: 'crm', startedAt: clock.now - DAY, argv: 'run', full: false, surface: 'v1' });
  store.journalChange('C-001', 'id-1', { operation: 'update', fields: { plan: ['free', 'pro'] }, beforeRead: true });
  return store;
}

describe("the state file's bytes", () => {
  test('an expired journal leaves none of its values in the file or its -wal, while the store is still open', () => {
    const path = temp.statePath();
    const clock = { now: 1_800_000_000_000 };
    const store = storeWithValues(path, clock);
    try {
      expect([inFiles(path, EMAIL), inFiles(path, NAME)]).toEqual([true, true]);
      expect(store.expireJournal(clock.now - 90 * DAY)).toEqual({ runs: 1, lines: 101 });
      expect([inFiles(path, EMAIL), inFiles(path, NAME), inFiles(path, 'was-7@example.com')]).toEqual([false, false, false]);
      // What is kept is still there: the later run's line and the known contacts.
      expect([store.summary().changes, inFiles(path, 'other-7@example.com')]).toEqual([1, true]);
    } finally {
      store.close();
    }
    expect([inFiles(path, EMAIL), inFiles(path, NAME)]).toEqual([false, false]);
  });

  test("an erased key leaves none of its values, nor the key itself, in the file or its -wal", () => {
    const path = temp.statePath();
    const clock = { now: 1_800_000_000_000 };
    const store = storeWithValues(path, clock);
    const key = 'erase-key-5519';
    try {
      store.recordConfirmed(key, { contactId: 'id-erase', surface: 'v1', fields: { email: EMAIL, firstname: NAME }, draftHash: 'd' });
      store.journalChange(key, 'id-erase', { operation: 'create', fields: { email: [null, EMAIL], firstname: [null, NAME] }, beforeRead: true });
      store.recordMessage('id-erase', 'hash-erase-4471', 'sent');
      store.recordDeparture(key, { contactId: 'id-erase', surface: 'v1', action: 'tag', tagsAdded: ['left'] });
      // The old run's line of C-050 holds EMAIL too: erase that key as well.
      expect([inFiles(path, key), inFiles(path, EMAIL), inFiles(path, 'hash-erase-4471')]).toEqual([true, true, true]);
      const erased = store.eraseKeys([key, 'C-050']);
      expect(erased.map((entry) => entry.known)).toEqual([true, true]);
      expect([inFiles(path, key), inFiles(path, EMAIL), inFiles(path, NAME), inFiles(path, 'hash-erase-4471'), inFiles(path, 'other-50@example.com')]).toEqual([false, false, false, false, false]);
      expect(inFiles(path, 'other-51@example.com')).toBe(true);
    } finally {
      store.close();
    }
    expect([inFiles(path, key), inFiles(path, EMAIL)]).toEqual([false, false]);
  });
});
