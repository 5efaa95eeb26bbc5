/**
 * `--max-duration`: when to stop taking units so that the units in flight still finish within the
 * duration. Pure: the run gives what it measured (docs/operations.md, "Imports that span nights").
 *
 * Before any unit that called the API has finished, nothing is measured: the units in flight are
 * reckoned at the most calls each can make (the kind says it: `row/row-calls.ts` for a row). A
 * guess of 2 calls a row let a run at 100/min take 8 rows of 3 calls at once, promise "about 10s"
 * and run 15 s (20 to 31 s on wider rows) for `--max-duration 10s`: the calls past the deadline
 * were waiting for the limiter, which keeps its pace whatever the deadline.
 */
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
