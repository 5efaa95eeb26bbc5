/**
 * `notify: {webhook}`: one JSON POST when a job ends, `{text, summary, exitCode}` (`text` is what
 * Slack-, Mattermost- and Teams-style incoming webhooks display), sent in bounded attempts
 * (`bounded-attempts.ts`): a webhook that fails is the caller's warning and never changes the
 * job's exit code (docs/operations.md). A retried POST whose answer was lost may post twice: for a
 * notice, twice is better than never.
 *
 * A redirect is not followed (issue 33): following it would re-send the job's summary to wherever
 * the answer points (another host, a loop of 30 POSTs, a `file:` URL retried). A 3xx answer is a
 * failure, not retried, that names the origin it pointed to and the fix: the webhook's final URL.
 */
import type { JobSummary } from '../pipeline/report/job-summary.js';
import { answerOutcome, attemptBounded, noAnswerOutcome, type SinkBounds } from './bounded-attempts.js';
import { sendToSink } from './sink-request.js';

export interface WebhookPayload {
  text: string;
  /** summary.json; null when the job failed before it wrote one. */
  summary: JobSummary | null;
  exitCode: number;
}

/**
 * Posts `payload` to `url`. Resolves when the webhook took it (a 2xx, whatever its body, which is
 * not read); throws the last failure otherwise, with a message that names only the URL's origin (a
 * webhook URL's path is often its secret). All attempts end within `bounds` (`bounded-attempts.ts`).
 */
export async function postWebhook(url: string, payload: WebhookPayload, sleep?: (ms: number) => Promise<void>, bounds?: SinkBounds): Promise<void> {
  const origin = new URL(url).origin;
  const body = JSON.stringify(payload);
  await attemptBounded(
    async (timeoutMs, signal) => {
      try {
        const answer = await sendToSink({ method: 'POST', url, body, headers: { 'content-type': 'application/json' } }, timeoutMs, signal);
        return answerOutcome(origin, answer.status, answer.location, 'notify.webhook');
      } catch (error) {
        return noAnswerOutcome(error);
      }
    },
    `the webhook at ${origin} did not take the notice`,
    sleep,
    bounds,
  );
}
