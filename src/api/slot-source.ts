/**
 * What the limiter registry (`limiter.ts`) gives an adapter's family of budgets (v2's learnt
 * limits of one organisation: `v2/learnt-limits.ts`): slot sets created by name, local or shared
 * through Redis, the pauses a 429 asks for, and the clock. The registry owns the sets and their
 * Redis link; the adapter decides how many slots each holds and when.
 */
import type Bottleneck from 'bottleneck';
import type { EndpointPauses } from './endpoint-pauses.js';
import type { LimiterSlots } from './limiter-slots.js';

/** One set of slots: a Bottleneck whose `maxConcurrent` is the slots, and their holds. */
export interface SlotSet {
  readonly limiter: Bottleneck;
  readonly slots: LimiterSlots;
}

/** What the registry gives a family of budgets: its slot sets, pauses and clock. */
export interface SlotSource {
  /**
   * The slot set `name` (`learnt|<endpoint>` or `ceiling|<endpoint>`), `maxConcurrent` slots held
   * `holdMs` each; a set shared through Redis keeps what Redis already holds for it.
   * @throws RateLimiterUnavailableError when its Redis went away
   */
  slotSet(name: string, maxConcurrent: number, holdMs: number, kind: 'learnt' | 'ceiling'): SlotSet;
  readonly pauses: EndpointPauses;
  /** What a failure of the set itself (the request never left) means: see `limiterFailure`. */
  failure(set: SlotSet, error: unknown): unknown;
  /** The monotonic clock of the slots, in milliseconds. */
  readonly now: () => number;
  /** Shared: rejects when Redis is gone for good (a request waiting for a slot is then refused). */
  readonly unavailable?: Promise<never>;
}
