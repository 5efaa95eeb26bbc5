import { statSync } from 'node:fs';
import type { ChangeEntry } from '../../src/state/change-journal.js';
import { StateStore } from '../../src/state/state-store.js';
import { makeStateTestDir, type StateTestDir } from './state-test-dir.js';

const identity = { job: 'crm', keyField: 'customerid' };
let temp: StateTestDir;
let clock: number;
const now = (): number => clock;
beforeEach(() => {
  temp = makeStateTestDir();
  clock = 1_700_000_000_000;
});
afterEach(() => temp.remove());

function open(): StateStore {
  return StateStore.open(temp.statePath(), { ...identity, now });
}

const created: ChangeEntry = { operation: 'create', fields: { customerid: [null, 'C-1'], plan: [null, 'pro'] }, beforeRead: true };
const updated: ChangeEntry = { operation: 'update', fields: { plan: ['pro', 'team'], city: [null, 'Oslo'] }, beforeRead: true };
const tagged: ChangeEntry = { operation: 'add-tags', tags: ['vip', 'eu'], beforeRead: true };
const untagged: ChangeEntry = { operation: 'remove-tags', tags: ['churn-risk'], beforeRead: true };

describe('the change journal', () => {
  test('a store on which no run was started journals nothing', () => {
    const store = open();
    expect(store.currentRunId).toBeUndefined();
    store.journalChange('C-1', '100', created);
    store.journalChange('C-1', '100', tagged);
    expect(store.changesOfKey('C-1')).toEqual([]);
    expect(store.summary().changes).toBe(0);
    store.close();
  });

  test('a store journals under the run it started, not under a run another store started on the file', () => {
    const runner = open();
    const runId = runner.startRun({ job: 'crm', argv: 'run', full: false, surface: 'v1' });
    const other = open();
    expect(other.currentRunId).toBeUndefined();
    other.journalChange('C-1', '100', created);
    expect(runner.changesOfRun(runId)).toEqual([]);
    runner.journalChange('C-1', '100', created);
    expect(other.changesOfRun(runId)).toHaveLength(1);
    other.close();
    runner.close();
  });

  test('lines come back in the order their calls were confirmed, with the values before and after', () => {
    const store = open();
    const runId = store.startRun({ job: 'crm', argv: 'run', full: false, surface: 'v1' });
    expect(store.currentRunId).toBe(runId);
    store.journalChange('C-1', '100', created);
    clock += 10;
    store.journalChange('C-2', '200', updated);
    clock += 10;
    store.journalChange('C-1', '100', tagged);
    clock += 10;
    store.journalChange('C-2', '200', { ...untagged, beforeRead: false });

    const lines = store.changesOfRun(runId);
    expect(lines.map(({ id: _id, ...line }) => line)).toEqual([
      { runId, key: 'C-1', contactId: '100', recordedAt: 1_700_000_000_000, operation: 'create', fields: { customerid: [null, 'C-1'], plan: [null, 'pro'] }, beforeRead: true },
      { runId, key: 'C-2', contactId: '200', recordedAt: 1_700_000_000_010, operation: 'update', fields: { plan: ['pro', 'team'], city: [null, 'Oslo'] }, beforeRead: true },
      { runId, key: 'C-1', contactId: '100', recordedAt: 1_700_000_000_020, operation: 'add-tags', tags: ['vip', 'eu'], beforeRead: true },
      // Written by what the state store knew: its before was not read.
      { runId, key: 'C-2', contactId: '200', recordedAt: 1_700_000_000_030, operation: 'remove-tags', tags: ['churn-risk'], beforeRead: false },
    ]);
    expect(lines.map((line) => line.id)).toEqual([...lines.map((line) => line.id)].sort((a, b) => a - b));
    expect(store.changesOfKey('C-1').map((line) => line.operation)).toEqual(['create', 'add-tags']);
    expect(store.changesOfKey('C-2')).toEqual([lines[1], lines[3]]);
    expect(store.changesOfKey('C-3')).toEqual([]);
    expect(store.summary().changes).toBe(4);
    store.close();
  });

  test("a key's lines span its runs, oldest first; the current run is the one started last and stays after it finished", () => {
    const store = open();
    const first = store.startRun({ job: 'crm', argv: 'run', full: false, surface: 'v1' });
    store.journalChange('C-1', '100', created);
    store.finishRun(first, { rows: { total: 1, created: 1 }, exitCode: 0, status: 'completed' });
    const second = store.startRun({ job: 'crm', argv: 'run --full', full: true, surface: 'v1' });
    expect(store.currentRunId).toBe(second);
    store.journalChange('C-1', '100', updated);
    store.finishRun(second, { rows: { total: 1, updated: 1 }, exitCode: 0, status: 'completed' });
    // onMissing acts after the rows, under the same run.
    expect(store.currentRunId).toBe(second);
    store.journalChange('C-1', '100', tagged);

    expect(store.changesOfKey('C-1').map((line) => [line.runId, line.operation])).toEqual([
      [first, 'create'],
      [second, 'update'],
      [second, 'add-tags'],
    ]);
    expect(store.changesOfRun(first)).toHaveLength(1);
    expect(store.changesOfRun(second)).toHaveLength(2);
    store.close();
  });

  test('run() finds one run by its id, finished or not', () => {
    const store = open();
    const done = store.startRun({ job: 'crm', startedAt: 1000, argv: 'run', full: false, surface: 'v1' });
    store.finishRun(done, { finishedAt: 2000, rows: { total: 2, updated: 2 }, exitCode: 0, status: 'completed' });
    const going = store.startRun({ job: 'crm', startedAt: 3000, argv: 'run --full', full: true, surface: 'v1' });
    expect(store.run(done)).toEqual({
      id: done,
      job: 'crm',
      startedAt: 1000,
      argv: 'run',
      full: false,
      surface: 'v1',
      finished: true,
      finishedAt: 2000,
      rows: { total: 2, updated: 2 },
      exitCode: 0,
      status: 'completed',
      prunedAt: null,
      journalExpiredAt: null,
      reportDir: null,
    });
    expect(store.run(going)).toMatchObject({ id: going, startedAt: 3000, full: true, finished: false, status: null });
    expect(store.run(going + 1)).toBeUndefined();
    store.close();
  });

  test('pruneChanges keeps the lines of the newest runs and says how many runs and lines went', () => {
    const store = open();
    // Four runs: 2 lines, 3 lines, none (a nightly run that wrote nothing), 1 line.
    const runs: number[] = [];
    for (const lines of [2, 3, 0, 1]) {
      const runId = store.startRun({ job: 'crm', argv: 'run', full: false, surface: 'v1' });
      runs.push(runId);
      for (let index = 0; index < lines; index++) store.journalChange(`C-${index}`, `${index}`, updated);
    }
    const [one, two, three, four] = runs as [number, number, number, number];

    expect(store.pruneChanges(4)).toEqual({ runs: 0, lines: 0, keptCreating: [] });
    expect(store.pruneChanges(10)).toEqual({ runs: 0, lines: 0, keptCreating: [] });
    expect(store.summary().changes).toBe(6);

    // The newest three runs are two, three (no lines) and four: run one's lines go.
    expect(store.pruneChanges(3)).toEqual({ runs: 1, lines: 2, keptCreating: [] });
    expect(store.changesOfRun(one)).toEqual([]);
    expect(store.changesOfRun(two)).toHaveLength(3);

    // The newest two are three and four: run two's lines go; run three had none.
    expect(store.pruneChanges(2)).toEqual({ runs: 1, lines: 3, keptCreating: [] });
    expect(store.pruneChanges(2)).toEqual({ runs: 0, lines: 0, keptCreating: [] });
    expect(store.changesOfRun(four)).toHaveLength(1);
    expect(store.changesOfRun(three)).toEqual([]);

    // The runs themselves stay in the runs journal, marked pruned; a run with no line is not.
    expect(store.run(one)).toMatchObject({ id: one, prunedAt: clock });
    expect(store.run(three)).toMatchObject({ id: three, prunedAt: null });
    expect(store.lastRuns(10)).toHaveLength(4);

    expect(store.pruneChanges(0)).toEqual({ runs: 1, lines: 1, keptCreating: [] });
    expect(store.summary().changes).toBe(0);
    store.close();
  });

  test('pruneChanges keeps the lines of a run that created contacts unless asked, and says which it kept', () => {
    const store = open();
    const migration = store.startRun({ job: 'crm', argv: 'run', full: false, surface: 'v1' });
    store.journalChange('C-1', '100', created);
    store.journalChange('C-1', '100', tagged);
    const nightly = store.startRun({ job: 'crm', argv: 'run', full: false, surface: 'v1' });
    store.journalChange('C-2', '200', updated);
    store.startRun({ job: 'crm', argv: 'run', full: false, surface: 'v1' });

    expect(store.pruneChanges(1)).toEqual({ runs: 1, lines: 1, keptCreating: [migration] });
    expect(store.changesOfRun(migration)).toHaveLength(2);
    expect(store.run(migration)).toMatchObject({ prunedAt: null });
    expect(store.run(nightly)).toMatchObject({ prunedAt: clock });

    clock += 1000;
    expect(store.pruneChanges(1, { includeCreating: true })).toEqual({ runs: 1, lines: 2, keptCreating: [] });
    expect(store.changesOfRun(migration)).toEqual([]);
    expect(store.run(migration)).toMatchObject({ prunedAt: clock });
    store.close();
  });

  test('runChangedKey says whether a run journalled a change of a key', () => {
    const store = open();
    const runId = store.startRun({ job: 'crm', argv: 'run', full: false, surface: 'v1' });
    store.journalChange('C-1', '100', updated);
    expect(store.runChangedKey(runId, 'C-1')).toBe(true);
    expect(store.runChangedKey(runId, 'C-2')).toBe(false);
    expect(store.runChangedKey(runId + 1, 'C-1')).toBe(false);
    store.close();
  });

  test('reclaimSpace after a prune gives the space of the dropped lines back: the file shrinks on disk (issue 41 item 18)', () => {
    const store = open();
    try {
      const big: ChangeEntry = { operation: 'update', fields: { note: ['x'.repeat(500), 'y'.repeat(500)] }, beforeRead: true };
      store.startRun({ job: 'crm', argv: 'run', full: false, surface: 'v1' });
      for (let i = 0; i < 2000; i++) store.journalChange(`C-${i}`, String(i), big);
      store.startRun({ job: 'crm', argv: 'run', full: false, surface: 'v1' });
      store.journalChange('C-1', '1', updated);
      expect(store.pruneChanges(1)).toMatchObject({ lines: 2000 });
      const { before, after } = store.reclaimSpace();
      // 2,000 lines of about 1 KB: at least 1.5 MB before, a few pages after.
      expect([before > 1_500_000, after < 200_000]).toEqual([true, true]);
      expect(statSync(temp.statePath()).size).toBe(after);
      expect(statSync(`${temp.statePath()}-wal`).size).toBe(0);
      expect(store.changesOfKey('C-1')).toEqual([expect.objectContaining({ operation: 'update' })]);
    } finally {
      store.close();
    }
  });

  test('pruneChanges refuses a count that is not a whole number of 0 or more', () => {
    const store = open();
    expect(() => store.pruneChanges(-1)).toThrow(RangeError);
    expect(() => store.pruneChanges(1.5)).toThrow(RangeError);
    expect(() => store.pruneChanges(Number.NaN)).toThrow(RangeError);
    store.close();
  });

  test('the lines are on disk: a store reopened after close has them, and so does one opened beside a store never closed', () => {
    const first = open();
    const runId = first.startRun({ job: 'crm', argv: 'run', full: false, surface: 'v1' });
    first.journalChange('C-1', '100', created);
    first.journalChange('C-1', '100', untagged);
    const journalled = first.changesOfRun(runId);
    first.close();

    const reopened = open();
    expect(reopened.changesOfRun(runId)).toEqual(journalled);
    expect(reopened.changesOfKey('C-1')).toEqual(journalled);
    expect(reopened.summary().changes).toBe(2);
    // A reopened store has started no run of its own.
    expect(reopened.currentRunId).toBeUndefined();
    reopened.close();

    // No close: what a kill leaves.
    const killed = open();
    const killedRun = killed.startRun({ job: 'crm', argv: 'run', full: false, surface: 'v1' });
    killed.journalChange('C-2', '200', created);
    const after = open();
    expect(after.changesOfRun(killedRun).map((line) => [line.key, line.operation])).toEqual([['C-2', 'create']]);
    after.close();
    killed.close();
  });

  test('forgetAllButMessages drops the change lines with the runs they are filed under, and keeps the messages', () => {
    const store = open();
    const runId = store.startRun({ job: 'crm', argv: 'run', full: false, surface: 'v1' });
    store.recordConfirmed('C-1', { contactId: '100', surface: 'v1', fields: { plan: 'pro' }, draftHash: 'h1' });
    store.journalChange('C-1', '100', created);
    store.recordMessage('100', 'm1', 'sent');
    expect(store.forgetAllButMessages()).toEqual({ keys: 1 });
    expect(store.summary()).toMatchObject({ keys: 0, changes: 0, messages: 1, lastRun: undefined });
    expect(store.changesOfRun(runId)).toEqual([]);
    expect(store.run(runId)).toBeUndefined();
    store.close();
  });
});

