/** The rule that settles a v2 send whose answer was lost, as a table (src/api/v2/send-settlement.ts). */
import { settledMessageId } from '../../../src/api/v2/send-settlement.js';
import type { ListedMessage } from '../../../src/api/v2/v2-answers.js';

const LEFT_AT = 1_700_000_100_000;
const text = (value: string): unknown => ({ type: 'text', text: value });
const listed = (messageId: string, message: unknown, at: number | undefined): ListedMessage => ({ messageId, message, at });

describe('settledMessageId', () => {
  test.each<[string, ListedMessage[], string | undefined]>([
    ['the same content after the send left: sent', [listed('1', text('Hi'), 1_700_000_100)], '1'],
    ['the same content within the clock skew before it: sent', [listed('1', text('Hi'), 1_700_000_075)], '1'],
    ['the same content long before (an earlier send): not this one', [listed('1', text('Hi'), 1_699_990_000)], undefined],
    ['another content: not sent', [listed('1', text('Hello'), 1_700_000_100)], undefined],
    ['a match without a time: counted as sent (never twice when in doubt)', [listed('1', text('Hi'), undefined)], '1'],
    ['no message at all: not sent', [], undefined],
    ['several matches: the newest', [listed('1', text('Hi'), 1_700_000_100), listed('2', text('Hi'), 1_700_000_101)], '2'],
  ])('%s', (_case, messages, expected) => {
    expect(settledMessageId(messages, text('Hi'), LEFT_AT, 30_000)).toBe(expected);
  });
});
