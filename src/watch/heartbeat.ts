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
import { answerOutcome, ATTEMPT_TIMEOUT_MS, attemptBounded, noAnswerOutcome } from './bounded-attempts.js';

/** What a ping says: the job started, ended well enough (0 or 1), or failed (any other code). */
export type HeartbeatPing = 'start' | 'success' | 'fail';

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
 * Sends the ping in bounded attempts (`bounded-attempts.ts`). Resolves when the monitor took it (a
 * 2xx answer); throws the last failure otherwise, with a message that names only the URL's origin.
 */
export async function pingHeartbeat(url: string, ping: HeartbeatPing, sleep?: (ms: number) => Promise<void>): Promise<void> {
  const origin = new URL(url).origin;
  const target = heartbeatUrl(url, ping);
  await attemptBounded(
    async () => {
      try {
        const answer = await got.get(target, { retry: { limit: 0 }, timeout: { request: ATTEMPT_TIMEOUT_MS }, followRedirect: false, throwHttpErrors: false });
        return answerOutcome(origin, answer.statusCode, answer.headers.location, 'notify.heartbeat');
      } catch (error) {
        return noAnswerOutcome(error);
      }
    },
    `the heartbeat at ${origin} did not take the ${ping} ping`,
    sleep,
  );
}
