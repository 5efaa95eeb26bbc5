/**
 * `match.prefetch`: the contacts of the job, read once by paging through the search of a marker
 * field they all share (the surface's `listPageSize` a call: 10 on v1, 100 on v2), indexed by key.
 * A reconciliation of N existing contacts then costs about N / listPageSize calls instead of N.
 */
import type { ContactsApi } from '../../api/contacts-api.js';
import type { KnownContact } from '../../state/known-contact.js';
import { keyOfContact } from '../map/key-value.js';

export interface ContactIndex {
  /** The contacts holding the key, or undefined when none of the prefetched ones does. */
  lookup(key: string): KnownContact[] | undefined;
  /** Every key of the index with its contacts, in the order the pages gave them. */
  entries(): IterableIterator<[string, KnownContact[]]>;
  /** A row was matched from the index: a search saved. */
  recordHit(): void;
  /** Contacts read. */
  readonly size: number;
  /** Search calls the prefetch made. */
  readonly calls: number;
  /** Rows matched from the index: each is a search saved. */
  readonly hits: number;
}

export async function prefetchContacts(api: ContactsApi, marker: { field: string; value: string }, keyField: string, signal?: AbortSignal): Promise<ContactIndex | undefined> {
  const byKey = new Map<string, KnownContact[]>();
  let size = 0;
  let calls = 0;
  const interrupted = (): boolean => signal?.aborted === true;
  if (interrupted()) return undefined;
  // A listing, not a key's search: bounded by the pages the first announces, not `maxPages`.
  for await (const page of api.listContacts(marker.field, marker.value)) {
    // Interrupted (SIGINT, SIGTERM): no further page. A part of the listing is no index (a key it
    // lacks would be created), so there is none: the run takes no row.
    if (interrupted()) return undefined;
    calls++;
    for (const contact of page) {
      size++;
      // The key in the row's normal form (`map/key-value.ts`): a contact holding `ANN@example.com`
      // is the key `ann@example.com`'s, found in the index as a search finds it, and not listed by
      // reconcile as one the file lacks. A contact is indexed only under the key it holds, so a
      // listing that ignored the marker's filter never gives a key another key's contact.
      const key = keyOfContact(keyField, contact);
      if (key === '') continue;
      const list = byKey.get(key);
      if (list === undefined) byKey.set(key, [contact]);
      else list.push(contact);
    }
  }
  let hits = 0;
  return {
    lookup(key) {
      return byKey.get(key);
    },
    entries() {
      return byKey.entries();
    },
    recordHit() {
      hits++;
    },
    size,
    calls,
    get hits() {
      return hits;
    },
  };
}
