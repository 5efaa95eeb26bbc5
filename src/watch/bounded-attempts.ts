/**
 * How a notice leaves (`notify.webhook`, `notify.heartbeat`, the Pushgateway): a few bounded
 * attempts, so a sink that is down costs seconds, never the night. Three attempts within about 2 s
 * of pauses, each at most 5 s, and all of them within `SINK_DEADLINE_MS` (a sink that trickles its
 * answer cannot hold the run, and its lock, past it; issue 42); tried again on no answer, a 408,
 * 429 or 5xx; never after another answer. A redirect is not followed: it would send the notice
 * (and the URL's secret path) on to wherever the answer points. A failure is a message naming only
 * the URL's origin, for the caller's warning.
 */

/** Pauses between the attempts. */
export const PAUSES_MS = [500, 1_500] as const;
/** Each attempt's limit. */
export const ATTEMPT_TIMEOUT_MS = 5_000;
/** All attempts of one notice, pauses included, end within this. */
export const SINK_DEADLINE_MS = 10_000;
const RETRIED_STATUSES = [408, 429, 500, 502, 503, 504];

/** What one attempt found: the sink took it, or why not, whether to try again, and the fix. */
export type AttemptOutcome =
  | { readonly taken: true }
  | { readonly taken: false; readonly retried: boolean; readonly what: string; readonly fix?: string; readonly cause?: unknown };

/** The bounds of one notice's attempts: its total time, each attempt's, and the signal that ends them early. */
export interface SinkBounds {
  /** All attempts end within this (default `SINK_DEADLINE_MS`). */
  totalMs?: number;
  /** Each attempt's limit (default `ATTEMPT_TIMEOUT_MS`). */
  attemptMs?: number;
  /** Aborted: no further attempt, and the one under way is cut. */
  signal?: AbortSignal;
  /** The clock of the deadline (tests). */
  now?: () => number;
}

/**
 * The outcome of an answer's status: 2xx taken; 408, 429, 5xx tried again; a redirect not
 * followed, naming only the origin it points to; anything else final. `key` names the setting to
 * correct for a redirect (`notify.webhook`).
 */
export function answerOutcome(origin: string, status: number, location: string | undefined, key: string): AttemptOutcome {
  if (status >= 200 && status < 300) return { taken: true };
  if (status >= 300 && status < 400) {
    const target = location === undefined ? 'no address' : URL.canParse(location, origin) ? originOf(new URL(location, origin)) : 'an address that is not a URL';
    return { taken: false, retried: false, what: `HTTP ${status}, a redirect to ${target}, not followed: the notice is sent only where ${key} says`, fix: `set ${key} to the address it redirects to` };
  }
  return { taken: false, retried: RETRIED_STATUSES.includes(status), what: `HTTP ${status}` };
}

/** An attempt that had no answer (refused, reset, timed out): tried again, named by its code. */
export function noAnswerOutcome(error: unknown): AttemptOutcome {
  return { taken: false, retried: true, what: (error as { code?: string }).code ?? (error as Error).name, cause: error };
}

/**
 * Runs `attempt` (given its time limit and the signal that cuts it) until the sink takes it, the
 * attempts run out, the deadline passes or `bounds.signal` aborts; throws the last failure as
 * `<failed> (<what>, after N attempts)[; <fix>]`, `failed` naming the sink by its origin.
 */
export async function attemptBounded(
  attempt: (timeoutMs: number, signal: AbortSignal | undefined) => Promise<AttemptOutcome>,
  failed: string,
  sleep: (ms: number) => Promise<void> = pause,
  bounds: SinkBounds = {},
): Promise<void> {
  const now = bounds.now ?? Date.now;
  const totalMs = bounds.totalMs ?? SINK_DEADLINE_MS;
  const endsAt = now() + totalMs;
  const failure = (count: number, outcome: Extract<AttemptOutcome, { taken: false }>, why?: string): Error => {
    const what = why === undefined ? outcome.what : `${outcome.what}; ${why}`;
    const message = `${failed} (${what}, after ${count} attempt${count === 1 ? '' : 's'})${outcome.fix === undefined ? '' : `; ${outcome.fix}`}`;
    return new Error(message, outcome.cause === undefined ? undefined : { cause: outcome.cause });
  };
  for (let count = 1; count <= PAUSES_MS.length + 1; count += 1) {
    const left = endsAt - now();
    const outcome = await attempt(Math.max(1, Math.min(bounds.attemptMs ?? ATTEMPT_TIMEOUT_MS, left)), bounds.signal);
    if (outcome.taken) return;
    const pauseMs = PAUSES_MS[count - 1];
    if (bounds.signal?.aborted === true) throw failure(count, outcome, 'cut short: the run was interrupted or its notices took too long');
    if (!outcome.retried || pauseMs === undefined) throw failure(count, outcome);
    if (endsAt - now() <= pauseMs) throw failure(count, outcome, `no time left in the notice's ${formatSeconds(totalMs)}`);
    await sleep(pauseMs);
  }
  throw new Error(`${failed} (no attempt was made)`);
}

function formatSeconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}

/** Only the origin is shown: a redirect's path may be a secret too. A `file:` URL has none: its scheme is said. */
function originOf(url: URL): string {
  return url.origin === 'null' ? `a ${url.protocol} URL` : url.origin;
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
