/**
 * `notify.heartbeat: URL`: the cron monitors' convention (healthchecks and its kind): `GET URL/start`
 * when a job starts, `GET URL` when it ends 0 or 1, `POST URL` with the status in its body when it
 * ends 4 (the planned end of a night of a multi-night import: a success, issue 41), `GET URL/fail`
 * otherwise. The monitor alerts
 * on a night that never ran or never ended, which nothing the job sends itself can tell. Attempts
 * are bounded like the webhook's; a ping that fails is the caller's warning and never changes the
 * job's exit code. The URL's path and query are the monitor's secret: a message names only its
 * origin. Redirects are not followed (a monitor's ping URL answers itself; following one would
 * send the secret path on to wherever it points).
 */
import { EXIT } from '../exit-codes.js';
import { answerOutcome, attemptBounded, noAnswerOutcome, type SinkBounds } from './bounded-attempts.js';
import { sendToSink, type SinkRequest } from './sink-request.js';

/** What a ping says: the job started, ended well enough (0, 1 or 4), or failed (any other code). */
export type HeartbeatPing = 'start' | 'success' | 'fail';

/**
 * The ping of a job's end: 0 (every row ended well) and 1 (some rows failed) are a run that ran;
 * 4 (stopped at `--max-duration` with rows not reached) is the planned end of a night of a
 * multi-night import, which the next night continues: a success too, or the monitor would alarm
 * every night of a planned import.
 */
export function endPing(exitCode: number): Exclude<HeartbeatPing, 'start'> {
  return exitCode === EXIT.ok || exitCode === EXIT.rowsFailed || exitCode === EXIT.deadline ? 'success' : 'fail';
}

/**
 * What an exit code's success ping says in its body, for the monitors that keep a ping's body
 * (healthchecks shows it in the check's log): only exit 4 says something (a GET has no body; the
 * other success pings stay GETs).
 */
export function endPingNote(exitCode: number): string | undefined {
  return exitCode === EXIT.deadline ? 'exit 4: stopped at --max-duration with rows not reached, as planned; the next run goes on with them\n' : undefined;
}

/** The URL of a ping: the check's URL itself for a success, with `/start` or `/fail` after its path otherwise (its query kept). */
export function heartbeatUrl(url: string, ping: HeartbeatPing): string {
  if (ping === 'success') return url;
  const parsed = new URL(url);
  parsed.pathname = `${parsed.pathname.replace(/\/+$/, '')}/${ping}`;
  return parsed.href;
}

/**
 * Sends the ping in bounded attempts (`bounded-attempts.ts`): a GET, or a POST of `note` (text)
 * when there is one. Resolves when the monitor took it (a 2xx answer, whatever its body, which is
 * not read); throws the last failure otherwise, with a message that names only the URL's origin.
 */
export async function pingHeartbeat(url: string, ping: HeartbeatPing, sleep?: (ms: number) => Promise<void>, bounds?: SinkBounds, note?: string): Promise<void> {
  const origin = new URL(url).origin;
  const target = heartbeatUrl(url, ping);
  const request: SinkRequest = note === undefined ? { method: 'GET', url: target } : { method: 'POST', url: target, body: note, headers: { 'content-type': 'text/plain; charset=utf-8' } };
  await attemptBounded(
    async (timeoutMs, signal) => {
      try {
        const answer = await sendToSink(request, timeoutMs, signal);
        return answerOutcome(origin, answer.status, answer.location, 'notify.heartbeat');
      } catch (error) {
        return noAnswerOutcome(error);
      }
    },
    `the heartbeat at ${origin} did not take the ${ping} ping`,
    sleep,
    bounds,
  );
}
