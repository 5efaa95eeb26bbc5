/**
 * What is known of one contact, the one shape wherever a contact is known: a platform read (a
 * search, the prefetch index, a reconcile's read, undo's read), the state store's record of a key
 * (`StoredContact.contact`), a dry run's simulated contact, a contact-id column. Where it came
 * from is the caller's (`MatchSource` in pipeline/row/decide.ts), not a field: the decision
 * compares contacts whatever their source. It lives with the state store, which keeps it, and is
 * the one type of the store the pure decisions import (with the change journal's line types).
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
