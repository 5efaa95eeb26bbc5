/**
 * Sends a row's message, at most once. A send is not idempotent (a retried send can reach the
 * person twice), so: the client retries only what cannot have been delivered (429, refused
 * connection); an unknown outcome is reported `unknown` and never resent by this run; and with a
 * state store the message is journalled as maybe-sent when the limiter releases it, just before it
 * leaves (not while it waits its turn), so no later run sends the same message to the same contact
 * again unless `message.repeat` is true, and a kill leaves unknown only the sends on the wire
 * (docs/reliability.md, "Messages"). On a surface whose sends are readable (API v2) a send recorded
 * `sent` keeps its `messageId`, and one an earlier run left unknown is settled by reading the
 * contact's messages: exactly once (the pure rule: send-decision.ts).
 */
import { ApiError, ApiUnavailableError, InvalidTokenError, OutcomeUnknownError } from '../../api/errors.js';
import { RetryAfterTooLongError } from '../../api/connection-health.js';
import { RateLimiterUnavailableError } from '../../api/rate-limiter-unavailable-error.js';
import type { ContactsApi, SendReceipt } from '../../api/contacts-api.js';
import { templateOf, type MessageElement } from '../../api/wire-types.js';
import type { MessageSpec } from '../../config/job-types.js';
import { messageHash } from '../../state/message-hash.js';
import type { MessageStore } from '../../state/state-port.js';
import { renderMessage } from './message-render.js';
import { decideSend, type MessageListRead } from './send-decision.js';

/** The part of the state store a message's send uses: its journal of sends (at most once, docs/messages.md). */

export type MessageStatus = 'sent' | 'skipped' | 'failed' | 'unknown';

export interface MessageOutcome {
  status: MessageStatus;
  error: string;
}

export interface SendContext {
  api: ContactsApi;
  spec: MessageSpec;
  state: MessageStore | undefined;
  dryRun: boolean;
}

/** Sends to each contact id; the row's status is the worst of them. */
export async function sendRowMessage(contactIds: readonly string[], values: Readonly<Record<string, string>>, context: SendContext): Promise<MessageOutcome> {
  const rendered = renderMessage(context.spec, values);
  if (!rendered.ok) return { status: 'failed', error: rendered.error };
  const outcomes: MessageOutcome[] = [];
  for (const contactId of contactIds) outcomes.push(await sendOnce(contactId, rendered.element, context));
  return worst(outcomes);
}

async function sendOnce(contactId: string, element: MessageElement, context: SendContext): Promise<MessageOutcome> {
  const { api, spec, state } = context;
  const hash = messageHash(element);
  const earlier = spec.repeat ? undefined : state?.messageRecord(contactId, hash);
  const facts = { repeat: spec.repeat, earlier, sendsReadable: api.surface.sendsReadable };
  let step = decideSend(facts);
  if (step.kind === 'read') {
    // A dry run reads nothing here: the real run would settle the send or send it, once.
    if (context.dryRun) return { status: 'sent', error: '' };
    step = decideSend({ ...facts, listed: await readMessageList(api, contactId, element, step.sinceMs) });
  }
  switch (step.kind) {
    case 'skip':
      // Reported as skipped, with its reason: this run did nothing, and its exit code is not held
      // at 1 by a send an earlier run already reported unknown.
      return { status: 'skipped', error: step.reason };
    case 'settled':
      state?.recordMessage(contactId, hash, 'sent', step.messageId);
      return { status: 'sent', error: step.note };
    case 'read':
      throw new Error('the send decision asked to read the message list twice');
    case 'send':
      break;
  }
  if (context.dryRun) return { status: 'sent', error: '' };
  let journalled = false;
  const options = {
    forceCancelSurvey: spec.forceCancelSurvey,
    onLeave: () => {
      if (journalled || state === undefined) return;
      state.recordMessage(contactId, hash, 'unknown');
      journalled = true;
    },
  };
  const forget = (): void => {
    if (journalled) state?.forgetMessage(contactId, hash);
  };
  let receipt: void | SendReceipt;
  try {
    switch (element.type) {
      case 'text':
        receipt = await api.sendText(contactId, element.text, options);
        break;
      case 'quick_reply':
        receipt = await api.sendQuickReplies(contactId, element.title, element.replies, options);
        break;
      case 'whatsapp_template':
        receipt = await api.sendTemplate(contactId, templateOf(element), options);
        break;
      default:
        receipt = await api.sendAttachment(contactId, element.type, element.url, options);
    }
  } catch (error) {
    if (error instanceof InvalidTokenError) {
      forget();
      throw error;
    }
    // The job stops: the shared limiter refused, the platform is down or asked for too long a
    // pause. This send did not leave, or was answered 429: not delivered.
    if (error instanceof RateLimiterUnavailableError || error instanceof ApiUnavailableError || error instanceof RetryAfterTooLongError) {
      forget();
      throw error;
    }
    // The journal could not be written: the job stops (STATE_WRITE_FAILED) before the send leaves.
    if (!(error instanceof ApiError)) throw error;
    if (error instanceof OutcomeUnknownError) {
      return { status: 'unknown', error: `${error.message}; it may have been delivered, so it is not sent again (check with the contact, then rerun with message.repeat: true to resend)` };
    }
    // Refused by the platform: certainly not delivered, so a later run may try again.
    forget();
    return { status: 'failed', error: error instanceof ApiError ? `${error.code}: ${error.message}` : String(error) };
  }
  state?.recordMessage(contactId, hash, 'sent', receipt?.messageId);
  return { status: 'sent', error: '' };
}

/**
 * The contact's messages read for a maybe-sent message (only on a surface with `sendsReadable`).
 * A refused token or a platform that is down stops the job, as a send's would; any other failure
 * to read leaves the message maybe sent, for a later run to settle.
 */
async function readMessageList(api: ContactsApi, contactId: string, element: MessageElement, sinceMs: number): Promise<MessageListRead> {
  // Present wherever `sendsReadable` is true, the only surface the send decision reads on.
  if (api.findSentMessage === undefined) return { unreadable: 'the surface cannot read a contact\'s messages' };
  try {
    return { found: await api.findSentMessage(contactId, element, sinceMs) };
  } catch (error) {
    if (error instanceof InvalidTokenError || error instanceof RateLimiterUnavailableError || error instanceof ApiUnavailableError || error instanceof RetryAfterTooLongError) throw error;
    if (!(error instanceof ApiError)) throw error;
    return { unreadable: `${error.code}: ${error.message}` };
  }
}

const RANK: Record<MessageStatus, number> = { skipped: 0, sent: 1, failed: 2, unknown: 3 };

function worst(outcomes: readonly MessageOutcome[]): MessageOutcome {
  // Starts from the first outcome, not from an empty one: a skipped row keeps its reason.
  const [first, ...rest] = outcomes;
  if (first === undefined) return { status: 'skipped', error: '' };
  return rest.reduce<MessageOutcome>((a, b) => (RANK[b.status] > RANK[a.status] ? b : a), first);
}
