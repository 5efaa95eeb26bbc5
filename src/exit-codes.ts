/**
 * The exit codes of the contract (docs/architecture.md): scripts and cron wrappers switch on them.
 * One module at the root of src/, so the pipeline (a job's own code) and the CLI (a command's)
 * name them alike.
 */
export const EXIT = {
  /** Every row ended well (created, updated, unchanged, skipped). */
  ok: 0,
  /** Some rows failed. */
  rowsFailed: 1,
  /** Usage, config or input error before any row was processed. */
  usage: 2,
  /** Job aborted mid-run (invalid token, error threshold). */
  aborted: 3,
  /** Stopped at --max-duration with rows not reached: run again to go on. */
  deadline: 4,
  /** Another run of the same job holds its lock: nothing was done (sysexits' EX_TEMPFAIL: try later). */
  locked: 75,
  /** Interrupted by SIGINT after flushing the reports. */
  sigint: 130,
  /** Interrupted by SIGTERM after flushing the reports. */
  sigterm: 143,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** The contract's order, best first: 0 < 1 < 4 < 130/143 < 75 < 3 < 2 (docs/architecture.md). */
const RANK: readonly number[] = [EXIT.ok, EXIT.rowsFailed, EXIT.deadline, EXIT.sigint, EXIT.sigterm, EXIT.locked, EXIT.aborted, EXIT.usage];

/** Several jobs in one run: the worst outcome decides. */
export function worstExit(codes: readonly number[]): number {
  const rank = (code: number): number => {
    const at = RANK.indexOf(code);
    // 130 and 143 rank alike; an unknown code ranks as the worst.
    return at < 0 ? RANK.length : code === EXIT.sigterm ? RANK.indexOf(EXIT.sigint) : at;
  };
  return codes.reduce((worst, code) => (rank(code) > rank(worst) ? code : worst), EXIT.ok as number);
}