describe('a create whose answer was lost (issue 33)', () => {
  test('the run that settles the pending create journals the contact as a create of the run that sent it, once', () => {
    // Run 1 marks the create and is killed before the answer: no line of its own.
    const killed = open();
    const sender = killed.startRun({ job: 'crm', argv: 'run', full: false, surface: 'v1' });
    killed.markCreatePending('C-1');
    killed.close();

    const store = open();
    const adopter = store.startRun({ job: 'crm', argv: 'run', full: false, surface: 'v1' });
    // The adopting run finishes the contact: its own writes are its own.
    store.journalChange('C-1', '100', tagged);
    clock += 10;
    store.recordObserved('C-1', { contactId: '100', surface: 'v1', fields: { customerid: 'C-1', plan: 'pro' }, tags: ['vip', 'eu'], tagsAdded: ['vip', 'eu'], draftHash: 'h1' });

    expect(store.isCreatePending('C-1')).toBe(false);
    expect(store.changesOfRun(sender).map(({ id: _id, ...line }) => line)).toEqual([
      { runId: sender, key: 'C-1', contactId: '100', recordedAt: 1_700_000_000_010, operation: 'create', fields: { customerid: [null, 'C-1'], plan: [null, 'pro'] }, beforeRead: true },
    ]);
    expect(store.changesOfRun(adopter).map((line) => line.operation)).toEqual(['add-tags']);
    // Settled again (a later row of the key, a reconcile): no second create.
    store.recordObserved('C-1', { contactId: '100', surface: 'v1', fields: { plan: 'team' }, tags: [], draftHash: null });
    store.recordConfirmed('C-1', { contactId: '100', surface: 'v1', fields: { plan: 'team' }, draftHash: null });
    expect(store.changesOfKey('C-1').filter((line) => line.operation === 'create')).toHaveLength(1);
    store.close();
  });

  test('a create the run journalled itself is not journalled again when its contact settles the mark', () => {
    const store = open();
    const runId = store.startRun({ job: 'crm', argv: 'run', full: false, surface: 'v1' });
    store.markCreatePending('C-1');
    store.journalChange('C-1', '100', created);
    store.recordObserved('C-1', { contactId: '100', surface: 'v1', fields: { customerid: 'C-1', plan: 'pro' }, tags: [], draftHash: 'h1' });
    expect(store.changesOfRun(runId).map((line) => line.operation)).toEqual(['create']);
    store.close();
  });

  test('a mark a later run sends again names that run: its create is its own', () => {
    const store = open();
    const first = store.startRun({ job: 'crm', argv: 'run', full: false, surface: 'v1' });
    store.markCreatePending('C-1');
    const second = store.startRun({ job: 'crm', argv: 'run', full: false, surface: 'v1' });
    store.markCreatePending('C-1');
    store.recordObserved('C-1', { contactId: '100', surface: 'v1', fields: {}, tags: [], draftHash: null });
    expect(store.changesOfRun(first)).toEqual([]);
    expect(store.changesOfRun(second).map((line) => [line.contactId, line.operation])).toEqual([['100', 'create']]);
    store.close();
  });

  test('a key with no pending create journals nothing when its contact is recorded', () => {
    const store = open();
    const runId = store.startRun({ job: 'crm', argv: 'run', full: false, surface: 'v1' });
    store.recordObserved('C-1', { contactId: '100', surface: 'v1', fields: { plan: 'pro' }, tags: [], draftHash: null });
    store.recordConfirmed('C-2', { contactId: '200', surface: 'v1', fields: { plan: 'pro' }, draftHash: 'h2' });
    expect(store.changesOfRun(runId)).toEqual([]);
    store.close();
  });
});
