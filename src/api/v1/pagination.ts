/**
 * Every page of operation 1 as an async generator. Each page is asked for by number through
 * `fetchPage`, which builds its URL from the base URL with `name`, `value` and `page`: the
 * `links` of an answer are never followed, as the platform's drop the filter, use plain http and
 * may name another host (platform notes, "Pagination quirk").
 *
 * Two caps, for two kinds of paging (issue 34): one key's search stops at a fixed `maxPages` (a
 * key that many contacts hold is a runaway, not data); listing the contacts of a marker
 * (`match.prefetch`, reconcile) is bounded by the pages its first page announces, with a margin
 * for contacts added while it pages (`listPageCap`), so 50,000 marked contacts are listed and a
 * list that keeps growing still ends.
 */
import { PageLimitError } from '../errors.js';
import type { Contact, ContactPage } from '../wire-types.js';

/**
 * The most pages a listing reads when its first page announces `announcedPages`: twice as many,
 * plus 10, for the contacts added while it pages (each adds a page per 10). Pure: a table test holds it.
 */
export function listPageCap(announcedPages: number): number {
  return Math.max(1, announcedPages) * 2 + 10;
}

/**
 * Yields the contacts of each page, in order, until `meta.last_page` or an empty page. One yield
 * per request made, an empty page included, so callers can count calls by yields. Throws
 * `PageLimitError` when more than `maxPages` pages would be needed, after yielding `maxPages`.
 */
export function paginateContacts(fetchPage: (page: number) => Promise<ContactPage>, maxPages: number): AsyncGenerator<Contact[], void, undefined> {
  return paginate(fetchPage, () => maxPages, (lastPage) => new PageLimitError({ operation: 'searchContacts', maxPages, lastPage }));
}

/**
 * `paginateContacts` for a listing of the contacts a marker field holds: the cap is
 * `listPageCap` of the first page's `meta.last_page`, not `maxPages`. Throws `PageLimitError`
 * (naming the marker) when the list grew past it.
 */
export function paginateList(fetchPage: (page: number) => Promise<ContactPage>, marker: { readonly field: string; readonly value: string }): AsyncGenerator<Contact[], void, undefined> {
  let announced = 1;
  return paginate(
    fetchPage,
    (first) => {
      announced = first;
      return listPageCap(first);
    },
    (lastPage, cap) => new PageLimitError({ operation: 'searchContacts', maxPages: cap, lastPage, listing: { ...marker, announced } }),
  );
}

async function* paginate(
  fetchPage: (page: number) => Promise<ContactPage>,
  capAfter: (announcedPages: number) => number,
  limitError: (lastPage: number, cap: number) => PageLimitError,
): AsyncGenerator<Contact[], void, undefined> {
  let lastPage = 1;
  let cap = Number.POSITIVE_INFINITY;
  for (let page = 1; page <= cap; page += 1) {
    const result = await fetchPage(page);
    yield result.data;
    if (result.data.length === 0) return;
    // Read on every page: the total can grow or shrink while the search is paged through.
    lastPage = result.meta.last_page;
    if (page === 1) cap = capAfter(lastPage);
    if (page >= lastPage) return;
  }
  throw limitError(lastPage, cap);
}
