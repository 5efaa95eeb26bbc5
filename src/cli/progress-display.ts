/**
 * Progress while a job runs: a bar on a terminal, a line every few seconds otherwise (cron logs),
 * nothing in JSON log mode (the logger carries progress there). The ETA comes from the rate limit:
 * the calls the remaining rows will cost at the calls per row seen so far, at the allowed rate.
 */
import cliProgress from 'cli-progress';
import type { CallStats } from '../api/contacts-api.js';
import type { Rate } from '../limits.js';
import type { RowTally } from '../pipeline/run-job.js';

export interface ProgressDisplay {
  update(tally: Readonly<RowTally>): void;
  stop(): void;
}

export interface ProgressOptions {
  mode: 'bar' | 'lines' | 'off';
  /** Data rows expected (physical lines less the header): an estimate, for the bar and the ETA. */
  expectedRows: number | undefined;
  stats: CallStats;
  rate: Rate;
  stream: NodeJS.WriteStream | NodeJS.WritableStream;
  /** Seconds between two progress lines. @default 10 */
  lineIntervalSeconds?: number;
  now?: () => number;
}

export function formatDuration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m${String(seconds % 60).padStart(2, '0')}s`;
  return `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, '0')}m`;
}

/** Time the rows left will take at the allowed rate, from the calls per row seen so far. */
export function estimateRemainingMs(tally: Readonly<RowTally>, expectedRows: number | undefined, calls: number, rate: Rate): number | undefined {
  if (expectedRows === undefined || tally.total === 0) return undefined;
  const rowsLeft = Math.max(0, expectedRows - tally.total);
  return ((rowsLeft * (calls / tally.total)) / rate.limit) * rate.periodMs;
}

export function createProgressDisplay(options: ProgressOptions): ProgressDisplay {
  const now = options.now ?? Date.now;
  const started = now();
  // Calls are counted between starts: N calls paced by the limit span N - 1 spacings, so N / time
  // would show a paced run as over its limit.
  const callRate = (): string => {
    const minutes = (now() - started) / 60_000;
    return minutes > 0 ? (Math.max(0, options.stats.total() - 1) / minutes).toFixed(1) : '0.0';
  };
  const eta = (tally: Readonly<RowTally>): string => {
    const ms = estimateRemainingMs(tally, options.expectedRows, options.stats.total(), options.rate);
    return ms === undefined ? '?' : formatDuration(ms);
  };
  if (options.mode === 'off') return { update: () => undefined, stop: () => undefined };

  if (options.mode === 'bar') {
    const bar = new cliProgress.SingleBar(
      {
        format: 'rows {bar} {value}/{total} | calls {calls} ({rate}/min) | failed {failed} | ETA {eta}',
        stream: options.stream,
        hideCursor: true,
        // Room for the counts and the ETA on an 80-column terminal.
        barsize: 20,
        clearOnComplete: false,
      },
      cliProgress.Presets.shades_classic,
    );
    bar.start(options.expectedRows ?? 0, 0, { calls: 0, rate: '0.0', failed: 0, eta: '?' });
    return {
      update(tally) {
        if (tally.total > bar.getTotal()) bar.setTotal(tally.total);
        bar.update(tally.total, { calls: options.stats.total(), rate: callRate(), failed: tally.failed, eta: eta(tally) });
      },
      stop: () => bar.stop(),
    };
  }

  const intervalMs = (options.lineIntervalSeconds ?? 10) * 1000;
  let last: Readonly<RowTally> | undefined;
  const print = (): void => {
    if (last === undefined) return;
    const of = options.expectedRows === undefined ? '' : `/${options.expectedRows}`;
    options.stream.write(
      `progress: ${last.total}${of} rows (created ${last.created}, updated ${last.updated}, unchanged ${last.unchanged}, ` +
        `skipped ${last.skipped}, failed ${last.failed}), ${options.stats.total()} calls (${callRate()}/min), ETA ${eta(last)}\n`,
    );
  };
  const timer = setInterval(print, intervalMs);
  timer.unref();
  return {
    update(tally) {
      last = { ...tally };
    },
    stop() {
      clearInterval(timer);
    },
  };
}
