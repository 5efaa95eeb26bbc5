/**
 * The one stop policy of every kind of run (run, reconcile, undo, the departed step) as a table:
 * what stops it taking units, in which order, how the run then ended, and the one --max-duration
 * reckoning (issue 35).
 */
import { V1_SURFACE } from '../../../src/api/v1/surface.js';
import { V2_SURFACE } from '../../../src/api/v2/surface.js';
import { unreadRowCallsAtLeast } from '../../../src/pipeline/row/row-calls.js';
import { JobAbortError } from '../../../src/pipeline/job-abort.js';
import { StopPolicy, type StopPolicyOptions, type TakenUnit } from '../../../src/pipeline/run/stop-policy.js';

const aborted = (reason: string): AbortSignal => {
  const controller = new AbortController();
  controller.abort(reason);
  return controller.signal;
};

/** A policy on a clock the test moves; 600 ms between calls (100 a minute); a unit not read yet is a v1 row's (a read and a write) unless told. */
function policyAt(options: Partial<StopPolicyOptions> = {}): { policy: StopPolicy; clock: { ms: number }; stopping: unknown[] } {
  const clock = { ms: 0 };
  const stopping: unknown[] = [];
  const policy = new StopPolicy({ now: () => new Date(clock.ms), spacingMs: 600, unreadUnitCalls: unreadRowCallsAtLeast(V1_SURFACE, 'customerid'), onStopping: (info) => stopping.push(info), ...options });
  return { policy, clock, stopping };
}

describe('what stops a run taking units, and how it ended', () => {
  const invalidToken = new JobAbortError('INVALID_TOKEN', '401');
  const thresholdCrossed = new JobAbortError('MAX_ERRORS', 'more than 5 rows failed');

  it.each<{ name: string; options: Partial<StopPolicyOptions>; before?: (policy: StopPolicy) => void; takes: boolean; stopped: string | undefined; status: string; tookAll: boolean; told: unknown[] }>([
    { name: 'nothing: it takes the unit', options: {}, takes: true, stopped: undefined, status: 'completed', tookAll: true, told: [] },
    {
      name: 'a signal: interrupted, and told once with the units in flight',
      options: { signal: aborted('SIGINT') },
      takes: false,
      stopped: 'signal',
      status: 'interrupted',
      tookAll: false,
      told: [{ reason: 'signal', inFlight: 0, finishMs: 0 }],
    },
    {
      name: '--limit reached: completed, nothing told',
      options: { limit: 2 },
      before: (policy) => [1, 2].forEach(() => policy.counted()),
      takes: false,
      stopped: 'limit',
      status: 'completed',
      tookAll: false,
      told: [],
    },
    { name: '--limit not reached yet', options: { limit: 2 }, before: (policy) => policy.counted(), takes: true, stopped: undefined, status: 'completed', tookAll: true, told: [] },
    {
      name: 'an abort: the run takes nothing more, aborted even with a signal',
      options: { signal: aborted('SIGTERM') },
      before: (policy) => policy.abortWith(invalidToken),
      takes: false,
      stopped: undefined,
      status: 'aborted',
      tookAll: false,
      told: [],
    },
    {
      name: 'the error threshold crossed: an abort of its own',
      options: { errorThreshold: (inputDone) => (inputDone ? undefined : thresholdCrossed) },
      before: (policy) => policy.judgeErrors(false),
      takes: false,
      stopped: undefined,
      status: 'aborted',
      tookAll: false,
      told: [],
    },
    {
      name: 'the deadline, already past: stopped at the deadline',
      options: { deadline: 1000 },
      // One read and one write at 600 ms each: 1200 ms, past 1000.
      takes: false,
      stopped: 'deadline',
      status: 'deadline',
      tookAll: false,
      told: [{ reason: 'deadline', inFlight: 0, finishMs: 0 }],
    },
    {
      name: 'a signal comes before --limit and the deadline',
      options: { signal: aborted('SIGINT'), limit: 0, deadline: 0 },
      takes: false,
      stopped: 'signal',
      status: 'interrupted',
      tookAll: false,
      told: [{ reason: 'signal', inFlight: 0, finishMs: 0 }],
    },
  ])('$name', ({ options, before, takes, stopped, status, tookAll, told }) => {
    const { policy, stopping } = policyAt(options);
    before?.(policy);
    expect([policy.takesNext(0), policy.stopped, policy.status(), policy.tookAll, stopping]).toEqual([takes, stopped, status, tookAll, told]);
    // Once it stops taking units, it takes none again.
    if (!takes) expect(policy.takesNext(0)).toBe(false);
  });

  it('keeps the first abort: a later one follows from it', () => {
    const { policy } = policyAt();
    policy.abortWith(undefined);
    policy.abortWith(invalidToken);
    policy.abortWith(thresholdCrossed);
    expect(policy.abort).toBe(invalidToken);
  });

  it('a step after the units (afterUnits) keeps the run\'s signal and deadline, not its --limit, threshold or stop', () => {
    const { policy, clock } = policyAt({ limit: 1, deadline: 10_000, errorThreshold: () => thresholdCrossed });
    policy.counted();
    expect(policy.takesNext(0)).toBe(false);
    const after = policy.afterUnits();
    // The run's --limit (1) is spent: the step takes a second unit and more.
    after.counted();
    expect([after.takesNext(0), after.stopped, after.abort]).toEqual([true, undefined, undefined]);
    clock.ms = 10_000;
    expect([after.takesNext(0), after.stopped]).toEqual([false, 'deadline']);
    // Its stop is its own: the run's record is as it was.
    expect(policy.stopped).toBe('limit');
    const controller = new AbortController();
    const signalled = policyAt({ signal: controller.signal }).policy.afterUnits();
    controller.abort('SIGTERM');
    expect([signalled.takesNext(0), signalled.stopped]).toEqual([false, 'signal']);
  });

  it('a signal after the units leaves the run interrupted, not complete', () => {
    const controller = new AbortController();
    const { policy } = policyAt({ signal: controller.signal });
    expect(policy.takesNext(0)).toBe(true);
    controller.abort('SIGTERM');
    expect([policy.tookAll, policy.status()]).toEqual([false, 'interrupted']);
  });
});

