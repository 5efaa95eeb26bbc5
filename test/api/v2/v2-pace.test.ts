/**
 * The pace the v2 adapter states (`ContactsApi.pace`, issue 41): per endpoint, the limit this
 * run's answers taught, else the one an earlier run learnt (the state store's), else the first
 * guess (`DEFAULT_V2_ENDPOINT_RATE`); a lower configured ceiling wins. v1 states its configured
 * rates. No call is made: the pace is what the adapter knows.
 */
import Bottleneck from 'bottleneck';
import { ApiClient } from '../../../src/api/v1/client.js';
import type { CallBudget, ContactsApi, EarlierLimit } from '../../../src/api/contacts-api.js';
import { V2Client } from '../../../src/api/v2/client.js';
import type { EndpointAnswer, EndpointLimits, LearntLimit } from '../../../src/api/v2/endpoint-limits.js';
import type { Rate } from '../../../src/limits.js';

const TOKEN = 'workspace-token-77aa';

/** Limits that learnt `learnt` and have `ceilings`; they schedule nothing here. */
function limitsOf(learnt: LearntLimit[], ceilings: Record<string, Rate> = {}): EndpointLimits {
  return {
    schedule: async <T>(_endpoint: string, attempt: () => Promise<{ value: T; answer: EndpointAnswer }>): Promise<T> => (await attempt()).value,
    learnt: () => learnt,
    ceiling: (endpoint) => ceilings[endpoint],
  };
}

function paceOf(budgets: CallBudget[], name: string): Pick<CallBudget, 'rate' | 'source'> | undefined {
  const budget = budgets.find((each) => each.name === name);
  return budget === undefined ? undefined : { rate: budget.rate, source: budget.source };
}

const LIST = 'POST /contact/list';
const CREATE = 'POST /contact/create_or_update/{identifier}';

describe('V2Client.pace', () => {
  test.each<[string, LearntLimit[], EarlierLimit[], Record<string, Rate>, string, Pick<CallBudget, 'rate' | 'source'>]>([
    ['nothing learnt, nothing kept: the first guess, 5 a second', [], [], {}, LIST, { rate: { limit: 5, periodMs: 1_000 }, source: 'first-guess' }],
    ['an earlier run learnt it: its limit', [], [{ name: LIST, rate: { limit: 40, periodMs: 1_000 } }], {}, LIST, { rate: { limit: 40, periodMs: 1_000 }, source: 'earlier-run' }],
    [
      'this run learnt it: this run\'s, over the earlier one',
      [{ endpoint: LIST, limit: 60, windowMs: 1_000 }],
      [{ name: LIST, rate: { limit: 40, periodMs: 1_000 } }],
      {},
      LIST,
      { rate: { limit: 60, periodMs: 1_000 }, source: 'learnt' },
    ],
    ['learnt for another endpoint only: this one\'s first guess', [{ endpoint: LIST, limit: 60, windowMs: 1_000 }], [], {}, CREATE, { rate: { limit: 5, periodMs: 1_000 }, source: 'first-guess' }],
    ['a ceiling lower than what is learnt: the ceiling', [{ endpoint: LIST, limit: 60, windowMs: 1_000 }], [], { [LIST]: { limit: 600, periodMs: 60_000 } }, LIST, { rate: { limit: 600, periodMs: 60_000 }, source: 'ceiling' }],
    ['a ceiling higher than what is learnt: the learnt limit', [{ endpoint: LIST, limit: 60, windowMs: 1_000 }], [], { [LIST]: { limit: 6000, periodMs: 60_000 } }, LIST, { rate: { limit: 60, periodMs: 1_000 }, source: 'learnt' }],
  ])('%s', (_name, learnt, earlier, ceilings, endpoint, expected) => {
    const api = new V2Client({ baseUrl: 'http://127.0.0.1:9/v2', token: TOKEN, limits: limitsOf(learnt, ceilings) });
    expect(paceOf(api.pace(earlier), endpoint)).toEqual(expected);
  });

  it('names every operation of the port in one budget each, sends in their own', () => {
    const budgets = new V2Client({ baseUrl: 'http://127.0.0.1:9/v2', token: TOKEN, limits: limitsOf([]) }).pace();
    const operations = budgets.flatMap((budget) => budget.operations);
    expect(new Set(operations).size).toBe(operations.length);
    expect(operations.sort()).toEqual(['addTags', 'createContact', 'getContact', 'removeTags', 'searchContacts', 'sendMessage', 'updateContact']);
    expect(budgets.find((budget) => budget.operations.includes('sendMessage'))?.operations).toEqual(['sendMessage']);
  });
});

describe('ApiClient.pace (v1)', () => {
  it('states the connection\'s two rates, configured, whatever an earlier run kept', () => {
    const limiters = { contacts: new Bottleneck(), messages: new Bottleneck() };
    const api: ContactsApi = new ApiClient({ baseUrl: 'http://127.0.0.1:9', token: TOKEN, limiters, rates: { contacts: { limit: 100, periodMs: 60_000 }, messages: { limit: 25, periodMs: 1_000 } } });
    expect(api.pace([{ name: 'contacts', rate: { limit: 1, periodMs: 1 } }]).map(({ name, rate, source }) => ({ name, rate, source }))).toEqual([
      { name: 'contacts', rate: { limit: 100, periodMs: 60_000 }, source: 'configured' },
      { name: 'messages', rate: { limit: 25, periodMs: 1_000 }, source: 'configured' },
    ]);
  });
});
