/** The exit codes of the contract (docs/architecture.md): scripts and cron wrappers switch on them. */
export const EXIT = {
  /** Every row ended well (created, updated, unchanged, skipped). */
  ok: 0,
  /** Some rows failed. */
  rowsFailed: 1,
  /** Usage, config or input error before any row was processed. */
  usage: 2,
  /** Job aborted mid-run (invalid token, error threshold). */
  aborted: 3,
  /** Interrupted by SIGINT after flushing the reports. */
  sigint: 130,
  /** Interrupted by SIGTERM after flushing the reports. */
  sigterm: 143,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** Several jobs in one run: the worst outcome decides. */
export function worstExit(codes: readonly number[]): number {
  const rank = [EXIT.ok, EXIT.rowsFailed, EXIT.aborted, EXIT.usage];
  return codes.reduce((worst, code) => {
    if (code === EXIT.sigint || code === EXIT.sigterm) return code;
    if (worst === EXIT.sigint || worst === EXIT.sigterm) return worst;
    return rank.indexOf(code as 0 | 1 | 2 | 3) > rank.indexOf(worst as 0 | 1 | 2 | 3) ? code : worst;
  }, EXIT.ok as number);
}
