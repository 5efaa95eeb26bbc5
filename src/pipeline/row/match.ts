/**
 * The matcher: finds the contacts that hold a key, through the client's paginator (search is
 * read-only, so it is safe to repeat; the client retries it).
 */
import type { ContactsApi } from '../../api/contacts-api.js';
import { MatchKeyMismatchError } from '../../api/errors.js';
import type { KnownContact } from '../../state/known-contact.js';
import { keyOfContact, normalKey } from '../map/key-value.js';

/**
 * Every contact the platform matches for `field` = `key`, across all pages of the search. The
 * platform's match is trusted as far as the key's normal form goes (`map/key-value.ts`: it
 * compares emails case-insensitively, for one): dropping a contact it returned would make the job
 * create a duplicate of it. A contact whose key is another, though, is an answer the platform got
 * wrong (a filter ignored): the read fails with `MATCH_KEY_MISMATCH` and nothing is written for
 * the key (issue 42). `key` is in its normal form, as `mapKey` gives it.
 */
export async function findContactsByKey(api: ContactsApi, field: string, key: string): Promise<KnownContact[]> {
  return readHolders(api, field, key, key);
}

/**
 * The contact that holds the identifier `field` = `value` a create would land on (v2's
 * create_or_update by email or phone), read before the create (issue 41): one direct read on v2.
 * An answer holding another value is the platform's mistake, as for a key (`MATCH_KEY_MISMATCH`).
 */
export async function findIdentifierHolders(api: ContactsApi, field: string, value: string): Promise<KnownContact[]> {
  return readHolders(api, field, value, normalKey(field, value));
}

/** Every contact the read of `field` = `value` answers, each checked to hold `wanted` (its normal form). */
async function readHolders(api: ContactsApi, field: string, value: string, wanted: string): Promise<KnownContact[]> {
  const found: KnownContact[] = [];
  for await (const page of api.searchContacts(field, value)) found.push(...page);
  for (const contact of found) {
    if (keyOfContact(field, contact) !== wanted) {
      throw new MatchKeyMismatchError({ operation: 'searchContacts', field, key: value, contactId: contact.id, held: contact.custom_fields[field] ?? '' });
    }
  }
  return found;
}
