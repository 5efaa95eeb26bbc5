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

describe('known contacts', () => {
  test('a contact read is recorded with the time of the read; a write or an unread record (undo\'s tag for deletion) keeps the last read (issue 41 item 11)', () => {
    store.recordConfirmed('C-1', { contactId: '100', surface: 'v1', fields: { firstName: 'Ann' }, draftHash: 'h1' });
    expect(store.get('C-1')?.verifiedAt).toBeUndefined();
    clock += 1000;
    store.recordObserved('C-1', { contactId: '100', surface: 'v1', fields: { firstName: 'Ann' }, tags: [], draftHash: null });
    expect(store.get('C-1')?.verifiedAt).toBe(1_700_000_001_000);
    clock += 1000;
    store.recordConfirmed('C-1', { contactId: '100', surface: 'v1', fields: { firstName: 'Bea' }, draftHash: 'h2' });
    store.recordObserved('C-1', { contactId: '100', surface: 'v1', fields: { firstName: 'Bea' }, tags: ['contact-sync-undone'], draftHash: null, unread: true });
    expect(store.get('C-1')).toMatchObject({ verifiedAt: 1_700_000_001_000, contact: { tags: ['contact-sync-undone'] } });
  });

  test('an unknown key has no known contact', () => {
    expect(store.get('C-404')).toBeUndefined();
  });

  test('a confirmed update of some fields merges into the fields known, and the time is the clock', () => {
    store.recordConfirmed('C-1', { contactId: '100', surface: 'v1', fields: { firstName: 'Ann', email: 'ann@example.com' }, draftHash: 'h1' });
    clock += 1000;
    store.recordConfirmed('C-1', { contactId: '100', surface: 'v1', fields: { email: 'ann@new.example.com', phone: '+6591234567' }, draftHash: 'h2' });
    expect(store.get('C-1')).toEqual({
      key: 'C-1',
      surface: 'v1',
      contact: { id: '100', custom_fields: { firstName: 'Ann', email: 'ann@new.example.com', phone: '+6591234567' }, tags: [] },
      jobTags: null,
      draftHash: 'h2',
      rowHash: null,
      updatedAt: 1_700_000_001_000,
    });
  });

  test('the tags the job added are its own until it removes them; tags seen on the contact are not', () => {
    store.recordObserved('C-1', { contactId: '100', surface: 'v1', fields: {}, tags: ['hand-set', 'vip'], tagsAdded: ['vip'], draftHash: null });
    expect(store.get('C-1')).toMatchObject({ contact: { tags: ['hand-set', 'vip'] }, jobTags: ['vip'] });
    store.recordConfirmed('C-1', { contactId: '100', surface: 'v1', tagsAdded: ['seg:a', 'seg:b'], tagsRemoved: ['vip'], draftHash: null });
    expect(store.get('C-1')).toMatchObject({ contact: { tags: ['hand-set', 'seg:a', 'seg:b'] }, jobTags: ['seg:a', 'seg:b'] });
    // Read again from the platform: a job tag removed by hand is no longer the job's.
    store.recordObserved('C-1', { contactId: '100', surface: 'v1', fields: {}, tags: ['hand-set', 'seg:b'], draftHash: null });
    expect(store.get('C-1')?.jobTags).toEqual(['seg:b']);
    // Another contact for the key (the first was deleted): nothing of it is the job's yet.
    store.recordObserved('C-1', { contactId: '200', surface: 'v1', fields: {}, tags: ['seg:b'], draftHash: null });
    expect(store.get('C-1')?.jobTags).toBeNull();
  });

  test('a departure is journalled once with the contact it changed; the key coming back clears it', () => {
    store.recordConfirmed('C-1', { contactId: '100', surface: 'v1', fields: { status: 'active' }, tagsAdded: ['vip'], draftHash: 'h1' });
    store.recordDeparture('C-1', { contactId: '100', surface: 'v1', action: 'tag', tagsAdded: ['left-crm'] });
    expect(store.get('C-1')).toMatchObject({ contact: { tags: ['left-crm', 'vip'] }, jobTags: ['vip'], draftHash: null });
    expect(store.departedRecord('C-1')).toEqual({ contactId: '100', surface: 'v1', action: 'tag', tags: ['left-crm'], departedAt: clock });
    store.recordConfirmed('C-2', { contactId: '200', surface: 'v1', fields: {}, draftHash: 'h' });
    const scanned: Array<[string, boolean]> = [];
    store.scanKeys((key) => scanned.push([key.key, key.departed]));
    expect(scanned).toEqual([
      ['C-1', true],
      ['C-2', false],
    ]);
    store.clearDeparted('C-1');
    expect(store.departedRecord('C-1')).toBeUndefined();
    expect(store.summary().departed).toBe(0);
  });

  test('a departure with update sets the known fields', () => {
    store.recordConfirmed('C-1', { contactId: '100', surface: 'v1', fields: { status: 'active', firstName: 'Ann' }, draftHash: 'h1' });
    store.recordDeparture('C-1', { contactId: '100', surface: 'v1', action: 'update', fields: { status: 'inactive' } });
    expect(store.get('C-1')).toMatchObject({ contact: { custom_fields: { status: 'inactive', firstName: 'Ann' } }, draftHash: null });
  });

  test('tags added join the known set and tags removed leave it', () => {
    store.recordConfirmed('C-1', { contactId: '100', surface: 'v1', tagsAdded: ['vip', 'crm'], draftHash: null });
    store.recordConfirmed('C-1', { contactId: '100', surface: 'v1', tagsAdded: ['newsletter', 'crm'], tagsRemoved: ['vip', 'lead'], draftHash: null });
    expect(store.get('C-1')?.contact.tags).toEqual(['crm', 'newsletter']);
  });

  test('a partial write clears the draft hash so the next run compares the row again', () => {
    store.recordConfirmed('C-1', { contactId: '100', surface: 'v1', fields: { a: '1' }, draftHash: 'h1' });
    store.recordConfirmed('C-1', { contactId: '100', surface: 'v1', fields: { a: '2' }, draftHash: null });
    expect(store.get('C-1')?.draftHash).toBeNull();
  });

  test('a write to another contact id replaces what was known instead of merging', () => {
    store.recordConfirmed('C-1', { contactId: '100', surface: 'v1', fields: { a: '1', b: '1' }, tagsAdded: ['old'], draftHash: 'h1' });
    store.recordConfirmed('C-1', { contactId: '200', surface: 'v1', fields: { a: '2' }, tagsAdded: ['new'], draftHash: 'h2' });
    expect(store.get('C-1')).toMatchObject({ contact: { id: '200', custom_fields: { a: '2' }, tags: ['new'] } });
  });

  test('a contact read from the platform replaces the fields and tags known', () => {
    store.recordConfirmed('C-1', { contactId: '100', surface: 'v1', fields: { a: '1', stale: 'x' }, tagsAdded: ['gone'], draftHash: 'h1' });
    store.recordObserved('C-1', { contactId: '100', surface: 'v1', fields: { a: '1', b: '2' }, tags: ['kept', 'kept'], draftHash: 'h3' });
    expect(store.get('C-1')).toMatchObject({ contact: { custom_fields: { a: '1', b: '2' }, tags: ['kept'] }, draftHash: 'h3' });
  });

  test('forget drops the key, and other keys stay', () => {
    store.recordConfirmed('C-1', { contactId: '100', surface: 'v1', draftHash: 'h1' });
    store.recordConfirmed('C-2', { contactId: '200', surface: 'v1', draftHash: 'h2' });
    store.forget('C-1');
    expect(store.get('C-1')).toBeUndefined();
    expect(store.get('C-2')?.contact.id).toBe('200');
  });

  test('readAhead returns the known contacts among the keys asked', () => {
    store.recordConfirmed('C-1', { contactId: '100', surface: 'v1', draftHash: 'h1' });
    store.recordConfirmed('C-3', { contactId: '300', surface: 'v1', draftHash: 'h3' });
    const found = store.readAhead(['C-1', 'C-2', 'C-3']);
    expect([...found.keys()].sort()).toEqual(['C-1', 'C-3']);
    expect(found.get('C-3')?.contactId).toBe('300');
  });

  test('listKeys returns known contacts in key order up to the limit', () => {
    for (const key of ['C-3', 'C-1', 'C-2']) store.recordConfirmed(key, { contactId: `id-${key}`, surface: 'v1', draftHash: null });
    expect(store.listKeys(2).map((known) => known.key)).toEqual(['C-1', 'C-2']);
    expect(store.listKeys(Infinity)).toHaveLength(3);
  });
});

