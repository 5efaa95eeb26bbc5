/** The dry run's estimate of the real run: calls by operation, and their time at the rate limits. */
import type { CallBudget } from '../../src/api/contacts-api.js';
import { API_OPERATIONS } from '../../src/api/wire-types.js';
import type { Rate } from '../../src/limits.js';
import { contactSpacingMs, estimateRealRun, mixRate, WithheldCalls } from '../../src/pipeline/real-run-estimate.js';

const PER_MINUTE = (limit: number) => ({ limit, periodMs: 60_000 });
const PER_SECOND = (limit: number) => ({ limit, periodMs: 1_000 });
const NONE: Record<string, number> = {};

/** v1's two budgets, as ApiClient.pace() states them. */
function v1(rates: { contacts: Rate; messages: Rate }): CallBudget[] {
  return [
    { name: 'contacts', operations: API_OPERATIONS.filter((operation) => operation !== 'sendMessage'), rate: rates.contacts, source: 'configured' },
    { name: 'messages', operations: ['sendMessage'], rate: rates.messages, source: 'configured' },
  ];
}

/** v2's budgets, one an endpoint, each at `rate`, as V2Client.pace() states them once learnt. */
function v2(rate: Rate, source: CallBudget['source'] = 'learnt'): CallBudget[] {
  const endpoints: Array<[string, CallBudget['operations']]> = [
    ['POST /contact/list', ['searchContacts']],
    ['GET /contact/{identifier}', ['getContact']],
    ['POST /contact/create_or_update/{identifier}', ['createContact']],
    ['PUT /contact/{identifier}', ['updateContact']],
    ['POST /contact/{identifier}/tag', ['addTags']],
    ['DELETE /contact/{identifier}/tag', ['removeTags']],
    ['POST /contact/{identifier}/message', ['sendMessage']],
  ];
  return endpoints.map(([name, operations]) => ({ name, operations, rate, source }));
}

describe('estimateRealRun', () => {
  test.each([
    {
      name: 'a first import at 100/min: a search, a create and a tag call a row, 2,000 rows: an hour',
      made: { searchContacts: 2000 },
      withheld: { createContact: 2000, addTags: 2000 },
      budgets: v1({ contacts: PER_MINUTE(100), messages: PER_SECOND(25) }),
      calls: 6000,
      durationMs: 60 * 60_000,
    },
    {
      name: 'a re-run that settles every row by its state: no call, no time',
      made: NONE,
      withheld: NONE,
      budgets: v1({ contacts: PER_MINUTE(100), messages: PER_SECOND(25) }),
      calls: 0,
      durationMs: 0,
    },
    {
      name: 'sends draw from the messages budget, in parallel: the longer budget is the time',
      made: { searchContacts: 10 },
      withheld: { sendMessage: 600 },
      budgets: v1({ contacts: PER_MINUTE(100), messages: PER_SECOND(1) }),
      calls: 610,
      durationMs: 600_000,
    },
    {
      name: 'the contacts budget is the longer one',
      made: { searchContacts: 300 },
      withheld: { updateContact: 300, sendMessage: 25 },
      budgets: v1({ contacts: PER_MINUTE(600), messages: PER_SECOND(25) }),
      calls: 625,
      durationMs: 60_000,
    },
    {
      name: 'the same first import on v2 at learnt 10 a second an endpoint: each endpoint paces its own 2,000 calls, 200 s, not an hour',
      made: { searchContacts: 2000 },
      withheld: { createContact: 2000, addTags: 2000 },
      budgets: v2(PER_SECOND(10)),
      calls: 6000,
      durationMs: 200_000,
    },
    {
      name: 'v2 before any answer: the first guess, 5 a second an endpoint',
      made: { searchContacts: 100 },
      withheld: { createContact: 100 },
      budgets: v2(PER_SECOND(5), 'first-guess'),
      calls: 200,
      durationMs: 20_000,
    },
  ])('$name', ({ made, withheld, budgets, calls, durationMs }) => {
    const estimate = estimateRealRun(made, withheld, budgets);
    expect(estimate.calls.total).toBe(calls);
    expect(estimate.durationMs).toBe(durationMs);
    expect(estimate.contactsCalls + estimate.messagesCalls).toBe(calls);
  });

  it('adds the withheld calls to the made ones, operation by operation, and says the rate it reckoned at', () => {
    const estimate = estimateRealRun({ searchContacts: 3, createContact: 0 }, { createContact: 2, removeTags: 1 }, v1({ contacts: PER_MINUTE(100), messages: PER_SECOND(25) }));
    expect(estimate.calls.byOperation).toEqual({ searchContacts: 3, createContact: 2, removeTags: 1 });
    expect(estimate.contactsPerMinute).toBe(100);
    expect(estimate.limits).toEqual([
      expect.objectContaining({ budget: 'contacts', perMinute: 100, source: 'configured', calls: 6 }),
      expect.objectContaining({ budget: 'messages', operations: ['sendMessage'], perMinute: 1500, source: 'configured', calls: 0 }),
    ]);
  });

  it('on v2 says each endpoint\'s learnt limit and its calls, and the slowest contact endpoint as contactsPerMinute', () => {
    const budgets = v2(PER_SECOND(10)).map((budget) => (budget.name === 'PUT /contact/{identifier}' ? { ...budget, rate: PER_SECOND(2), source: 'earlier-run' as const } : budget));
    const estimate = estimateRealRun({ searchContacts: 20 }, { updateContact: 20 }, budgets);
    expect(estimate.contactsPerMinute).toBe(120);
    expect(estimate.durationMs).toBe(10_000);
    expect(estimate.limits.find((limit) => limit.budget === 'PUT /contact/{identifier}')).toEqual({ budget: 'PUT /contact/{identifier}', operations: ['updateContact'], perMinute: 120, source: 'earlier-run', calls: 20 });
  });
});

