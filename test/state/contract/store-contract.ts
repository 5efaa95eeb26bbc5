/**
 * The state port's contract (src/state/state-port.ts): what each role promises, as behaviour
 * tests written against the port alone, so every adapter runs the same suite (SQLite today:
 * sqlite-store.test.ts; the next issue's PostgreSQL adapter gets a file of three lines like it).
 * Each test asserts outcomes: what the store answers after it was told something.
 */
import type { StatePort } from '../../../src/state/state-port.js';

/** Opens a new, empty store of the adapter, on the clock given. The suite closes it. */
export type OpenStore = (options: { readonly now: () => number }) => Promise<StatePort>;

const V1 = 'v1' as const;
const V2 = 'v2' as const;

export function storeContract(name: string, open: OpenStore): void {
  describe(`the state port's contract: ${name}`, () => {
    let clock = 1_700_000_000_000;
    let store: StatePort;
    beforeEach(async () => {
      clock = 1_700_000_000_000;
      store = await open({ now: () => clock });
    });
    afterEach(() => store.close());

    const run = (surface: 'v1' | 'v2' = V1): number => store.startRun({ job: 'crm', argv: 'run', full: false, surface });

    describe('known keys (the row, the lookahead, the prefetch)', () => {
      test('an unknown key is known nowhere', () => {
        expect(store.get('C-1')).toBeUndefined();
        expect(store.knows('C-1')).toBe(false);
        expect(store.readAhead(['C-1']).size).toBe(0);
        expect(store.summary().keys).toBe(0);
      });

      test('a confirmed write is known with its id, surface, fields, sorted tags and hashes', () => {
        store.recordConfirmed('C-1', { contactId: '100', surface: V1, fields: { plan: 'pro' }, tagsAdded: ['b', 'a'], draftHash: 'd1', rowHash: 'r1' });
        expect(store.get('C-1')).toMatchObject({
          key: 'C-1',
          surface: V1,
          contact: { id: '100', custom_fields: { plan: 'pro' }, tags: ['a', 'b'] },
          jobTags: ['a', 'b'],
          draftHash: 'd1',
          rowHash: 'r1',
          updatedAt: clock,
        });
        expect(store.summary().keys).toBe(1);
      });

      test("writes to the same contact merge; another contact's id starts afresh", () => {
        store.recordConfirmed('C-1', { contactId: '100', surface: V1, fields: { plan: 'pro', city: 'Oslo' }, tagsAdded: ['a', 'b'], draftHash: null });
        store.recordConfirmed('C-1', { contactId: '100', surface: V1, fields: { plan: 'max' }, tagsRemoved: ['a'], draftHash: 'd2' });
        expect(store.get('C-1')?.contact).toEqual({ id: '100', custom_fields: { plan: 'max', city: 'Oslo' }, tags: ['b'] });
        store.recordConfirmed('C-1', { contactId: '200', surface: V1, fields: { plan: 'new' }, draftHash: 'd3' });
        expect(store.get('C-1')?.contact).toEqual({ id: '200', custom_fields: { plan: 'new' }, tags: [] });
      });

      test('an id of another surface does not merge with what was known', () => {
        store.recordConfirmed('C-1', { contactId: '100', surface: V1, fields: { plan: 'pro' }, draftHash: null });
        store.recordConfirmed('C-1', { contactId: '100', surface: V2, fields: { city: 'Oslo' }, draftHash: null });
        expect(store.get('C-1')).toMatchObject({ surface: V2, contact: { id: '100', custom_fields: { city: 'Oslo' } } });
      });

      test('an observed contact replaces what was known of the key', () => {
        store.recordConfirmed('C-1', { contactId: '100', surface: V1, fields: { plan: 'pro' }, tagsAdded: ['x'], draftHash: 'd1' });
        store.recordObserved('C-1', { contactId: '100', surface: V1, fields: { city: 'Oslo' }, tags: ['y'], draftHash: null });
        expect(store.get('C-1')).toMatchObject({ contact: { id: '100', custom_fields: { city: 'Oslo' }, tags: ['y'] }, draftHash: null, verifiedAt: clock });
      });

      test('a key is known on the surface its id came from only', () => {
        store.recordConfirmed('C-1', { contactId: '100', surface: V1, draftHash: null });
        store.recordObserved('C-2', { contactId: '200', surface: V2, fields: {}, tags: [], draftHash: null });
        expect([store.knows('C-1'), store.knows('C-1', V1), store.knows('C-1', V2), store.knows('C-2', V2), store.knows('C-2', V1)]).toEqual([true, true, false, true, false]);
      });

      test('the lookahead reads the briefs of the known keys among many, each with its whole record', () => {
        const keys = Array.from({ length: 150 }, (_, index) => `K-${String(index).padStart(3, '0')}`);
        for (const key of keys.filter((_, index) => index % 3 === 0)) store.recordConfirmed(key, { contactId: `id-${key}`, surface: V2, fields: { plan: key }, draftHash: `d-${key}`, rowHash: `r-${key}` });
        const ahead = store.readAhead([...keys, 'NOPE']);
        expect([...ahead.keys()].sort()).toEqual(keys.filter((_, index) => index % 3 === 0));
        expect(ahead.get('K-003')).toMatchObject({ key: 'K-003', contactId: 'id-K-003', surface: V2, draftHash: 'd-K-003', rowHash: 'r-K-003', departed: false });
        expect(ahead.get('K-003')?.record()?.contact.custom_fields).toEqual({ plan: 'K-003' });
      });

      test('a forgotten key is known no more, and neither is its departure', () => {
        store.recordConfirmed('C-1', { contactId: '100', surface: V1, draftHash: null });
        store.recordDeparture('C-1', { contactId: '100', surface: V1, action: 'tag', tagsAdded: ['gone'] });
        store.forget('C-1');
        expect([store.get('C-1'), store.departedRecord('C-1'), store.knows('C-1')]).toEqual([undefined, undefined, false]);
      });

      test('a row hash is noted for a key while its draft hash is the one noted with', () => {
        store.recordConfirmed('C-1', { contactId: '100', surface: V1, draftHash: 'd1' });
        store.recordConfirmed('C-2', { contactId: '200', surface: V1, draftHash: 'd2' });
        store.noteRowHash('C-1', 'd1', 'r1');
        store.noteRowHash('C-2', 'other', 'r2');
        store.finishRun(run(), { rows: {}, exitCode: 0, status: 'completed' });
        expect([store.get('C-1')?.rowHash, store.get('C-2')?.rowHash]).toEqual(['r1', null]);
      });
    });

    describe('pending creates', () => {
      test('a create marked pending is pending until a contact is confirmed for its key', () => {
        store.markCreatePending('C-2');
        store.markCreatePending('C-1');
        expect([store.isCreatePending('C-1'), store.pendingCreates()]).toEqual([true, ['C-1', 'C-2']]);
        store.recordConfirmed('C-1', { contactId: '100', surface: V1, draftHash: null });
        expect([store.isCreatePending('C-1'), store.pendingCreates(), store.summary().pendingCreates]).toEqual([false, ['C-2'], 1]);
      });

      test('the contact found for a pending create is journalled as a create of the run that sent it', () => {
        const sender = run();
        store.markCreatePending('C-1');
        const later = run();
        store.recordObserved('C-1', { contactId: '100', surface: V1, fields: { plan: 'pro' }, tags: [], draftHash: null });
        expect(store.isCreatePending('C-1')).toBe(false);
        expect(store.changesOfRun(sender)).toMatchObject([{ runId: sender, key: 'C-1', contactId: '100', operation: 'create', fields: { plan: [null, 'pro'] }, beforeRead: true }]);
        expect(store.changesOfRun(later)).toEqual([]);
      });

      test('a row the surface could not create is marked until a contact holds its key', () => {
        const mark = { rowHash: 'r1', surface: V2, code: 'VALIDATION_FAILED', message: 'no email' };
        store.recordUncreatable('C-1', mark);
        expect(store.uncreatableAhead(['C-1', 'C-2'])).toEqual(new Map([['C-1', mark]]));
        store.recordConfirmed('C-1', { contactId: '100', surface: V2, draftHash: null });
        expect(store.uncreatableAhead(['C-1']).size).toBe(0);
      });
    });

    describe('the change journal', () => {
      test('a store with no run started journals nothing', () => {
        store.journalChange('C-1', '100', { operation: 'add-tags', tags: ['a'], beforeRead: false });
        expect(store.changesOfKey('C-1')).toEqual([]);
      });

      test("each call is filed under the run started last, in order; a key's lines span runs", () => {
        const one = run();
        store.journalChange('C-1', '100', { operation: 'update', fields: { plan: ['free', 'pro'] }, beforeRead: true });
        store.journalChange('C-2', '200', { operation: 'add-tags', tags: ['a'], beforeRead: false });
        const two = run();
        store.journalChange('C-1', '100', { operation: 'remove-tags', tags: ['a'], beforeRead: false });
        expect(store.changesOfRun(one).map((line) => [line.key, line.operation])).toEqual([
          ['C-1', 'update'],
          ['C-2', 'add-tags'],
        ]);
        expect(store.changesOfRun(one)[0]).toMatchObject({ runId: one, contactId: '100', fields: { plan: ['free', 'pro'] }, beforeRead: true, recordedAt: clock });
        expect(store.changesOfKey('C-1').map((line) => line.runId)).toEqual([one, two]);
        expect([store.changeCountOfRun(one), store.changeCountOfRun(two), store.summary().changes]).toEqual([2, 1, 3]);
        expect([store.runChangedKey(two, 'C-1'), store.runChangedKey(two, 'C-2')]).toEqual([true, false]);
      });

      test('a deletion keeps the contact\'s fields and tags, a merge the ids merged away and the fields before (issue 46)', () => {
        const one = run();
        store.journalChange('C-1', '100', { operation: 'delete', values: { fields: { plan: 'pro', email: 'a@example.com' }, tags: ['crm', 'vip'] }, beforeRead: true });
        store.journalChange('C-2', '200', { operation: 'merge', merged: ['201', '202'], fields: { plan: ['free', 'pro'] }, beforeRead: true });
        expect(store.changesOfRun(one)).toMatchObject([
          { key: 'C-1', contactId: '100', operation: 'delete', values: { fields: { plan: 'pro', email: 'a@example.com' }, tags: ['crm', 'vip'] }, beforeRead: true },
          { key: 'C-2', contactId: '200', operation: 'merge', merged: ['201', '202'], fields: { plan: ['free', 'pro'] }, beforeRead: true },
        ]);
      });

      test("pruning keeps the newest runs' lines and a creating run's unless asked; the pruned runs are marked", () => {
        const creating = run();
        store.journalChange('C-1', '100', { operation: 'create', fields: { plan: [null, 'pro'] }, beforeRead: true });
        const old = run();
        store.journalChange('C-1', '100', { operation: 'add-tags', tags: ['a'], beforeRead: false });
        const kept = run();
        store.journalChange('C-1', '100', { operation: 'remove-tags', tags: ['a'], beforeRead: false });
        expect(store.pruneChanges(1)).toEqual({ runs: 1, lines: 1, keptCreating: [creating] });
        expect([store.changeCountOfRun(creating), store.changeCountOfRun(old), store.changeCountOfRun(kept)]).toEqual([1, 0, 1]);
        expect(store.run(old)?.prunedAt).toBe(clock);
        expect(store.run(kept)?.prunedAt).toBeNull();
        expect(store.pruneChanges(1, { includeCreating: true })).toEqual({ runs: 1, lines: 1, keptCreating: [] });
        expect(store.changeCountOfRun(creating)).toBe(0);
        expect(() => store.pruneChanges(-1)).toThrow(RangeError);
      });
    });

    describe('the message journal', () => {
      test('a message is recorded unknown before it leaves and sent after; one surely not delivered is forgotten', () => {
        store.recordMessage('100', 'm1', 'unknown');
        expect(store.messageRecord('100', 'm1')).toEqual({ status: 'unknown', recordedAt: clock, messageId: null });
        store.recordMessage('100', 'm1', 'sent', 'msg-9');
        expect(store.messageRecord('100', 'm1')).toMatchObject({ status: 'sent', messageId: 'msg-9' });
        expect([store.messageRecord('100', 'm2'), store.messageRecord('200', 'm1'), store.summary().messages]).toEqual([undefined, undefined, 1]);
        store.forgetMessage('100', 'm1');
        expect(store.messageRecord('100', 'm1')).toBeUndefined();
      });

      test('a message due is owed until cleared', () => {
        store.markMessageDue('C-1');
        expect([store.isMessageDue('C-1'), store.isMessageDue('C-2')]).toEqual([true, false]);
        store.clearMessageDue('C-1');
        expect(store.isMessageDue('C-1')).toBe(false);
      });

      test('forgetting all but messages keeps the message journal only', () => {
        store.recordConfirmed('C-1', { contactId: '100', surface: V1, draftHash: null });
        store.recordMessage('100', 'm1', 'sent');
        run();
        expect(store.forgetAllButMessages()).toEqual({ keys: 1 });
        expect(store.summary()).toMatchObject({ keys: 0, messages: 1, lastRun: undefined });
        expect(store.messageRecord('100', 'm1')?.status).toBe('sent');
      });
    });

    describe('departures', () => {
      test("a departure is recorded once, the contact follows it, its draft hash is cleared; a return clears it", () => {
        store.recordConfirmed('C-1', { contactId: '100', surface: V1, fields: { plan: 'pro' }, draftHash: 'd1', rowHash: 'r1' });
        store.recordConfirmed('C-2', { contactId: '200', surface: V1, draftHash: 'd2' });
        store.recordDeparture('C-1', { contactId: '100', surface: V1, action: 'tag', tagsAdded: ['left'] });
        expect(store.departedRecord('C-1')).toEqual({ contactId: '100', surface: V1, action: 'tag', tags: ['left'], departedAt: clock });
        expect(store.get('C-1')).toMatchObject({ contact: { tags: ['left'] }, draftHash: null });
        const scanned: Array<[string, boolean]> = [];
        store.scanKeys((key) => scanned.push([key.key, key.departed]));
        expect(scanned).toEqual([
          ['C-1', true],
          ['C-2', false],
        ]);
        expect(store.readAhead(['C-1']).get('C-1')?.departed).toBe(true);
        expect(store.summary().departed).toBe(1);
        store.clearDeparted('C-1');
        expect(store.departedRecord('C-1')).toBeUndefined();
      });
    });

    describe('verification', () => {
      test('the keys are visited least recently verified first, never verified first, until the visit says stop', () => {
        for (const key of ['A', 'B', 'C']) store.recordConfirmed(key, { contactId: `id-${key}`, surface: V1, draftHash: null });
        clock += 1000;
        store.markVerified([['B', 'id-B']]);
        clock += 1000;
        store.markVerified([
          ['A', 'id-A'],
          ['C', 'another contact'],
        ]);
        const order: string[] = [];
        store.scanByVerified((key) => {
          order.push(key.key);
          return true;
        });
        expect(order).toEqual(['C', 'B', 'A']);
        expect(store.get('A')?.verifiedAt).toBe(clock);
        const first: string[] = [];
        store.scanByVerified((key) => {
          first.push(key.record.key);
          return false;
        });
        expect(first).toEqual(['C']);
      });

      test("the marker's pages start at the first, then where the last verification left them", () => {
        expect(store.verifyPages()).toEqual({ next: 1 });
        store.recordVerifyPages(3, 7);
        expect(store.verifyPages()).toEqual({ next: 3, known: 7 });
      });
    });

    describe("a reconcile's reads", () => {
      test('a key read absent is forgotten and noted under the run; read present, the note goes', () => {
        store.recordConfirmed('C-1', { contactId: '100', surface: V1, draftHash: null });
        const id = run();
        store.recordReconcileRead('C-1', true);
        expect([store.get('C-1'), store.absentRead('C-1')]).toEqual([undefined, { runId: id, readAt: clock }]);
        store.recordReconcileRead('C-1', false);
        expect(store.absentRead('C-1')).toBeUndefined();
      });
    });

    describe('personal data (retention and erasure)', () => {
      const DAY = 86_400_000;

      test("expiry deletes the lines of the runs started before the horizon; the runs and their counts stay, marked when", () => {
        const old = store.startRun({ job: 'crm', startedAt: clock - 100 * DAY, argv: 'run', full: false, surface: V1 });
        store.journalChange('C-1', '100', { operation: 'create', fields: { email: [null, 'erase-me-7731@example.com'] }, beforeRead: true });
        store.journalChange('C-2', '200', { operation: 'add-tags', tags: ['vip'], beforeRead: false });
        store.finishRun(old, { rows: { total: 2, created: 2 }, exitCode: 0, status: 'completed' });
        const older = store.startRun({ job: 'crm', startedAt: clock - 120 * DAY, argv: 'run', full: false, surface: V1 });
        store.finishRun(older, { rows: { total: 0 }, exitCode: 0, status: 'completed' });
        const recent = store.startRun({ job: 'crm', startedAt: clock - 10 * DAY, argv: 'run', full: false, surface: V1 });
        store.journalChange('C-1', '100', { operation: 'update', fields: { email: ['erase-me-7731@example.com', 'kept@example.com'] }, beforeRead: true });
        clock += 5000;
        expect(store.expireJournal(clock - 90 * DAY)).toEqual({ runs: 1, lines: 2 });
        expect([store.changeCountOfRun(old), store.changeCountOfRun(recent), store.summary().changes]).toEqual([0, 1, 1]);
        expect(store.changesOfKey('C-2')).toEqual([]);
        // Every run started before the horizon is marked, with lines or none; a later one is not.
        expect(store.run(old)).toMatchObject({ journalExpiredAt: clock, rows: { total: 2, created: 2 }, prunedAt: null });
        expect(store.run(older)?.journalExpiredAt).toBe(clock);
        expect(store.run(recent)?.journalExpiredAt).toBeNull();
        // Again: nothing more to expire, and the marks keep their first time.
        clock += 5000;
        expect(store.expireJournal(clock - 90 * DAY)).toEqual({ runs: 0, lines: 0 });
        expect(store.run(old)?.journalExpiredAt).toBe(clock - 5000);
      });

      test('a create pending from a run whose journal expired is journalled under the run that settles it', () => {
        store.startRun({ job: 'crm', startedAt: clock - 100 * DAY, argv: 'run', full: false, surface: V1 });
        store.markCreatePending('C-1');
        store.expireJournal(clock - 90 * DAY);
        const settling = run();
        store.recordObserved('C-1', { contactId: '100', surface: V1, fields: { plan: 'pro' }, tags: [], draftHash: null });
        expect(store.changesOfKey('C-1').map((line) => [line.runId, line.operation])).toEqual([[settling, 'create']]);
      });

      test('erasing a key removes every value of it, counted by kind; other keys stay', () => {
        const one = run();
        store.recordConfirmed('C-1', { contactId: '100', surface: V1, fields: { email: 'erase-me-7731@example.com' }, draftHash: 'd1' });
        store.journalChange('C-1', '100', { operation: 'create', fields: { email: [null, 'erase-me-7731@example.com'] }, beforeRead: true });
        store.recordMessage('100', 'm1', 'sent');
        store.recordMessage('100', 'm2', 'unknown');
        store.markMessageDue('C-1');
        store.recordDeparture('C-1', { contactId: '100', surface: V1, action: 'tag', tagsAdded: ['left'] });
        const two = run();
        store.journalChange('C-1', '100', { operation: 'add-tags', tags: ['left'], beforeRead: false });
        store.recordConfirmed('C-2', { contactId: '200', surface: V1, fields: { email: 'stays@example.com' }, draftHash: 'd2' });
        store.journalChange('C-2', '200', { operation: 'update', fields: { email: ['a@example.com', 'stays@example.com'] }, beforeRead: true });
        store.recordMessage('200', 'm1', 'sent');
        store.markCreatePending('C-3');
        store.recordUncreatable('C-4', { rowHash: 'r4', surface: V2, code: 'V2_CANNOT_CREATE', message: 'no email' });
        store.recordReconcileRead('C-5', true);

        const erased = store.eraseKeys(['C-1', 'C-3', 'C-4', 'C-5', 'NOPE']);
        expect(erased).toEqual([
          { key: 'C-1', known: true, contactId: '100', removed: { record: 1, messageDue: 1, departure: 1, changeLines: 2, messages: 2 }, runIds: [one, two] },
          { key: 'C-3', known: true, removed: { pendingCreate: 1 }, runIds: [] },
          { key: 'C-4', known: true, removed: { uncreatable: 1 }, runIds: [] },
          { key: 'C-5', known: true, removed: { absentRead: 1 }, runIds: [] },
          { key: 'NOPE', known: false, removed: {}, runIds: [] },
        ]);
        expect([store.get('C-1'), store.departedRecord('C-1'), store.isMessageDue('C-1'), store.messageRecord('100', 'm1'), store.messageRecord('100', 'm2')]).toEqual([undefined, undefined, false, undefined, undefined]);
        expect([store.changesOfKey('C-1'), store.isCreatePending('C-3'), store.uncreatableAhead(['C-4']).size, store.absentRead('C-5')]).toEqual([[], false, 0, undefined]);
        // The key is unknown now: the next run looks it up, as a key never seen.
        expect([store.knows('C-1'), store.readAhead(['C-1']).size]).toEqual([false, 0]);
        expect(store.get('C-2')?.contact.custom_fields).toEqual({ email: 'stays@example.com' });
        expect([store.changesOfKey('C-2').length, store.messageRecord('200', 'm1')?.status, store.summary().keys]).toEqual([1, 'sent', 1]);
        // The runs stay, with their counts; erasing again finds nothing.
        expect([store.run(one)?.id, store.run(two)?.id]).toEqual([one, two]);
        expect(store.eraseKeys(['C-1'])).toEqual([{ key: 'C-1', known: false, removed: {}, runIds: [] }]);
      });

      test('a dry run of the erasure counts what would leave and leaves it (forget --dry-run)', () => {
        const one = run();
        store.recordConfirmed('C-1', { contactId: '100', surface: V1, fields: { email: 'kept-7731@example.com' }, draftHash: 'd1' });
        store.journalChange('C-1', '100', { operation: 'create', fields: { email: [null, 'kept-7731@example.com'] }, beforeRead: true });
        const counted = [{ key: 'C-1', known: true, contactId: '100', removed: { record: 1, changeLines: 1 }, runIds: [one] }, { key: 'NOPE', known: false, removed: {}, runIds: [] }];
        expect(store.eraseKeys(['C-1', 'NOPE'], { dryRun: true })).toEqual(counted);
        expect([store.get('C-1')?.contact.id, store.changesOfKey('C-1').length]).toEqual(['100', 1]);
        // Counted again the same: nothing left; the real erasure then finds it all.
        expect(store.eraseKeys(['C-1', 'NOPE'], { dryRun: true })).toEqual(counted);
        expect(store.eraseKeys(['C-1', 'NOPE'])).toEqual(counted);
        expect(store.get('C-1')).toBeUndefined();
      });
    });

    describe('state copy', () => {
      test("a store's exported state imported into another is the same state, ids kept; the import replaces what was there", async () => {
        expect(store.holdsState()).toBe(false);
        const one = store.startRun({ job: 'crm', argv: 'run', full: false, surface: V1, reportDir: '/srv/reports/night-1' });
        store.recordConfirmed('C-1', { contactId: '100', surface: V1, fields: { plan: 'pro' }, tagsAdded: ['a'], draftHash: 'd1', rowHash: 'r1' });
        store.journalChange('C-1', '100', { operation: 'create', fields: { plan: [null, 'pro'] }, beforeRead: true });
        store.markCreatePending('C-2');
        store.recordMessage('100', 'm1', 'sent', 'msg-1');
        store.finishRun(one, { rows: { total: 1, created: 1 }, exitCode: 0, status: 'completed' });
        expect(store.holdsState()).toBe(true);
        const target = await open({ now: () => clock });
        try {
          target.recordConfirmed('OLD', { contactId: '999', surface: V1, draftHash: null });
          target.importState((visit) => store.exportState(visit));
          expect([target.get('OLD'), target.get('C-1'), target.isCreatePending('C-2'), target.messageRecord('100', 'm1')?.messageId]).toEqual([undefined, store.get('C-1'), true, 'msg-1']);
          expect([target.run(one), target.changesOfRun(one)]).toEqual([store.run(one), store.changesOfRun(one)]);
          // The report folder goes with its run: forget on the target searches it too.
          expect(target.reportFolders()).toEqual(['/srv/reports/night-1']);
          expect(target.startRun({ job: 'crm', argv: 'run', full: false, surface: V1 })).toBeGreaterThan(one);
          expect(target.summary()).toMatchObject({ job: 'crm', keyField: 'customerid', keys: 1, pendingCreates: 1, messages: 1, changes: 1 });
        } finally {
          target.close();
        }
      });
    });

    describe('runs', () => {
      test('runs are journalled as started and finished, the latest first; the header and the limits learnt are kept', () => {
        expect([store.lastRun(), store.lastFinishedRun(), store.lastHeader(), store.learntLimits()]).toEqual([undefined, undefined, undefined, []]);
        const one = store.startRun({ job: 'crm', startedAt: 1000, argv: 'run', full: true, surface: V2 });
        store.finishRun(one, { finishedAt: 2000, rows: { total: 2, created: 2 }, exitCode: 0, status: 'completed' });
        const two = run();
        expect(store.run(one)).toEqual({
          id: one,
          job: 'crm',
          startedAt: 1000,
          argv: 'run',
          full: true,
          surface: V2,
          finished: true,
          finishedAt: 2000,
          rows: { total: 2, created: 2 },
          exitCode: 0,
          status: 'completed',
          prunedAt: null,
          journalExpiredAt: null,
          reportDir: null,
        });
        expect(store.lastRuns(5).map((record) => record.id)).toEqual([two, one]);
        expect([store.lastRun()?.id, store.lastRun()?.finished, store.lastFinishedRun()?.id]).toEqual([two, false, one]);
        store.recordHeader(['id', 'email']);
        expect(store.lastHeader()).toEqual(['id', 'email']);
        store.keepLearntLimits([{ name: 'contacts', rate: { limit: 50, periodMs: 10_000 } }]);
        expect(store.learntLimits()).toEqual([{ name: 'contacts', rate: { limit: 50, periodMs: 10_000 } }]);
      });

      test('the folders runs wrote their reports to are kept, each once, for forget; a run with none adds none', () => {
        expect(store.reportFolders()).toEqual([]);
        const nightly = store.startRun({ job: 'crm', argv: 'run', full: false, surface: V2, reportDir: '/var/reports/2026-11-28' });
        store.startRun({ job: 'crm', argv: 'forget', full: false, surface: V2 });
        store.startRun({ job: 'crm', argv: 'run', full: false, surface: V2, reportDir: '/srv/crm reports/a' });
        store.startRun({ job: 'crm', argv: 'run', full: false, surface: V2, reportDir: '/var/reports/2026-11-28' });
        expect(store.run(nightly)?.reportDir).toBe('/var/reports/2026-11-28');
        expect(store.reportFolders()).toEqual(['/srv/crm reports/a', '/var/reports/2026-11-28']);
      });

      test('the summary names the job and key field of the store', () => {
        expect(store.summary()).toMatchObject({ job: 'crm', keyField: 'customerid', keys: 0, pendingCreates: 0, messages: 0, departed: 0, changes: 0 });
      });
    });
  });
}
