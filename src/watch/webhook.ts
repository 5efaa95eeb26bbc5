/**
 * `notify: {webhook}`: one JSON POST when a job ends, `{text, summary, exitCode}` (`text` is what
 * Slack-, Mattermost- and Teams-style incoming webhooks display). Retried briefly on no answer, a
 * 408, 429 or 5xx, and bounded: a webhook that fails is the caller's warning and never changes
 * the job's exit code (docs/operations.md). A retried POST whose answer was lost may post twice:
 * for a notice, twice is better than never.
 *
 * A redirect is not followed (issue 33): following it would re-send the job's summary to wherever
 * the answer points (another host, a loop of 30 POSTs, a `file:` URL retried). A 3xx answer is a
 * failure, not retried, that names the origin it pointed to and the fix: the webhook's final URL.
 */
import got, { HTTPError } from 'got';
import type { JobSummary } from '../pipeline/report/job-summary.js';

export interface WebhookPayload {
  text: string;
  /** summary.json; null when the job failed before it wrote one. */
  summary: JobSummary | null;
  exitCode: number;
}

/** Pauses between the attempts: three attempts within about 2 s of pauses, each at most 5 s. */
const PAUSES_MS = [500, 1_500] as const;
const ATTEMPT_TIMEOUT_MS = 5_000;
const RETRIED_STATUSES = [408, 429, 500, 502, 503, 504];

/**
 * Posts `payload` to `url`. Resolves when the webhook took it; throws the last failure otherwise,
 * with a message that names only the URL's origin (a webhook URL's path is often its secret).
 */
export async function postWebhook(url: string, payload: WebhookPayload, sleep: (ms: number) => Promise<void> = pause): Promise<void> {
  const origin = new URL(url).origin;
  for (let attempt = 0; ; attempt += 1) {
    try {
      const answer = await got.post(url, { json: payload, retry: { limit: 0 }, timeout: { request: ATTEMPT_TIMEOUT_MS }, throwHttpErrors: true, followRedirect: false });
      if (answer.statusCode >= 300) throw redirected(origin, answer.statusCode, answer.headers.location, attempt);
      return;
    } catch (error) {
      if (error instanceof WebhookRedirectError) throw error;
      const status = error instanceof HTTPError ? error.response.statusCode : undefined;
      const retried = status === undefined || RETRIED_STATUSES.includes(status);
      const pause = PAUSES_MS[attempt];
      if (!retried || pause === undefined) {
        const what = status === undefined ? ((error as { code?: string }).code ?? (error as Error).name) : `HTTP ${status}`;
        throw new Error(`the webhook at ${origin} did not take the notice (${what}, after ${attempt + 1} attempt${attempt === 0 ? '' : 's'})`, { cause: error });
      }
      await sleep(pause);
    }
  }
}

/** A webhook answered with a redirect: the notice was not sent on (see the file's comment). */
class WebhookRedirectError extends Error {
  override readonly name = 'WebhookRedirectError';
}

function redirected(origin: string, status: number, location: string | undefined, attempt: number): WebhookRedirectError {
  const target = location === undefined ? 'no address' : URL.canParse(location, origin) ? originOf(new URL(location, origin)) : 'an address that is not a URL';
  const attempts = `after ${attempt + 1} attempt${attempt === 0 ? '' : 's'}`;
  return new WebhookRedirectError(
    `the webhook at ${origin} did not take the notice (HTTP ${status}, a redirect to ${target}, not followed: the notice is sent only where notify.webhook says, ${attempts}); set notify.webhook to the address it redirects to`,
  );
}

/** Only the origin is shown: a redirect's path may be a secret too. A `file:` URL has none: its scheme is said. */
function originOf(url: URL): string {
  return url.origin === 'null' ? `a ${url.protocol} URL` : url.origin;
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