describe('a unit taken, asked again after its wait for room in the queue (stillTakes)', () => {
  const signalled = (): { controller: AbortController; signal: AbortSignal } => {
    const controller = new AbortController();
    return { controller, signal: controller.signal };
  };

  it.each<{ name: string; meanwhile: (policy: StopPolicy, clock: { ms: number }, controller: AbortController) => void; goes: boolean; stopped: string | undefined; status: string }>([
    { name: 'nothing came: it goes', meanwhile: () => undefined, goes: true, stopped: undefined, status: 'completed' },
    { name: 'a signal came: not reached, the run interrupted', meanwhile: (_policy, _clock, controller) => controller.abort('SIGINT'), goes: false, stopped: 'signal', status: 'interrupted' },
    { name: 'the deadline came: not reached, the run stopped at it', meanwhile: (_policy, clock) => (clock.ms = 9_900), goes: false, stopped: 'deadline', status: 'deadline' },
    // It was counted against --limit when it was taken: the limit is not asked again.
    { name: 'the limit is reached by this very unit: it goes', meanwhile: (policy) => policy.counted(), goes: true, stopped: undefined, status: 'completed' },
    // A unit queued when the run aborted is the kind's to report as not sent.
    { name: 'an abort came: it goes to the queue, which does not send it', meanwhile: (policy) => policy.abortWith(new JobAbortError('INVALID_TOKEN', '401')), goes: true, stopped: undefined, status: 'aborted' },
  ])('$name', ({ meanwhile, goes, stopped, status }) => {
    const { controller, signal } = signalled();
    const { policy, clock } = policyAt({ signal, limit: 1, deadline: 10_000 });
    expect(policy.takesNext(0, 2)).toBe(true);
    meanwhile(policy, clock, controller);
    expect(policy.stillTakes(1, 2)).toBe(goes);
    expect([policy.stopped, policy.status(), policy.interrupted]).toEqual([stopped, status, stopped === 'signal']);
  });
});

describe('--max-duration: one reckoning for every kind', () => {
  // Deadline 10 s after the start, 600 ms a call.
  const deadline = 10_000;

  // A row of a file on v1 (a key in a custom field): a unit not read yet is a search and a write.
  const v1Row = unreadRowCallsAtLeast(V1_SURFACE, 'customerid');
  // On v2 with a key in email: one create_or_update.
  const v2EmailRow = unreadRowCallsAtLeast(V2_SURFACE, 'email');

  it.each<{ name: string; inFlight: number[]; next?: number; unread?: number; takes: boolean }>([
    // A unit not read yet is a read and a write: 2 calls, 1.2 s.
    { name: 'no unit in flight: the next, unread, fits', inFlight: [], takes: true },
    // 5 units of 3 calls and the next at the widest seen: 18 calls, 10.8 s.
    { name: 'five rows of 3 calls in flight: the next, reckoned as wide, does not fit', inFlight: [3, 3, 3, 3, 3], takes: false },
    // 5 x 3 calls and a next known to make 1 (undo tagging a created contact): 16 calls, 9.6 s.
    { name: 'the same, when the next is known to make 1 call', inFlight: [3, 3, 3, 3, 3], next: 1, takes: true },
    // 8 units of 1 call and the next at least a read and a write: 10 calls, 6 s.
    { name: 'narrow units in flight: the next is still at least a read and a write', inFlight: [1, 1, 1, 1, 1, 1, 1, 1], unread: v1Row, takes: true },
    // 15 units of 1 call and the next at least a read and a write (v1): 17 calls, 10.2 s.
    { name: 'v1: 15 one-call units in flight, the next unread one is 2 calls: it does not fit', inFlight: Array.from({ length: 15 }, () => 1), unread: v1Row, takes: false },
    // The same on v2 with an email key: the next is one create_or_update, 16 calls, 9.6 s.
    { name: 'v2, key in email: the same units, the next unread one is 1 call: it fits', inFlight: Array.from({ length: 15 }, () => 1), unread: v2EmailRow, takes: true },
  ])('$name', ({ inFlight, next, unread, takes }) => {
    const { policy } = policyAt({ deadline, unreadUnitCalls: unread ?? v1Row });
    for (const calls of inFlight) policy.dispatched(calls);
    expect(policy.takesNext(inFlight.length, next)).toBe(takes);
    expect(policy.stopped).toBe(takes ? undefined : 'deadline');
  });

  it('once units finished, the rest in flight are reckoned at their calls per unit, plus the slowest', () => {
    const { policy, clock, stopping } = policyAt({ deadline });
    const first: TakenUnit = policy.dispatched(5);
    policy.dispatched(5);
    policy.dispatched(5);
    clock.ms = 2000;
    // It made 1 call, not 5, and took 2 s.
    policy.finished(first, 1);
    // 2 in flight + the next, at 1 call each: 1.8 s, plus 2 s: 3.8 s from 2 s is before 10 s.
    expect(policy.takesNext(2)).toBe(true);
    clock.ms = 6300;
    expect(policy.takesNext(2)).toBe(false);
    // Told with the units in flight and what they need (2 x 600 ms + 2 s).
    expect(stopping).toEqual([{ reason: 'deadline', inFlight: 2, finishMs: 3200 }]);
  });
});
