/**
 * Progress while a job runs: a bar on a terminal (log lines printed above it, never into it), a
 * line every few seconds otherwise (cron logs), and with `--log-format json` a JSON `progress`
 * log line instead, so a collector reads the whole stream as JSON. The ETA comes from the rate
 * limit: the calls the remaining rows will cost, new keys and the other rows each at their own
 * calls per finished row, at the allowed rate (`eta.ts`).
 */
import cliProgress from 'cli-progress';
import type { CallStats } from '../api/contacts-api.js';
import type { Rate } from '../limits.js';
import type { RowTally } from '../pipeline/kinds/file-run-tally.js';
import type { RowResult } from '../pipeline/report/row-outcome.js';
import { formatDuration } from '../pipeline/report/duration.js';
import { estimateRemainingMs } from './eta.js';
import { TerminalOutput } from './terminal-output.js';
import { counted } from '../pipeline/report/counted.js';

export interface ProgressDisplay {
  update(tally: Readonly<RowTally>, row?: FinishedRow): void;
  stop(): void;
}

/** What the display needs of a finished row: its calls, and whether it created its contact. */
export type FinishedRow = Pick<RowResult, 'apiCalls' | 'outcome'>;

/** Where a `log` mode display writes its JSON progress events (the job's logger). */
export type ProgressLog = (fields: Record<string, unknown>, message: string) => void;

export interface ProgressOptions {
  /** `log`: progress events through the logger (JSON logs). */
  mode: 'bar' | 'lines' | 'log' | 'off';
  /** Data rows expected (physical lines less the header, at most `--limit`): an estimate. */
  expectedRows: number | undefined;
  /**
   * Keys the state store knew when the run started (less the departed ones): the rows beyond them
   * are new keys, which the ETA weighs at the calls of a created row. @default no state store
   */
  knownKeys?: number | undefined;
  stats: CallStats;
  /** The pace the calls left go at, asked each time the ETA is shown (v2 learns its limits as it runs); undefined: not known. */
  rate: Rate | (() => Rate | undefined);
  stream: NodeJS.WriteStream | NodeJS.WritableStream;
  /** For `log` mode. */
  log?: ProgressLog;
  /** Names the job in each progress line (jobs running side by side). */
  label?: string;
  /** Seconds between two progress lines or events. @default 10 */
  lineIntervalSeconds?: number;
  now?: () => number;
  /** Calls `tick` every `ms` until the returned function is called. @default setInterval, unref'd */
  every?: (ms: number, tick: () => void) => () => void;
}

export { formatDuration };

const defaultEvery = (ms: number, tick: () => void): (() => void) => {
  const timer = setInterval(tick, ms);
  timer.unref();
  return () => clearInterval(timer);
};

export function createProgressDisplay(options: ProgressOptions): ProgressDisplay {
  if (options.mode === 'off') return { update: () => undefined, stop: () => undefined };
  const now = options.now ?? Date.now;
  const started = now();
  // The calls of the finished rows: of those that created their contact, and of the others.
  const rowCalls = { created: 0, other: 0 };
  let last: Readonly<RowTally> | undefined;
  // Calls are counted between starts: N calls paced by the limit span N - 1 spacings, so N / time
  // would show a paced run as over its limit.
  const callRate = (): string => {
    const minutes = (now() - started) / 60_000;
    return minutes > 0 ? (Math.max(0, options.stats.total() - 1) / minutes).toFixed(1) : '0.0';
  };
  const remainingMs = (tally: Readonly<RowTally>): number | undefined => {
    const rate = typeof options.rate === 'function' ? options.rate() : options.rate;
    return rate === undefined ? undefined : estimateRemainingMs({ expectedRows: options.expectedRows, knownKeys: options.knownKeys, finished: { rows: tally.total, created: tally.created }, calls: rowCalls, rate });
  };
  const eta = (tally: Readonly<RowTally>): string => {
    const ms = remainingMs(tally);
    return ms === undefined ? '?' : formatDuration(ms);
  };
  const count = (tally: Readonly<RowTally>, row: FinishedRow | undefined): void => {
    rowCalls[row?.outcome === 'created' ? 'created' : 'other'] += row?.apiCalls ?? 0;
    last = { ...tally };
  };

  if (options.mode === 'bar') return barDisplay(options, { callRate, eta, count });

  const intervalMs = (options.lineIntervalSeconds ?? 10) * 1000;
  const print = (): void => {
    if (last === undefined) return;
    if (options.mode === 'log') {
      const ms = remainingMs(last);
      options.log?.(
        { progress: { rows: last, expectedRows: options.expectedRows ?? null, calls: options.stats.total(), callsPerMinute: Number(callRate()), etaSeconds: ms === undefined ? null : Math.round(ms / 1000) } },
        'progress',
      );
      return;
    }
    const of = options.expectedRows === undefined ? '' : `/${options.expectedRows}`;
    options.stream.write(
      `progress${options.label === undefined ? '' : ` (${options.label})`}: ${last.total}${of} ${last.total === 1 && of === '' ? 'row' : 'rows'} (created ${last.created}, updated ${last.updated}, unchanged ${last.unchanged}, ` +
        `skipped ${last.skipped}, failed ${last.failed}), ${counted(options.stats.total(), 'call')} (${callRate()}/min), ETA ${eta(last)}\n`,
    );
  };
  const cancel = (options.every ?? defaultEvery)(intervalMs, print);
  return { update: count, stop: cancel };
}

function barDisplay(
  options: ProgressOptions,
  shown: { callRate: () => string; eta: (tally: Readonly<RowTally>) => string; count: (tally: Readonly<RowTally>, row: FinishedRow | undefined) => void },
): ProgressDisplay {
  // Log lines written while the bar is up go above it (MultiBar.log), not into it.
  const terminal = options.stream instanceof TerminalOutput ? options.stream : undefined;
  const bars = new cliProgress.MultiBar(
    {
      // `{eta}` is cli-progress' own (seconds without a unit): ours is `{remaining}`, with units.
      format: 'rows {bar} {value}/{total} | created {created} updated {updated} unchanged {unchanged} skipped {skipped} failed {failed} | calls {calls} ({rate}/min) | ETA {remaining}',
      stream: terminal?.target ?? options.stream,
      hideCursor: true,
      barsize: 16,
      clearOnComplete: false,
      gracefulExit: false,
    },
    cliProgress.Presets.shades_classic,
  );
  const empty = { created: 0, updated: 0, unchanged: 0, skipped: 0, failed: 0, calls: 0, rate: '0.0', remaining: '?' };
  const bar = bars.create(options.expectedRows ?? 0, 0, empty);
  terminal?.attach((text) => bars.log(text));
  let stopped = false;
  return {
    update(tally, row) {
      shown.count(tally, row);
      if (tally.total > bar.getTotal()) bar.setTotal(tally.total);
      const { created, updated, unchanged, skipped, failed } = tally;
      bar.update(tally.total, { created, updated, unchanged, skipped, failed, calls: options.stats.total(), rate: shown.callRate(), remaining: shown.eta(tally) });
    },
    stop() {
      if (stopped) return;
      stopped = true;
      // Flush the lines logged since the last redraw, then leave the final bar on screen.
      bars.update();
      bars.stop();
      terminal?.detach();
    },
  };
}
