/** Verification's decisions, pure (issue 38): the budget, pages or GETs, the round robin, and what a drifted contact needs. */
import type { FieldSpec } from '../../../src/config/job-types.js';
import { V1_SURFACE } from '../../../src/api/v1/surface.js';
import { chooseVerifyReads, nextPageAfter, roundRobin, verifyBudget, verifyContact, type VerifyFacts } from '../../../src/pipeline/verify/verify-plan.js';
import type { KnownContact, StoredContact } from '../../../src/state/known-contact.js';
import { columnField, makeJob } from '../../helpers/job-factory.js';

describe('the budget: floor(share x the keys the state trusts)', () => {
  test.each([
    [20, 100, 20],
    [20, 99, 19],
    [10, 9, 0],
    [0, 1000, 0],
    [100, 7, 7],
    [0.5, 1000, 5],
    [33.3, 10, 3],
    [20, 0, 0],
  ])('%f%% of %i keys: %i calls', (share, trusted, budget) => {
    expect(verifyBudget(share, trusted)).toBe(budget);
  });
});

describe('pages or GETs', () => {
  const facts = (overrides: Partial<VerifyFacts>): VerifyFacts => ({ budget: 20, trustedKeys: 100, candidates: 100, marker: false, listPageSize: 10, nextPage: 1, ...overrides });
  test.each<[string, Partial<VerifyFacts>, string, number, number[] | undefined]>([
    ['no marker: GETs, the budget', {}, 'contacts', 20, undefined],
    ['no marker, fewer untouched keys than the budget: those', { candidates: 7 }, 'contacts', 7, undefined],
    ['no budget', { budget: 0 }, 'none', 0, undefined],
    ['nothing trusted', { trustedKeys: 0, candidates: 0, budget: 0 }, 'none', 0, undefined],
    ['every key touched, no marker', { candidates: 0 }, 'none', 0, undefined],
    ['a marker, pages unknown: the trusted keys\' 10 pages in 1 night', { marker: true }, 'pages', 10, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]],
    ['a marker of 100 a page (v2): 1 page', { marker: true, listPageSize: 100 }, 'pages', 1, [1]],
    ['a marker, a small budget: round robin from the next page', { marker: true, budget: 3, nextPage: 9 }, 'pages', 3, [9, 10, 1]],
    ['a marker, every key touched (a first import): nothing', { marker: true, candidates: 0 }, 'none', 0, undefined],
    ['a marker, a few keys untouched: the pages (the touched are skipped on them)', { marker: true, candidates: 3 }, 'pages', 10, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]],
    ['a marker shared by many more contacts: GETs read everyone sooner', { marker: true, markerPages: 500 }, 'contacts', 20, undefined],
    ['a marker with as many pages as GETs take nights: pages', { marker: true, markerPages: 100, budget: 20 }, 'pages', 20, Array.from({ length: 20 }, (_u, i) => i + 1)],
  ])('%s', (_name, overrides, by, calls, pages) => {
    const reads = chooseVerifyReads(facts(overrides));
    expect(reads.by).toBe(by);
    expect(reads.calls).toBe(calls);
    expect(reads.by === 'pages' ? reads.pages : undefined).toEqual(pages);
    expect(reads.calls).toBeLessThanOrEqual(facts(overrides).budget);
  });

  test.each([
    [1, 10, 3, [1, 2, 3]],
    [9, 10, 3, [9, 10, 1]],
    [11, 10, 2, [1, 2]],
    [4, 3, 5, [1, 2, 3]],
  ])('round robin from %i of %i pages, %i: %j', (next, pages, count, expected) => {
    expect(roundRobin(next, pages, count)).toEqual(expected);
  });

  test.each([
    [3, 10, 4],
    [10, 10, 1],
    [12, 10, 1],
  ])('after page %i of %i the next run starts at %i', (last, pages, next) => {
    expect(nextPageAfter(last, pages)).toBe(next);
  });
});

