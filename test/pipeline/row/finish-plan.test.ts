/**
 * Reconcile's own writes as pure decisions (issue 46): which contact a merge asks to survive, the
 * merges and the fields past 30, the tags the survivor lacks after them, and a marker set's
 * contact tagged. No server.
 */
import { V2_SURFACE } from '../../../src/api/v2/surface.js';
import { planMerge, planMergedTags, planTagExtra } from '../../../src/pipeline/row/finish-plan.js';
import type { KnownContact } from '../../../src/state/known-contact.js';

const c = (id: string, createdAt: number | undefined, tags: string[] = [], fields: Record<string, string> = {}): KnownContact => ({
  id,
  custom_fields: fields,
  tags,
  ...(createdAt === undefined ? {} : { created_at: createdAt }),
});

type SurvivorRow = [string, KnownContact[], string | undefined, { survivor: string; chosenBy: 'state' | 'oldest'; others: string[] }];
const SURVIVORS: SurvivorRow[] = [
  ['the oldest by created_at, with no id known', [c('20', 200), c('10', 300)], undefined, { survivor: '20', chosenBy: 'oldest', others: ['10'] }],
  ['a tie in created_at: the smaller id (v2 counts ids up in storing order)', [c('101', 100), c('99', 100)], undefined, { survivor: '99', chosenBy: 'oldest', others: ['101'] }],
  ['the id the state knows, even when newer', [c('1', 100), c('2', 200), c('3', 300)], '3', { survivor: '3', chosenBy: 'state', others: ['1', '2'] }],
  ['an id the state knows that holds the key no more: the oldest', [c('1', 100), c('2', 200)], '7', { survivor: '1', chosenBy: 'oldest', others: ['2'] }],
];

describe('planMerge', () => {
  it.each(SURVIVORS)('survivor: %s', (_name, contacts, knownId, expected) => {
    const merge = planMerge({ key: 'C1', keyField: 'customerid', fields: { plan: 'pro' }, knownId, contacts });
    expect({ survivor: merge.survivor, chosenBy: merge.chosenBy, others: merge.others }).toEqual(expected);
  });

  it('merges each other contact in turn, the first into the survivor, the next into whichever survived; the row\'s values (none empty) with the key', () => {
    const merge = planMerge({ key: 'C1', keyField: 'customerid', fields: { plan: 'pro', city: '' }, contacts: [c('1', 1, ['a'], { plan: 'basic' }), c('2', 2, ['b', 'a']), c('3', 3, ['c'])] });
    const fields = { customerid: 'C1', plan: 'pro' };
    expect(merge.plan.operations).toEqual([
      { kind: 'mergeContacts', target: { id: '1' }, other: '2', fields },
      { kind: 'mergeContacts', target: 'created', other: '3', fields },
    ]);
    expect(merge.tags).toEqual(['a', 'b', 'c']);
    expect(merge.plan.before).toEqual({ customerid: null, plan: 'basic' });
  });

  it('fields past 30 follow the merges as updates of the survivor', () => {
    const fields = Object.fromEntries(Array.from({ length: 31 }, (_unused, i) => [`f${i}`, 'v']));
    const merge = planMerge({ key: 'C1', keyField: 'customerid', fields, contacts: [c('1', 1), c('2', 2)] });
    expect(merge.plan.operations.map((operation) => [operation.kind, 'fields' in operation ? Object.keys(operation.fields).length : 0])).toEqual([
      ['mergeContacts', 30],
      ['updateContact', 2],
    ]);
  });

  it('refuses a key held by one contact', () => {
    expect(() => planMerge({ key: 'C1', keyField: 'customerid', fields: {}, contacts: [c('1', 1)] })).toThrow(/two contacts or more/);
  });
});

describe('planMergedTags and planTagExtra', () => {
  it.each([
    ['the survivor has every tag: no call', ['a', 'b'], ['b', 'a'], []],
    ['a platform that dropped the other\'s tags: they are added', ['a', 'b', 'c'], ['a'], [{ kind: 'addTags', target: { id: '1' }, tags: ['b', 'c'] }]],
  ])('%s', (_name, union, held, calls) => {
    expect(planMergedTags(union, c('1', 1, held), V2_SURFACE).operations).toEqual(calls);
  });

  it('12 tags missing go in calls of 10 and 2', () => {
    const union = Array.from({ length: 12 }, (_unused, i) => `t${i}`);
    expect(planMergedTags(union, c('1', 1), V2_SURFACE).operations.map((operation) => ('tags' in operation ? operation.tags.length : 0))).toEqual([10, 2]);
  });

  it.each([
    ['a contact without the tag gets it, its tags read (journalled as read)', ['crm'], [{ kind: 'addTags', target: { id: '9' }, tags: ['gone'] }], 'update'],
    ['a contact with the tag already: no call', ['crm', 'gone'], [], 'unchanged'],
  ])('%s', (_name, tags, calls, action) => {
    const plan = planTagExtra(c('9', 1, tags), 'gone', V2_SURFACE);
    expect([plan.operations, plan.action, plan.beforeRead]).toEqual([calls, action, true]);
  });
});
