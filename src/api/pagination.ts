/**
 * Every page of operation 1 as an async generator. Each page is asked for by number through
 * `fetchPage`, which builds its URL from the base URL with `name`, `value` and `page`: the
 * `links` of an answer are never followed, as the platform's drop the filter, use plain http and
 * may name another host (platform notes, "Pagination quirk").
 */
import { PageLimitError } from './errors.js';
import type { Contact, ContactPage } from './wire-types.js';

/**
 * Yields the contacts of each page, in order, until `meta.last_page` or an empty page. One yield
 * per request made, an empty page included, so callers can count calls by yields. Throws
 * `PageLimitError` when more than `maxPages` pages would be needed, after yielding `maxPages`.
 */
export async function* paginateContacts(
  fetchPage: (page: number) => Promise<ContactPage>,
  maxPages: number,
): AsyncGenerator<Contact[], void, undefined> {
  let lastPage = 1;
  for (let page = 1; page <= maxPages; page += 1) {
    const result = await fetchPage(page);
    yield result.data;
    if (result.data.length === 0) return;
    // Read on every page: the total can grow or shrink while the search is paged through.
    lastPage = result.meta.last_page;
    if (page >= lastPage) return;
  }
  throw new PageLimitError({ operation: 'searchContacts', maxPages, lastPage });
}
