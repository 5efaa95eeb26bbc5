/**
 * match.prefetch pages only when the pages can cost less than the searches they replace (issue 25):
 * a first import, --full and a job without a state store page as before; a nightly run whose keys
 * the state store knows does not. The pages are the surface's (10 contacts a page on v1, 100 on
 * v2): the same code, other numbers.
 */
import { listPagesFor } from '../../../src/api/platform-surface.js';
import { V1_SURFACE } from '../../../src/api/v1/surface.js';
import { V2_SURFACE } from '../../../src/api/v2/surface.js';
import { choosePrefetch, type PrefetchCounts } from '../../../src/pipeline/row/prefetch-choice.js';

const nightly: PrefetchCounts = { searchesEveryKey: false, full: false, knownKeys: 300, unknownKeys: 0 };

describe('choosePrefetch', () => {
  it.each<[string, PrefetchCounts, boolean, string]>([
    ['state: false', { ...nightly, searchesEveryKey: true, noStore: 'state-false', knownKeys: 0 }, true, 'state: false (the job keeps no state store): every key is matched on the platform'],
    ['a dry run before the first run (no state store yet)', { ...nightly, searchesEveryKey: true, noStore: 'not-created', knownKeys: 0 }, true, 'no state store yet (a dry run before the first run, which creates it): every key is matched on the platform'],
    ['--full', { ...nightly, searchesEveryKey: true, full: true }, true, '--full: every key is matched on the platform'],
    ['a first import (the state knows no key)', { ...nightly, knownKeys: 0, unknownKeys: 500 }, true, 'the state store knows no key yet (a first import)'],
    ['every key known', nightly, false, '0 key(s) the state store does not know: 0 search(es) at most, fewer than the pages (at least 30 for the 300 known contacts)'],
    ['3 new keys among 300', { ...nightly, unknownKeys: 3 }, false, '3 key(s) the state store does not know: 3 search(es) at most, fewer than the pages (at least 30 for the 300 known contacts)'],
    ['as many unknown keys as pages', { ...nightly, unknownKeys: 30 }, false, '30 key(s) the state store does not know: 30 search(es) at most, fewer than the pages (at least 30 for the 300 known contacts)'],
    ['one unknown key more than the pages', { ...nightly, unknownKeys: 31 }, true, 'more than 30 keys the state store does not know: their searches would cost more than the pages (about 30)'],
    ['a state store that lost most keys', { ...nightly, knownKeys: 5, unknownKeys: 295 }, true, 'more than 1 keys the state store does not know: their searches would cost more than the pages (about 1)'],
  ])('v1: %s', (_case, counts, use, reason) => {
    expect(choosePrefetch(counts, V1_SURFACE)).toEqual({ use, reason });
  });

  // v2 lists 100 contacts a page: the 300 known contacts are 3 pages, so 4 unknown keys already page.
  it.each<[string, PrefetchCounts, boolean, string]>([
    ['state: false', { ...nightly, searchesEveryKey: true, noStore: 'state-false', knownKeys: 0 }, true, 'state: false (the job keeps no state store): every key is matched on the platform'],
    ['a first import (the state knows no key)', { ...nightly, knownKeys: 0, unknownKeys: 500 }, true, 'the state store knows no key yet (a first import)'],
    ['every key known', nightly, false, '0 key(s) the state store does not know: 0 search(es) at most, fewer than the pages (at least 3 for the 300 known contacts)'],
    ['3 new keys among 300', { ...nightly, unknownKeys: 3 }, false, '3 key(s) the state store does not know: 3 search(es) at most, fewer than the pages (at least 3 for the 300 known contacts)'],
    ['one unknown key more than the pages', { ...nightly, unknownKeys: 4 }, true, 'more than 3 keys the state store does not know: their searches would cost more than the pages (about 3)'],
    ['31 new keys among 300 (v1 pages them too)', { ...nightly, unknownKeys: 31 }, true, 'more than 3 keys the state store does not know: their searches would cost more than the pages (about 3)'],
    ['a state store that lost most keys', { ...nightly, knownKeys: 5, unknownKeys: 295 }, true, 'more than 1 keys the state store does not know: their searches would cost more than the pages (about 1)'],
  ])('v2: %s', (_case, counts, use, reason) => {
    expect(choosePrefetch(counts, V2_SURFACE)).toEqual({ use, reason });
  });
});

describe('listPagesFor', () => {
  it.each([
    [0, 1, 1],
    [1, 1, 1],
    [10, 1, 1],
    [11, 2, 1],
    [100, 10, 1],
    [101, 11, 2],
    [300, 30, 3],
    [301, 31, 4],
  ])('%i marked contacts: %i page calls on v1, %i on v2', (contacts, v1Pages, v2Pages) => {
    expect([listPagesFor(V1_SURFACE, contacts), listPagesFor(V2_SURFACE, contacts)]).toEqual([v1Pages, v2Pages]);
  });
});
