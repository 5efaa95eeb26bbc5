/** The dry run's estimate of the real run: calls by operation, and their time at the rate limits. */
import { estimateRealRun, WithheldCalls } from '../../src/pipeline/real-run-estimate.js';

const PER_MINUTE = (limit: number) => ({ limit, periodMs: 60_000 });
const PER_SECOND = (limit: number) => ({ limit, periodMs: 1_000 });
const NONE: Record<string, number> = {};

describe('estimateRealRun', () => {
  test.each([
    {
      name: 'a first import at 100/min: a search, a create and a tag call a row, 2,000 rows: an hour',
      made: { searchContacts: 2000 },
      withheld: { createContact: 2000, addTags: 2000 },
      rates: { contacts: PER_MINUTE(100), messages: PER_SECOND(25) },
      calls: 6000,
      durationMs: 60 * 60_000,
    },
    {
      name: 'a re-run that settles every row by its state: no call, no time',
      made: NONE,
      withheld: NONE,
      rates: { contacts: PER_MINUTE(100), messages: PER_SECOND(25) },
      calls: 0,
      durationMs: 0,
    },
    {
      name: 'sends draw from the messages budget, in parallel: the longer budget is the time',
      made: { searchContacts: 10 },
      withheld: { sendMessage: 600 },
      rates: { contacts: PER_MINUTE(100), messages: PER_SECOND(1) },
      calls: 610,
      durationMs: 600_000,
    },
    {
      name: 'the contacts budget is the longer one',
      made: { searchContacts: 300 },
      withheld: { updateContact: 300, sendMessage: 25 },
      rates: { contacts: PER_MINUTE(600), messages: PER_SECOND(25) },
      calls: 625,
      durationMs: 60_000,
    },
  ])('$name', ({ made, withheld, rates, calls, durationMs }) => {
    const estimate = estimateRealRun(made, withheld, rates);
    expect(estimate.calls.total).toBe(calls);
    expect(estimate.durationMs).toBe(durationMs);
    expect(estimate.contactsCalls + estimate.messagesCalls).toBe(calls);
  });

  it('adds the withheld calls to the made ones, operation by operation, and says the rate it reckoned at', () => {
    const estimate = estimateRealRun({ searchContacts: 3, createContact: 0 }, { createContact: 2, removeTags: 1 }, { contacts: PER_MINUTE(100), messages: PER_SECOND(25) });
    expect(estimate.calls.byOperation).toEqual({ searchContacts: 3, createContact: 2, removeTags: 1 });
    expect(estimate.contactsPerMinute).toBe(100);
  });
});

describe('WithheldCalls', () => {
  it('counts a plan\'s operations by kind and one send per recipient', () => {
    const withheld = new WithheldCalls();
    withheld.addOperations([{ kind: 'createContact' }, { kind: 'addTags' }, { kind: 'addTags' }]);
    withheld.addSends(2);
    expect(withheld.byOperation).toMatchObject({ createContact: 1, addTags: 2, sendMessage: 2, searchContacts: 0 });
  });
});

describe('the re-tagging of tags in another case', () => {
  it('counts the contacts whose withheld plan re-tags them, and the estimate names them only when there are any', () => {
    const withheld = new WithheldCalls();
    const target = { id: '1' };
    withheld.addPlan({ operations: [{ kind: 'addTags', target, tags: ['gold'] }], tagsRecased: ['gold'] });
    withheld.addPlan({ operations: [{ kind: 'addTags', target, tags: ['new'] }] });
    expect(withheld.recasedContacts).toBe(1);
    expect(withheld.byOperation.addTags).toBe(2);
    const rates = { contacts: PER_MINUTE(100), messages: PER_SECOND(25) };
    expect(estimateRealRun({}, withheld.byOperation, rates, withheld.recasedContacts).recasedContacts).toBe(1);
    expect(estimateRealRun({}, withheld.byOperation, rates)).not.toHaveProperty('recasedContacts');
  });
});
