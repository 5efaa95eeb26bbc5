import { StateStore } from '../../src/state/state-store.js';
import { makeStateTestDir, type StateTestDir } from './state-test-dir.js';

let temp: StateTestDir;
beforeEach(() => {
  temp = makeStateTestDir();
});
afterEach(() => temp.remove());

const identity = { job: 'crm', keyField: 'customerid' };

describe('the runs journal', () => {
  test('a finished run is recorded with its counts and exit code', () => {
    const store = StateStore.open(temp.statePath(), identity);
    const id = store.startRun({ job: 'crm', startedAt: 1000, argv: 'run jobs.yaml --job crm', full: true, surface: 'v1' });
    store.finishRun(id, { finishedAt: 5000, rows: { total: 3, created: 1, unchanged: 2 }, exitCode: 0, status: 'completed' });
    expect(store.lastRun()).toEqual({
      id,
      job: 'crm',
      startedAt: 1000,
      argv: 'run jobs.yaml --job crm',
      full: true,
      surface: 'v1',
      finished: true,
      finishedAt: 5000,
      rows: { total: 3, created: 1, unchanged: 2 },
      exitCode: 0,
      status: 'completed',
      prunedAt: null,
      journalExpiredAt: null,
      reportDir: null,
    });
    store.close();
  });

  test('a run killed before it finished shows as unfinished after a reopen, after the last finished one', () => {
    const first = StateStore.open(temp.statePath(), identity);
    const done = first.startRun({ job: 'crm', startedAt: 1000, argv: 'run', full: false, surface: 'v1' });
    first.finishRun(done, { finishedAt: 2000, rows: { total: 1, updated: 1 }, exitCode: 0, status: 'completed' });
    const killed = first.startRun({ job: 'crm', startedAt: 3000, argv: 'run', full: false, surface: 'v1' });
    // No finishRun and no close: what a kill leaves.
    const after = StateStore.open(temp.statePath(), identity);
    const summary = after.summary();
    expect(summary.lastRun).toMatchObject({ id: killed, finished: false, finishedAt: null, rows: null, exitCode: null, status: null });
    expect(summary.lastFinishedRun).toMatchObject({ id: done, finished: true, exitCode: 0 });
    after.close();
    first.close();
  });

  test('a store with no run has no last run', () => {
    const store = StateStore.open(temp.statePath(), identity);
    expect(store.lastRun()).toBeUndefined();
    expect(store.summary()).toMatchObject({ keys: 0, pendingCreates: 0, messages: 0, lastRun: undefined, lastFinishedRun: undefined });
    store.close();
  });

  test('an interrupted run is journalled as what it was, with its real exit code; the last runs come newest first', () => {
    const store = StateStore.open(temp.statePath(), identity);
    const one = store.startRun({ job: 'crm', startedAt: 1000, argv: 'run', full: false, surface: 'v1' });
    store.finishRun(one, { finishedAt: 2000, rows: { total: 5 }, exitCode: 130, status: 'interrupted' });
    const two = store.startRun({ job: 'crm', startedAt: 3000, argv: 'run --max-duration 6h', full: false, surface: 'v1' });
    store.finishRun(two, { finishedAt: 4000, rows: { total: 7 }, exitCode: 4, status: 'deadline' });
    const three = store.startRun({ job: 'crm', startedAt: 5000, argv: 'run', full: false, surface: 'v1' });
    expect(store.lastRuns(5).map((run) => [run.id, run.status, run.exitCode])).toEqual([
      [three, null, null],
      [two, 'deadline', 4],
      [one, 'interrupted', 130],
    ]);
    expect(store.lastRuns(1)).toHaveLength(1);
    store.close();
  });
});
