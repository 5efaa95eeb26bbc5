/**
 * Sends a row's message, at most once. A send is not idempotent (a retried send can reach the
 * person twice), so: the client retries only what cannot have been delivered (429, refused
 * connection); an unknown outcome is reported `unknown` and never resent by this run; and with a
 * state store the message is journalled as maybe-sent when the limiter releases it, just before it
 * leaves (not while it waits its turn), so no later run sends the same message to the same contact
 * again unless `message.repeat` is true, and a kill leaves unknown only the sends on the wire
 * (docs/reliability.md, "Messages").
 */
import { ApiError, ApiUnavailableError, InvalidTokenError, OutcomeUnknownError } from '../../api/errors.js';
import { RetryAfterTooLongError } from '../../api/connection-health.js';
import { RateLimiterUnavailableError } from '../../api/rate-limiter-unavailable-error.js';
import type { ContactsApi } from '../../api/contacts-api.js';
import { templateOf, type MessageElement } from '../../api/wire-types.js';
import type { MessageSpec } from '../../config/job-types.js';
import { messageHash } from '../../state/message-hash.js';
import type { StateStore } from '../../state/state-store.js';
import { renderMessage } from './message-render.js';

/** The part of the state store a message's send uses: its journal of sends (at most once, docs/messages.md). */
export type MessageStore = Pick<StateStore, 'messageRecord' | 'recordMessage' | 'forgetMessage'>;

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
  if (!spec.repeat) {
    const earlier = state?.messageRecord(contactId, hash);
    if (earlier?.status === 'sent') {
      return { status: 'skipped', error: 'this message was already sent to this contact (message.repeat: false)' };
    }
    // Reported again with its reason, as skipped: this run did nothing, and its exit code is not
    // held at 1 by a send an earlier run already reported unknown.
    if (earlier?.status === 'unknown') {
      return {
        status: 'skipped',
        error:
          `not sent again: an earlier run sent this message at ${new Date(earlier.recordedAt).toISOString()} and never learnt whether it arrived ` +
          '(the run was stopped while it was on the wire, or the platform did not answer); it is not sent again: ' +
          'check with the contact, then rerun with message.repeat: true to resend',
      };
    }
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
  try {
    switch (element.type) {
      case 'text':
        await api.sendText(contactId, element.text, options);
        break;
      case 'quick_reply':
        await api.sendQuickReplies(contactId, element.title, element.replies, options);
        break;
      case 'whatsapp_template':
        await api.sendTemplate(contactId, templateOf(element), options);
        break;
      default:
        await api.sendAttachment(contactId, element.type, element.url, options);
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
  state?.recordMessage(contactId, hash, 'sent');
  return { status: 'sent', error: '' };
}

const RANK: Record<MessageStatus, number> = { skipped: 0, sent: 1, failed: 2, unknown: 3 };

function worst(outcomes: readonly MessageOutcome[]): MessageOutcome {
  // Starts from the first outcome, not from an empty one: a skipped row keeps its reason.
  const [first, ...rest] = outcomes;
  if (first === undefined) return { status: 'skipped', error: '' };
  return rest.reduce<MessageOutcome>((a, b) => (RANK[b.status] > RANK[a.status] ? b : a), first);
}