describe('contactSpacingMs: the spacing --max-duration reckons a row\'s calls at', () => {
  test.each<[string, CallBudget[], number]>([
    ['v1 at 100/min: 600 ms a call, sends apart', v1({ contacts: PER_MINUTE(100), messages: PER_SECOND(1) }), 600],
    ['v2 learnt at 10/s an endpoint: 100 ms, not v1\'s 600', v2(PER_SECOND(10)), 100],
    ['v2 with one slower endpoint: that one\'s', v2(PER_SECOND(10)).map((budget) => (budget.operations.includes('addTags') ? { ...budget, rate: PER_SECOND(2) } : budget)), 500],
    ['no budget: nothing paces the calls', [], 0],
  ])('%s', (_name, budgets, spacing) => {
    expect(contactSpacingMs(budgets)).toBe(spacing);
  });
});

describe('mixRate: the pace a mix of calls goes at (the ETA\'s)', () => {
  test.each<[string, Record<string, number>, CallBudget[], Rate | undefined]>([
    ['v1: every contact call on one budget: its rate', { searchContacts: 50, createContact: 50 }, v1({ contacts: PER_MINUTE(100), messages: PER_SECOND(25) }), { limit: 100, periodMs: 60_000 }],
    ['v2: a search and a create a row, 10/s each endpoint: 20 calls a second together', { searchContacts: 50, createContact: 50 }, v2(PER_SECOND(10)), { limit: 100, periodMs: 5_000 }],
    ['v2: updates only: the update endpoint\'s 10/s', { updateContact: 40 }, v2(PER_SECOND(10)), { limit: 40, periodMs: 4_000 }],
    ['before any call: the slowest contact budget', {}, v2(PER_SECOND(5), 'first-guess'), PER_SECOND(5)],
  ])('%s', (_name, calls, budgets, rate) => {
    expect(mixRate(calls, budgets)).toEqual(rate);
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
    const budgets = v1({ contacts: PER_MINUTE(100), messages: PER_SECOND(25) });
    expect(estimateRealRun({}, withheld.byOperation, budgets, withheld.recasedContacts).recasedContacts).toBe(1);
    expect(estimateRealRun({}, withheld.byOperation, budgets)).not.toHaveProperty('recasedContacts');
  });
});
