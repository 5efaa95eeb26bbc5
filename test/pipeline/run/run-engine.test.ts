/**
 * The engine's life of a run, with a kind of the test's own (issue 35): the units through the one
 * loop, what is counted not reached, the step after the units only when the run took them all,
 * the units queued when it aborted, the journal's line, the summary, and the one exit code. The
 * kind's work is promises the test resolves: no server, no clock.
 */
import { JobAbortError } from '../../../src/pipeline/job-abort.js';
import { RowDispatcher } from '../../../src/pipeline/run/row-dispatcher.js';
import { runEngine, type RunEnd, type RunKind } from '../../../src/pipeline/run/run-engine.js';
import { StopPolicy, type StopPolicyOptions } from '../../../src/pipeline/run/stop-policy.js';
import type { UnitDone } from '../../../src/pipeline/run/unit-loop.js';
import { StateStore } from '../../../src/state/state-store.js';
import { makeJob } from '../../helpers/job-factory.js';
import { makeStateTestDir } from '../../state/state-test-dir.js';

/** A unit of the test's kind: its key, whether it needs the API, and what its work ends with. */
interface Unit {
  readonly key: string;
  readonly calls?: number;
  readonly fails?: boolean;
  readonly abort?: JobAbortError;
  readonly throws?: Error;
  readonly shard?: 'other';
  /** Its work ends only once the unit of this key was taken. */
  readonly after?: string;
}
type Done = UnitDone & { readonly key: string; readonly outcome: 'done' | 'ended' | 'not sent'; readonly fails?: boolean };

/** What the test's kind saw, and its knobs. */
interface Seen {
  finished: string[];
  afterUnits: number;
  closed: number;
  end?: RunEnd;
}

function testKind(units: Unit[], seen: Seen, knobs: { summaryFails?: boolean; closeFails?: boolean } = {}): RunKind<Unit, Done, { finished: string[] }> {
  const failed = (): boolean => seen.finished.some((line) => line.endsWith('failed'));
  const taken = new Map<string, () => void>();
  const takenYet = new Map(units.map((unit) => [unit.key, new Promise<void>((resolve) => taken.set(unit.key, resolve))]));
  return {
    units,
    work: {
      isMine: (unit) => unit.shard === undefined,
      intake: (unit) => {
        taken.get(unit.key)?.();
        if (unit.shard !== undefined) return { kind: 'not-mine' };
        if (unit.calls === undefined) return { kind: 'ended', done: { key: unit.key, outcome: 'ended', calls: 0 } };
        return {
          kind: 'dispatch',
          key: unit.key,
          callsAtMost: unit.calls,
          run: async () => {
            await (unit.after === undefined ? Promise.resolve() : takenYet.get(unit.after));
            if (unit.throws !== undefined) throw unit.throws;
            return { key: unit.key, outcome: 'done', calls: unit.calls ?? 0, ...(unit.fails === true ? { fails: true } : {}), ...(unit.abort === undefined ? {} : { abort: unit.abort }) };
          },
          notSent: () => ({ key: unit.key, outcome: 'not sent', calls: 0 }),
        };
      },
      finish: (done) => seen.finished.push(`${done.key} ${done.outcome}${done.fails === true ? ' failed' : ''}`),
    },
    afterUnits: () => {
      seen.afterUnits++;
      return Promise.resolve(undefined);
    },
    closeUnits: () => {
      seen.closed++;
      return knobs.closeFails === true ? new JobAbortError('REPORT_WRITE_FAILED', 'the disk is full') : undefined;
    },
    journalRows: (notReached) => ({ total: seen.finished.length, notReached }),
    needsLook: failed,
    summarize: (end) => {
      seen.end = end;
      return knobs.summaryFails === true ? { summary: { finished: seen.finished }, abort: new JobAbortError('REPORT_WRITE_FAILED', 'the summary could not be written') } : { summary: { finished: seen.finished } };
    },
  };
}

async function run(units: Unit[], options: Partial<StopPolicyOptions> = {}, knobs: { summaryFails?: boolean; closeFails?: boolean } = {}) {
  const seen: Seen = { finished: [], afterUnits: 0, closed: 0 };
  const policy = new StopPolicy({ now: () => new Date(0), spacingMs: 600, ...options });
  const ended = await runEngine(testKind(units, seen, knobs), { policy, dispatcher: new RowDispatcher(1), signal: options.signal });
  return { ...ended, seen };
}

