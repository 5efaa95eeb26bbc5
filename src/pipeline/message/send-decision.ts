/**
 * Whether a row's message goes to a contact, given what the message journal holds of it: the pure
 * rule of docs/messages.md "At most once" and docs/reliability.md "Messages exactly once on v2",
 * a table test (send-decision.test.ts). `send-message.ts` gathers the facts and does what it says.
 *
 * A message an earlier run left "maybe sent" (`unknown`: it left and no answer was recorded, a
 * kill while it was on the wire or an answer lost) is settled on a surface whose sends are
 * readable (`surface.sendsReadable`, API v2): the contact's message list is read once, and the
 * message found there is recorded sent with its messageId, not sent again; not found, it did not
 * go out, and is sent once. On a surface that cannot read them (v1) it is not sent again: at most
 * once, as before.
 */

/** What the journal holds of this message to this contact. */
export interface EarlierSend {
  readonly status: 'sent' | 'unknown';
  /** When it was recorded (ms since the epoch): for `unknown`, when the send left. */
  readonly recordedAt: number;
}

/** What reading the contact's messages gave: the message found (or not), or why it could not be read. */
export type MessageListRead = { readonly found: { readonly messageId: string } | undefined } | { readonly unreadable: string };

export interface SendFacts {
  /** `message.repeat`: send again whatever the journal holds. */
  readonly repeat: boolean;
  readonly earlier: EarlierSend | undefined;
  /** The surface's `sendsReadable`: an earlier send can be looked up in the contact's messages. */
  readonly sendsReadable: boolean;
  /** The contact's messages, once read (only after a `read` step); undefined before. */
  readonly listed?: MessageListRead;
}

export type SendStep =
  /** Send it (it was never sent, `repeat`, or the list shows the earlier send did not go out). */
  | { readonly kind: 'send' }
  /** Not sent, with the reason for `message_error` (already sent, or maybe sent and not readable). */
  | { readonly kind: 'skip'; readonly reason: string }
  /** Read the contact's messages for this message since `sinceMs`, then decide again with `listed`. */
  | { readonly kind: 'read'; readonly sinceMs: number }
  /** The earlier send went out: record it sent with `messageId`, report it sent, send nothing. */
  | { readonly kind: 'settled'; readonly messageId: string; readonly note: string };

export const ALREADY_SENT = 'this message was already sent to this contact (message.repeat: false)';

/** `message_error` of a maybe-sent message that is not sent again. */
export function notSentAgain(recordedAt: number, unreadable?: string): string {
  const read = unreadable === undefined ? '' : `; the contact's messages could not be read to settle it (${unreadable}), so a later run tries again`;
  return (
    `not sent again: an earlier run sent this message at ${new Date(recordedAt).toISOString()} and never learnt whether it arrived ` +
    `(the run was stopped while it was on the wire, or the platform did not answer)${read}; it is not sent again: ` +
    'check with the contact, then rerun with message.repeat: true to resend'
  );
}

export function decideSend(facts: SendFacts): SendStep {
  const { earlier } = facts;
  if (facts.repeat || earlier === undefined) return { kind: 'send' };
  if (earlier.status === 'sent') return { kind: 'skip', reason: ALREADY_SENT };
  // Maybe sent: at most once where the platform cannot say, exactly once where it can.
  if (!facts.sendsReadable) return { kind: 'skip', reason: notSentAgain(earlier.recordedAt) };
  const listed = facts.listed;
  if (listed === undefined) return { kind: 'read', sinceMs: earlier.recordedAt };
  if ('unreadable' in listed) return { kind: 'skip', reason: notSentAgain(earlier.recordedAt, listed.unreadable) };
  if (listed.found === undefined) return { kind: 'send' };
  return {
    kind: 'settled',
    messageId: listed.found.messageId,
    note: `sent by an earlier run at ${new Date(earlier.recordedAt).toISOString()}, which never learnt it arrived: the contact's messages show it (messageId ${listed.found.messageId}); not sent again`,
  };
}
