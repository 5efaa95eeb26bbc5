/**
 * match.prefetch pages only when the pages can cost less than the searches they replace (issue 25):
 * a first import, --full and a job without a state store page as before; a nightly run whose keys
 * the state store knows does not.
 */
import { choosePrefetch, pagesFor, type PrefetchCounts } from '../../../src/pipeline/row/prefetch-choice.js';

const nightly: PrefetchCounts = { searchesEveryKey: false, full: false, knownKeys: 300, unknownKeys: 0 };

describe('choosePrefetch', () => {
  it.each<[string, PrefetchCounts, boolean, string]>([
    ['no state store', { ...nightly, searchesEveryKey: true, knownKeys: 0 }, true, 'no state store: every key is matched on the platform'],
    ['--full', { ...nightly, searchesEveryKey: true, full: true }, true, '--full: every key is matched on the platform'],
    ['a first import (the state knows no key)', { ...nightly, knownKeys: 0, unknownKeys: 500 }, true, 'the state store knows no key yet (a first import)'],
    ['every key known', nightly, false, '0 key(s) the state store does not know: 0 search(es) at most, fewer than the pages (at least 30 for the 300 known contacts)'],
    ['3 new keys among 300', { ...nightly, unknownKeys: 3 }, false, '3 key(s) the state store does not know: 3 search(es) at most, fewer than the pages (at least 30 for the 300 known contacts)'],
    ['as many unknown keys as pages', { ...nightly, unknownKeys: 30 }, false, '30 key(s) the state store does not know: 30 search(es) at most, fewer than the pages (at least 30 for the 300 known contacts)'],
    ['one unknown key more than the pages', { ...nightly, unknownKeys: 31 }, true, 'more than 30 keys the state store does not know: their searches would cost more than the pages (about 30)'],
    ['a state store that lost most keys', { ...nightly, knownKeys: 5, unknownKeys: 295 }, true, 'more than 1 keys the state store does not know: their searches would cost more than the pages (about 1)'],
  ])('%s', (_case, counts, use, reason) => {
    expect(choosePrefetch(counts)).toEqual({ use, reason });
  });
});

describe('pagesFor', () => {
  it.each([
    [0, 1],
    [1, 1],
    [10, 1],
    [11, 2],
    [300, 30],
    [301, 31],
  ])('%i marked contacts: %i page calls', (contacts, pages) => {
    expect(pagesFor(contacts)).toBe(pages);
  });
});