describe('pending creates', () => {
  test('a create marked pending survives a reopen and is listed', () => {
    store.markCreatePending('C-9');
    store.markCreatePending('C-5');
    store.close();
    store = StateStore.open(temp.statePath(), { job: 'crm', keyField: 'customerid' });
    expect(store.pendingCreates()).toEqual(['C-5', 'C-9']);
    expect(store.isCreatePending('C-9')).toBe(true);
    expect(store.summary().pendingCreates).toBe(2);
  });

  test('clearCreatePending settles the key', () => {
    store.markCreatePending('C-9');
    store.clearCreatePending('C-9');
    expect(store.isCreatePending('C-9')).toBe(false);
    expect(store.pendingCreates()).toEqual([]);
  });

  test('a confirmed write for the key settles its pending create in the same step', () => {
    store.markCreatePending('C-9');
    store.recordConfirmed('C-9', { contactId: '900', surface: 'v1', fields: { a: '1' }, draftHash: 'h' });
    expect(store.pendingCreates()).toEqual([]);
    expect(store.get('C-9')?.contact.id).toBe('900');
  });
});

describe('row hashes', () => {
  test('are stored with the draft hash they stand for, and never without one', () => {
    store.recordConfirmed('C-1', { contactId: '100', surface: 'v1', fields: { firstName: 'Ann' }, draftHash: 'h1', rowHash: 'r1' });
    store.recordObserved('C-2', { contactId: '200', surface: 'v1', fields: {}, tags: [], draftHash: 'h2', rowHash: 'r2' });
    store.recordConfirmed('C-3', { contactId: '300', surface: 'v1', draftHash: null, rowHash: 'r3' });
    expect(['C-1', 'C-2', 'C-3'].map((key) => [store.get(key)?.draftHash, store.get(key)?.rowHash])).toEqual([
      ['h1', 'r1'],
      ['h2', 'r2'],
      [null, null],
    ]);
    // A later write without one forgets it: the row hash no longer says what the contact holds.
    store.recordConfirmed('C-1', { contactId: '100', surface: 'v1', fields: { firstName: 'Bea' }, draftHash: 'h9' });
    expect(store.get('C-1')?.rowHash).toBeNull();
  });

  test('a departure clears it with the draft hash', () => {
    store.recordConfirmed('C-1', { contactId: '100', surface: 'v1', draftHash: 'h1', rowHash: 'r1' });
    store.recordDeparture('C-1', { contactId: '100', surface: 'v1', action: 'tag', tagsAdded: ['left-crm'] });
    expect(store.get('C-1')).toMatchObject({ draftHash: null, rowHash: null });
  });

  test('a note is kept only while the key still has the draft hash it was found unchanged by', () => {
    store.recordConfirmed('C-1', { contactId: '100', surface: 'v1', draftHash: 'h1' });
    store.recordConfirmed('C-2', { contactId: '200', surface: 'v1', draftHash: 'h2' });
    store.noteRowHash('C-1', 'h1', 'r1');
    store.noteRowHash('C-2', 'h2', 'r2');
    // C-2 is written again before the notes reach the file: its note no longer holds.
    store.recordConfirmed('C-2', { contactId: '200', surface: 'v1', draftHash: 'h3', rowHash: 'r3' });
    store.noteRowHash('C-404', 'h1', 'r4');
    store.close();
    store = StateStore.open(temp.statePath(), { job: 'crm', keyField: 'customerid', now: () => clock });
    expect([store.get('C-1')?.rowHash, store.get('C-2')?.rowHash, store.get('C-404')]).toEqual(['r1', 'r3', undefined]);
  });

  test('notes are written by the run journal too, and in batches on their own', () => {
    const runId = store.startRun({ job: 'crm', argv: 'run', full: false, surface: 'v1' });
    for (let i = 0; i < 600; i++) store.recordConfirmed(`C-${i}`, { contactId: String(i), surface: 'v1', draftHash: `h${i}` });
    for (let i = 0; i < 600; i++) store.noteRowHash(`C-${i}`, `h${i}`, `r${i}`);
    // 512 are written at once, the rest wait for the journal.
    const keys = Array.from({ length: 600 }, (_, i) => `C-${i}`);
    const written = (): number => [...store.readAhead(keys).values()].filter((known) => known.rowHash !== null).length;
    expect(written()).toBe(512);
    store.finishRun(runId, { rows: {}, exitCode: 0, status: 'completed' });
    expect(written()).toBe(600);
  });

  test('readAhead gives the known keys among many, their hashes and departures at once, the rest when asked', () => {
    const keys = Array.from({ length: 150 }, (_, i) => `C-${i}`);
    for (const key of keys.filter((_key, i) => i % 3 === 0)) store.recordConfirmed(key, { contactId: `id-${key}`, surface: 'v1', fields: { plan: 'pro' }, tagsAdded: ['vip'], draftHash: `h-${key}`, rowHash: `r-${key}` });
    store.recordDeparture('C-3', { contactId: 'id-C-3', surface: 'v1', action: 'untag', tagsRemoved: ['vip'] });
    const known = store.readAhead([...keys, 'C-404']);
    expect([...known.keys()].sort()).toEqual(keys.filter((_key, i) => i % 3 === 0).sort());
    expect(known.get('C-0')).toMatchObject({ contactId: 'id-C-0', draftHash: 'h-C-0', rowHash: 'r-C-0', departed: false });
    expect(known.get('C-3')).toMatchObject({ draftHash: null, rowHash: null, departed: true });
    expect(known.get('C-0')?.record()).toEqual(store.get('C-0'));
    expect(known.get('C-3')?.record()).toEqual(store.get('C-3'));
  });
});

