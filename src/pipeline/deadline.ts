/**
 * `--max-duration`: when to stop taking rows so that the rows in flight still finish within the
 * duration. Pure: the job gives what it measured (docs/operations.md, "Imports that span nights").
 */
export interface FinishEstimate {
  /** Rows taken and not finished, counting the one about to be taken. */
  readonly inFlight: number;
  /** Calls per row of the rows finished so far (2 before any finished: a search and a write). */
  readonly callsPerRow: number;
  /** The limiter's spacing of contact calls, in ms (period / limit). */
  readonly spacingMs: number;
  /** The longest a row took so far, from taken to finished (latency, retries). */
  readonly slowestRowMs: number;
}

/** Time the rows in flight need to finish: their calls at the allowed pace, plus the slowest row. */
export function timeToFinishMs(estimate: FinishEstimate): number {
  return Math.ceil(estimate.inFlight * estimate.callsPerRow * estimate.spacingMs) + estimate.slowestRowMs;
}

/** True when one more row could not finish, with those in flight, before the deadline. */
export function pastTakingTime(nowMs: number, deadlineMs: number, estimate: FinishEstimate): boolean {
  return nowMs + timeToFinishMs(estimate) >= deadlineMs;
}