describe('the run engine', () => {
  const token = new JobAbortError('INVALID_TOKEN', '401');

  it('takes every unit of the run (another shard\'s is not its), runs the step after them, and ends 0', async () => {
    const { status, exitCode, seen } = await run([{ key: 'A', calls: 2 }, { key: 'B' }, { key: 'C', shard: 'other' }, { key: 'D', calls: 1 }]);
    // A unit that ends with no call finishes at once, the others as their calls do.
    expect([status, exitCode, [...seen.finished].sort(), seen.afterUnits, seen.closed, seen.end?.notReached]).toEqual(['completed', 0, ['A done', 'B ended', 'D done'], 1, 1, 0]);
  });

  it('a unit that needs a look makes the exit 1', async () => {
    const { status, exitCode } = await run([{ key: 'A', calls: 1, fails: true }]);
    expect([status, exitCode]).toEqual(['completed', 1]);
  });

  it('--limit: the units after it are not reached (another shard\'s not counted), and the step after the units does not run', async () => {
    const { status, exitCode, seen } = await run([{ key: 'A', calls: 1 }, { key: 'B' }, { key: 'C', calls: 1 }, { key: 'D', shard: 'other' }], { limit: 2 });
    expect([status, exitCode, [...seen.finished].sort(), seen.end?.notReached, seen.afterUnits]).toEqual(['completed', 0, ['A done', 'B ended'], 1, 0]);
  });

  it('an abort: the unit queued behind it is not sent, the rest not reached, exit 3', async () => {
    // One at a time and one waiting: B is queued while A runs; C and D are not taken.
    const { status, exitCode, seen } = await run([{ key: 'A', calls: 1, abort: token, after: 'B' }, { key: 'B', calls: 1 }, { key: 'C', calls: 1 }, { key: 'D' }]);
    expect([status, exitCode, seen.finished, seen.end?.notReached, seen.end?.abort, seen.afterUnits]).toEqual(['aborted', 3, ['A done', 'B not sent'], 2, token, 0]);
  });

  it('a summary that could not be written aborts the run (exit 3)', async () => {
    const { status, exitCode, seen } = await run([{ key: 'A', calls: 1 }], {}, { summaryFails: true });
    expect([status, exitCode, seen.end?.status]).toEqual(['aborted', 3, 'completed']);
  });

  it('a unit report that could not be closed aborts the run, and the summary says so', async () => {
    const { status, exitCode, seen } = await run([{ key: 'A', calls: 1 }], {}, { closeFails: true });
    expect([status, exitCode, seen.end?.status, seen.end?.abort?.code]).toEqual(['aborted', 3, 'aborted', 'REPORT_WRITE_FAILED']);
  });

  it('a signal: interrupted, exit 130 (SIGINT) or 143 (SIGTERM), the step after the units skipped', async () => {
    const controller = new AbortController();
    controller.abort('SIGTERM');
    const { status, exitCode, seen } = await run([{ key: 'A', calls: 1 }, { key: 'B' }], { signal: controller.signal });
    expect([status, exitCode, seen.finished, seen.end?.notReached, seen.afterUnits]).toEqual(['interrupted', 143, [], 2, 0]);
  });

  it('a unit\'s work that throws (a bug) leaves once the reports are closed and the summary written', async () => {
    const seen: Seen = { finished: [], afterUnits: 0, closed: 0 };
    const policy = new StopPolicy({ now: () => new Date(0), spacingMs: 600 });
    const bug = new Error('a bug');
    await expect(runEngine(testKind([{ key: 'A', calls: 1, throws: bug }, { key: 'B', calls: 1 }], seen), { policy, dispatcher: new RowDispatcher(1) })).rejects.toBe(bug);
    expect([seen.closed, seen.end !== undefined, seen.afterUnits]).toEqual([1, true, 0]);
  });

  it('journals the run\'s end: the kind\'s counts, its status and its exit code', async () => {
    const dir = makeStateTestDir();
    const job = makeJob();
    const state = StateStore.open(dir.statePath(), { job: job.name, keyField: job.key.field });
    try {
      const runId = state.startRun({ job: job.name, argv: 'test', full: false, surface: 'v1' });
      const seen: Seen = { finished: [], afterUnits: 0, closed: 0 };
      const policy = new StopPolicy({ now: () => new Date(0), spacingMs: 600, limit: 1 });
      await runEngine(testKind([{ key: 'A', calls: 1, fails: true }, { key: 'B' }], seen), { policy, dispatcher: new RowDispatcher(1), journal: { state, runId, job } });
      expect(state.lastRun()).toMatchObject({ finished: true, status: 'completed', exitCode: 1, rows: { total: 1, notReached: 1 } });
    } finally {
      state.close();
      dir.remove();
    }
  });
});
