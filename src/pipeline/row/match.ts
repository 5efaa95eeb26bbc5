/**
 * The matcher: finds the contacts that hold a key, through the client's paginator (search is
 * read-only, so it is safe to repeat; the client retries it).
 */
import type { ContactsApi } from '../../api/contacts-api.js';
import type { KnownContact } from '../../state/known-contact.js';

/**
 * Every contact the platform matches for `field` = `key`, across all pages of the search. The
 * platform's match is trusted as it is (it compares emails case-insensitively, for one): dropping
 * a contact it returned would make the job create a duplicate of it.
 */
export async function findContactsByKey(api: ContactsApi, field: string, key: string): Promise<KnownContact[]> {
  const found: KnownContact[] = [];
  for await (const page of api.searchContacts(field, key)) found.push(...page);
  return found;
}
