/**
 * The send decision's table (docs/reliability.md, "Messages exactly once on v2"): the surface's
 * sends readable or not, x what the journal holds (nothing, sent, maybe sent), x what the contact's
 * message list showed (not read, found, not found, unreadable), and `repeat`.
 */
import { ALREADY_SENT, decideSend, notSentAgain, type SendFacts, type SendStep } from '../../../src/pipeline/message/send-decision.js';

const AT = Date.UTC(2026, 10, 26, 9, 30);
const SENT = { status: 'sent', recordedAt: AT } as const;
const MAYBE = { status: 'unknown', recordedAt: AT } as const;
const FOUND = { found: { messageId: 'm-7' } } as const;
const NOT_FOUND = { found: undefined } as const;
const UNREADABLE = { unreadable: 'HTTP_ERROR: HTTP 500' } as const;

const settled: SendStep = {
  kind: 'settled',
  messageId: 'm-7',
  note: "sent by an earlier run at 2026-11-26T09:30:00.000Z, which never learnt it arrived: the contact's messages show it (messageId m-7); not sent again",
};

type Row = [string, SendFacts, SendStep];

const TABLE: Row[] = [
  // Nothing journalled: sent, whatever the surface.
  ['v1, never sent', { repeat: false, earlier: undefined, sendsReadable: false }, { kind: 'send' }],
  ['v2, never sent', { repeat: false, earlier: undefined, sendsReadable: true }, { kind: 'send' }],
  // Sent: never again, whatever the surface.
  ['v1, sent', { repeat: false, earlier: SENT, sendsReadable: false }, { kind: 'skip', reason: ALREADY_SENT }],
  ['v2, sent', { repeat: false, earlier: SENT, sendsReadable: true }, { kind: 'skip', reason: ALREADY_SENT }],
  ['v2, sent, a list read anyway', { repeat: false, earlier: SENT, sendsReadable: true, listed: NOT_FOUND }, { kind: 'skip', reason: ALREADY_SENT }],
  // Maybe sent on v1: at most once, not sent again, the list never read.
  ['v1, maybe sent', { repeat: false, earlier: MAYBE, sendsReadable: false }, { kind: 'skip', reason: notSentAgain(AT) }],
  ['v1, maybe sent, whatever a list said', { repeat: false, earlier: MAYBE, sendsReadable: false, listed: NOT_FOUND }, { kind: 'skip', reason: notSentAgain(AT) }],
  // Maybe sent on v2: the list read since the send left, then settled by what it shows.
  ['v2, maybe sent, not read yet', { repeat: false, earlier: MAYBE, sendsReadable: true }, { kind: 'read', sinceMs: AT }],
  ['v2, maybe sent, found', { repeat: false, earlier: MAYBE, sendsReadable: true, listed: FOUND }, settled],
  ['v2, maybe sent, not found', { repeat: false, earlier: MAYBE, sendsReadable: true, listed: NOT_FOUND }, { kind: 'send' }],
  ['v2, maybe sent, list unreadable', { repeat: false, earlier: MAYBE, sendsReadable: true, listed: UNREADABLE }, { kind: 'skip', reason: notSentAgain(AT, 'HTTP_ERROR: HTTP 500') }],
  // repeat: sent again, nothing read.
  ['v1, repeat, sent', { repeat: true, earlier: SENT, sendsReadable: false }, { kind: 'send' }],
  ['v2, repeat, maybe sent', { repeat: true, earlier: MAYBE, sendsReadable: true }, { kind: 'send' }],
];

describe('decideSend', () => {
  test.each(TABLE)('%s', (_name, facts, step) => {
    expect(decideSend(facts)).toEqual(step);
  });

  test('a maybe-sent message not sent again says when it left, and why a later run may still settle it', () => {
    expect(notSentAgain(AT)).toMatch(/^not sent again: an earlier run sent this message at 2026-11-26T09:30:00\.000Z and never learnt whether it arrived .*message\.repeat: true to resend$/);
    expect(notSentAgain(AT, 'HTTP_ERROR: HTTP 500')).toContain("the contact's messages could not be read to settle it (HTTP_ERROR: HTTP 500), so a later run tries again");
  });
});
