/**
 * The progress display's ETA, as a pure function (test/cli/eta.test.ts is its table): the calls
 * the rows left will cost, at the allowed rate. Rows do not cost alike: a new key costs a search,
 * a create and its tags, an unchanged row of a nightly re-run nothing. So the rows are weighed in
 * two kinds, from what the run knew when it started:
 *
 * - the rows of new keys: with a state store, the file's rows beyond the keys the store knew
 *   (`expectedRows - knownKeys`), less those already created, each at the calls of a created row
 *   so far;
 * - the other rows, each at the calls of the other rows finished so far (unchanged, updated,
 *   skipped, failed).
 *
 * Without a state store the kinds cannot be told apart before the rows are read: every row left
 * is weighed at the calls per finished row. An ETA that would rest on a kind of row none of which
 * finished yet (the new keys after 71 unchanged rows) is unknown ('?') rather than a guess that
 * says minutes for an hour's work. Calls of rows still in flight are not counted: they would
 * inflate the first estimates.
 */
import type { Rate } from '../limits.js';

/** What the ETA is computed from: the run's plan and the finished rows. */
export interface EtaInput {
  /** Data rows the run will take (the file's lines less the header, at most `--limit`). */
  readonly expectedRows: number | undefined;
  /** Keys the state store knew when the run started (less the departed ones); undefined without a store. */
  readonly knownKeys: number | undefined;
  /** Finished rows, and how many of them were created. */
  readonly finished: { readonly rows: number; readonly created: number };
  /** The API calls of the finished rows: of the created ones, and of the others. */
  readonly calls: { readonly created: number; readonly other: number };
  /** The calls the rate limit allows. */
  readonly rate: Rate;
}

/** Milliseconds the rows left will take at the allowed rate; undefined when it cannot be told yet. */
export function estimateRemainingMs(input: EtaInput): number | undefined {
  const { expectedRows, knownKeys, finished, calls, rate } = input;
  if (expectedRows === undefined || finished.rows === 0) return undefined;
  const rowsLeft = Math.max(0, expectedRows - finished.rows);
  const timeOf = (callsLeft: number): number => (callsLeft / rate.limit) * rate.periodMs;
  if (knownKeys === undefined) return timeOf(rowsLeft * ((calls.created + calls.other) / finished.rows));
  const others = finished.rows - finished.created;
  const newLeft = Math.min(rowsLeft, Math.max(0, expectedRows - knownKeys - finished.created));
  const otherLeft = rowsLeft - newLeft;
  const perNew = finished.created > 0 ? calls.created / finished.created : undefined;
  const perOther = others > 0 ? calls.other / others : undefined;
  if ((newLeft > 0 && perNew === undefined) || (otherLeft > 0 && perOther === undefined)) return undefined;
  return timeOf(newLeft * (perNew ?? 0) + otherLeft * (perOther ?? 0));
}
