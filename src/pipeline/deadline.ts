/**
 * `--max-duration`: when to stop taking rows so that the rows in flight still finish within the
 * duration. Pure: the job gives what it measured (docs/operations.md, "Imports that span nights").
 *
 * Before any row that called the API has finished, nothing is measured: the rows in flight are
 * reckoned at the most calls each can make (`rowCallsAtMost`: a search, then its create's or its
 * update's calls). A guess of 2 calls a row let a run at 100/min take 8 rows of 3 calls at once,
 * promise "about 10s" and run 15 s (20 to 31 s on wider rows) for `--max-duration 10s`: the
 * calls past the deadline were waiting for the limiter, which keeps its pace whatever the deadline.
 */
import type { PlatformSurface } from '../api/platform-surface.js';
import { MAX_FIELDS_PER_CALL } from '../limits.js';
import type { ContactDraft } from './types.js';
import { chunk, planCreate } from './row/plan.js';

export interface FinishEstimate {
  /** Rows taken and not finished, counting the one about to be taken. */
  readonly inFlight: number;
  /**
   * Calls per row of the rows that went to the API and finished so far; undefined before one did
   * (rows that ended with no call, such as unchanged or invalid rows, are not in it: the rows in
   * flight all went to the API).
   */
  readonly callsPerRow: number | undefined;
  /** The most calls the rows in flight can make (the sum of their `rowCallsAtMost`): the reckoning before any finished. */
  readonly callsAtMost: number;
  /** The limiter's spacing of contact calls, in ms (period / limit). */
  readonly spacingMs: number;
  /** The longest a row took so far, from taken to finished (latency, retries). */
  readonly slowestRowMs: number;
}

/** Time the rows in flight need to finish: their calls at the allowed pace, plus the slowest row. */
export function timeToFinishMs(estimate: FinishEstimate): number {
  const calls = estimate.callsPerRow === undefined ? estimate.callsAtMost : estimate.inFlight * estimate.callsPerRow;
  return Math.ceil(calls * estimate.spacingMs) + estimate.slowestRowMs;
}

/** True when one more row could not finish, with those in flight, before the deadline. */
export function pastTakingTime(nowMs: number, deadlineMs: number, estimate: FinishEstimate): boolean {
  return nowMs + timeToFinishMs(estimate) >= deadlineMs;
}

/**
 * The most Contacts API calls a row sent to the API makes on `surface` when no call fails: a read
 * of its key (one search page, or one direct read), then the calls of a create (with its tags) or
 * of an update of every field with its tags added and removed, whichever is more, the tags in
 * calls of the surface's `tagsPerCall`; a create the surface lands on the holder of the row's
 * email or phone (`createLandsOn`, v2) reads that holder first. Messages have a budget of their own and are not counted.
 */
export function rowCallsAtMost(draft: ContactDraft, surface: Pick<PlatformSurface, 'tagsPerCall'> & Partial<Pick<PlatformSurface, 'createLandsOn'>>): number {
  const operations = planCreate(draft, surface).operations;
  const [first] = operations;
  // A create that lands on the holder of its email or phone reads that holder first (decide.ts).
  const landsOn = first?.kind === 'createContact' ? surface.createLandsOn?.(first.fields) : undefined;
  const create = operations.length + (landsOn !== undefined && landsOn !== draft.keyField ? 1 : 0);
  const calls = (items: number, perCall: number): number => Math.ceil(items / perCall);
  const update = calls(Object.keys(draft.fields).length, MAX_FIELDS_PER_CALL) + chunk(draft.tagsToAdd, surface.tagsPerCall).length + chunk(draft.tagsToRemove, surface.tagsPerCall).length;
  return 1 + Math.max(create, update);
}

/** The calls of a row that only reads its key (`reconcile`): one search page, or one direct read. */
export const KEY_READ_CALLS = 1;

/**
 * The fewest Contacts API calls a row of a file not read yet makes when it goes to the API (the
 * stop policy's floor for a unit not read yet, before a wider one was seen): a read of its key and
 * a write; one call where the surface reads a key held in `keyField` directly and upserts by it
 * (a new row is one create-or-update, with no read before it). The surface's capabilities decide,
 * never its name.
 */
export function unreadRowCallsAtLeast(surface: Pick<PlatformSurface, 'directLookup' | 'upsertBy'>, keyField: string): number {
  return surface.directLookup(keyField) && surface.upsertBy(keyField) ? 1 : 2;
}
