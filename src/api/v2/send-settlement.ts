/**
 * Exactly once on v2 (docs/decisions.md, "v2 sends: exactly once"): a send whose answer was lost
 * (a timeout, a reset after it left, a 5xx) is settled by reading the contact's message list. Pure,
 * so the rule is a table test: the send went out when the list holds a message of the same content
 * whose first status is no older than the moment the send left, less `skewMs` for the platform's
 * clock being behind ours (its times are whole seconds). A match without a time counts as sent:
 * when in doubt the message is not sent twice.
 */
import { isDeepStrictEqual } from 'node:util';
import type { ListedMessage } from './v2-answers.js';

/** How far behind ours the platform's clock may be, in milliseconds. */
export const DEFAULT_SETTLE_SKEW_MS = 30_000;

/** The messageId of the send that left at `leftAtMs` with `message`, when the list shows it; else undefined. */
export function settledMessageId(listed: readonly ListedMessage[], message: unknown, leftAtMs: number, skewMs = DEFAULT_SETTLE_SKEW_MS): string | undefined {
  const since = Math.floor((leftAtMs - skewMs) / 1000);
  // The newest match: the list is oldest first.
  for (let index = listed.length - 1; index >= 0; index -= 1) {
    const candidate = listed[index]!;
    if ((candidate.at === undefined || candidate.at >= since) && isDeepStrictEqual(candidate.message, message)) return candidate.messageId;
  }
  return undefined;
}
