/**
 * `notify.heartbeat: URL`: the cron monitors' convention (healthchecks and its kind): `GET URL/start`
 * when a job starts, `GET URL` when it ends 0 or 1, `GET URL/fail` otherwise. The monitor alerts
 * on a night that never ran or never ended, which nothing the job sends itself can tell. Attempts
 * are bounded like the webhook's; a ping that fails is the caller's warning and never changes the
 * job's exit code. The URL's path and query are the monitor's secret: a message names only its
 * origin. Redirects are not followed (a monitor's ping URL answers itself; following one would
 * send the secret path on to wherever it points).
 */
import got from 'got';

/** What a ping says: the job started, ended well enough (0 or 1), or failed (any other code). */
export type HeartbeatPing = 'start' | 'success' | 'fail';

/** Pauses between the attempts: three attempts within about 2 s of pauses, each at most 5 s. */
const PAUSES_MS = [500, 1_500] as const;
const ATTEMPT_TIMEOUT_MS = 5_000;
const RETRIED_STATUSES = [408, 429, 500, 502, 503, 504];

/** The ping of a job's end: 0 (every row ended well) and 1 (some rows failed) are a run that ran. */
export function endPing(exitCode: number): Exclude<HeartbeatPing, 'start'> {
  return exitCode === 0 || exitCode === 1 ? 'success' : 'fail';
}

/** The URL of a ping: the check's URL itself for a success, with `/start` or `/fail` after its path otherwise (its query kept). */
export function heartbeatUrl(url: string, ping: HeartbeatPing): string {
  if (ping === 'success') return url;
  const parsed = new URL(url);
  parsed.pathname = `${parsed.pathname.replace(/\/+$/, '')}/${ping}`;
  return parsed.href;
}

/**
 * Sends the ping. Resolves when the monitor took it (a 2xx answer); throws the last failure
 * otherwise, with a message that names only the URL's origin.
 */
export async function pingHeartbeat(url: string, ping: HeartbeatPing, sleep: (ms: number) => Promise<void> = pause): Promise<void> {
  const origin = new URL(url).origin;
  const target = heartbeatUrl(url, ping);
  for (let attempt = 0; ; attempt += 1) {
    let what: string;
    let retried: boolean;
    try {
      const response = await got.get(target, { retry: { limit: 0 }, timeout: { request: ATTEMPT_TIMEOUT_MS }, followRedirect: false, throwHttpErrors: false });
      const status = response.statusCode;
      if (status >= 200 && status < 300) return;
      what = status >= 300 && status < 400 ? `HTTP ${status}, a redirect, not followed: write the URL it points to` : `HTTP ${status}`;
      retried = RETRIED_STATUSES.includes(status);
    } catch (error) {
      what = (error as { code?: string }).code ?? (error as Error).name;
      retried = true;
    }
    const pause = PAUSES_MS[attempt];
    if (!retried || pause === undefined) {
      throw new Error(`the heartbeat at ${origin} did not take the ${ping} ping (${what}, after ${attempt + 1} attempt${attempt === 0 ? '' : 's'})`);
    }
    await sleep(pause);
  }
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
