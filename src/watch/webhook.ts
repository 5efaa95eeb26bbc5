/**
 * `notify: {webhook}`: one JSON POST when a job ends, `{text, summary, exitCode}` (`text` is what
 * Slack-, Mattermost- and Teams-style incoming webhooks display). Retried briefly on no answer, a
 * 408, 429 or 5xx, and bounded: a webhook that fails is the caller's warning and never changes
 * the job's exit code (docs/operations.md). A retried POST whose answer was lost may post twice:
 * for a notice, twice is better than never.
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
      await got.post(url, { json: payload, retry: { limit: 0 }, timeout: { request: ATTEMPT_TIMEOUT_MS }, throwHttpErrors: true });
      return;
    } catch (error) {
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

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
