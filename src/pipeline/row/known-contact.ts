import type { StoredContact } from '../../state/contacts-table.js';

/**
 * What is known of one contact, the one shape wherever a contact is known: a platform read (a
 * search, the prefetch index, a reconcile's fresh read), the state store's record of a key
 * (`keyStateOf` in sync-row.ts, `StoredContact`'s contactId/fields/tags), a dry run's simulated
 * contact, a contact-id column. Where it came from is the caller's `MatchSource`, not a field: the
 * decision compares contacts whatever their source.
 */
export interface KnownContact {
  id: string;
  custom_fields: Readonly<Record<string, string>>;
  tags: readonly string[];
  /**
   * Unix seconds, only when a platform read supplied it: it orders a key's duplicates
   * (`contact-order.ts`). A contact known otherwise has none, and is its key's only contact.
   */
  created_at?: number;
}

/** The contact the store's record of a key holds: no `created_at`, a stored contact is its key's only one. */
export function storedContact(record: Pick<StoredContact, 'contactId' | 'fields' | 'tags'>): KnownContact {
  return { id: record.contactId, custom_fields: record.fields, tags: record.tags };
}