describe('a contact read against what the state says the job wrote', () => {
  const fields: FieldSpec[] = [columnField('firstName', 'first_name'), { ...columnField('nickname', 'nick'), write: 'fill-empty' }, { ...columnField('source', 'src'), write: 'on-create' }];
  const job = makeJob({ fields, tags: { separator: ';', static: [], remove: ['lead'], prune: false } });
  const record = (overrides: Partial<StoredContact> = {}): StoredContact => ({
    key: 'C1',
    surface: 'v1',
    contact: { id: '7', custom_fields: { customerid: 'C1', firstName: 'Ann', nickname: 'Annie', source: 'crm', notes: 'ours' }, tags: ['crm', 'vip'] },
    jobTags: ['crm', 'vip'],
    draftHash: 'h',
    rowHash: 'r',
    updatedAt: 0,
    ...overrides,
  });
  const read = (fieldsRead: Record<string, string>, tags: string[] = ['crm', 'vip'], id = '7'): KnownContact => ({
    id,
    custom_fields: { customerid: 'C1', firstName: 'Ann', nickname: 'Annie', source: 'crm', ...fieldsRead },
    tags,
  });
  const calls = (verdict: ReturnType<typeof verifyContact>): string[] =>
    verdict.status === 'drift' ? verdict.plan.operations.map((op) => `${op.kind}:${'tags' in op ? op.tags.join('|') : Object.entries(op.fields).map(([k, v]) => `${k}=${v}`).join('|')}`) : [];

  test.each<[string, KnownContact, StoredContact, string, string[]]>([
    ['as written: same', read({}), record(), 'same', []],
    ['an agent edited a field the job writes: repaired to the state\'s value', read({ firstName: 'Edited' }), record(), 'drift', ['updateContact:firstName=Ann']],
    ['an agent emptied a fill-empty field: filled again', read({ nickname: '' }), record(), 'drift', ['updateContact:nickname=Annie']],
    ['an agent changed a fill-empty field: the agent\'s value wins', read({ nickname: 'Bee' }), record(), 'same', []],
    ['an agent changed an on-create field: never written again', read({ source: 'web' }), record(), 'same', []],
    ['an agent emptied an on-create field: never written again', read({ source: '' }), record(), 'same', []],
    ['a field the job does not map differs: not the job\'s', read({ notes: 'theirs' }), record(), 'same', []],
    ['an agent removed a tag the job added: added back', read({}, ['vip']), record(), 'drift', ['addTags:crm']],
    ['an agent added a tag the job removes: removed', read({}, ['crm', 'vip', 'lead']), record(), 'drift', ['removeTags:lead']],
    ['an agent added a tag of their own: left', read({}, ['crm', 'vip', 'agent']), record(), 'same', []],
    ['tags the job added not known (before schema 4): only fields compared', read({}, []), record({ jobTags: null }), 'same', []],
    ['the key field edited: repaired', read({ customerid: 'X9' }), record(), 'drift', ['updateContact:customerid=C1']],
    ['another contact than the state\'s: not judged', read({ firstName: 'Edited' }, ['crm'], '8'), record(), 'other-contact', []],
  ])('%s', (_name, contact, stored, status, expected) => {
    const verdict = verifyContact(stored, contact, job, V1_SURFACE);
    expect(verdict.status).toBe(status);
    expect(calls(verdict)).toEqual(expected);
  });

  test('a drift lists both values for changes.csv, and its journal "before" was read', () => {
    const verdict = verifyContact(record(), read({ firstName: 'Edited' }, ['vip']), job, V1_SURFACE);
    if (verdict.status !== 'drift') throw new Error('expected a drift');
    expect(verdict.changes).toEqual([
      { contactId: '7', field: 'firstName', platformValue: 'Edited', fileValue: 'Ann' },
      { contactId: '7', field: 'tags', platformValue: null, fileValue: 'crm' },
    ]);
    expect(verdict.plan.before).toEqual({ firstName: 'Edited' });
    expect(verdict.plan.beforeRead).toBe(true);
  });
});