describe("a reconcile's reads (absent reads, issue 34)", () => {
  test('a key read absent is forgotten and noted under the reconcile with the time of the read; read present again, the note goes', () => {
    store.recordConfirmed('C-1', { contactId: '100', surface: 'v1', draftHash: 'h1' });
    const runId = store.startRun({ job: 'crm', argv: 'reconcile jobs.yaml', full: false, surface: 'v1' });
    clock += 5000;
    store.recordReconcileRead('C-1', true);
    store.recordReconcileRead('C-2', true);
    expect(store.knows('C-1')).toBe(false);
    expect(store.absentRead('C-1')).toEqual({ runId, readAt: 1_700_000_005_000 });
    expect(store.absentRead('C-2')).toEqual({ runId, readAt: 1_700_000_005_000 });

    store.recordReconcileRead('C-2', false);
    expect(store.absentRead('C-2')).toBeUndefined();
  });

  test('a store on which no run was started notes no absent read; reset --keep-messages forgets them', () => {
    store.recordReconcileRead('C-3', true);
    expect(store.absentRead('C-3')).toBeUndefined();
    store.startRun({ job: 'crm', argv: 'reconcile jobs.yaml', full: false, surface: 'v1' });
    store.recordReconcileRead('C-3', true);
    expect(store.absentRead('C-3')).toBeDefined();
    store.forgetAllButMessages();
    expect(store.absentRead('C-3')).toBeUndefined();
  });
});
