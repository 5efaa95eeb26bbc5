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
import got from 'got';
import type { JobSummary } from '../pipeline/report/job-summary.js';
import { answerOutcome, ATTEMPT_TIMEOUT_MS, attemptBounded, noAnswerOutcome } from './bounded-attempts.js';

export interface WebhookPayload {
  text: string;
  /** summary.json; null when the job failed before it wrote one. */
  summary: JobSummary | null;
  exitCode: number;
}

/**
 * Posts `payload` to `url`. Resolves when the webhook took it; throws the last failure otherwise,
 * with a message that names only the URL's origin (a webhook URL's path is often its secret).
 */
export async function postWebhook(url: string, payload: WebhookPayload, sleep?: (ms: number) => Promise<void>): Promise<void> {
  const origin = new URL(url).origin;
  await attemptBounded(
    async () => {
      try {
        const answer = await got.post(url, { json: payload, retry: { limit: 0 }, timeout: { request: ATTEMPT_TIMEOUT_MS }, throwHttpErrors: false, followRedirect: false });
        return answerOutcome(origin, answer.statusCode, answer.headers.location, 'notify.webhook');
      } catch (error) {
        return noAnswerOutcome(error);
      }
    },
    `the webhook at ${origin} did not take the notice`,
    sleep,
  );
}
