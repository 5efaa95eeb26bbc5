/**
 * A contact's key as the job normalises a row's (`mapKey`, map.ts): an email lowercased, a phone
 * in E.164, any other field exactly as the platform holds it. Two values are one key only when
 * their normal forms are equal: how a search's answer, the prefetch index and the decision tell
 * the key's contact from another (issue 42). Pure.
 */
import { normaliseEmail, normalisePhone } from './transforms.js';

/**
 * `value` of the key field `keyField` in the key's normal form. A value the transform refuses (a
 * phone that is not a number) stays as the platform holds it, trimmed (an email lowercased too,
 * as the platform compares emails): it equals no row's key.
 */
export function normalKey(keyField: string, value: string): string {
  if (keyField !== 'email' && keyField !== 'phone') return value;
  const normal = keyField === 'email' ? normaliseEmail(value) : normalisePhone(value);
  if (normal.ok) return normal.value;
  return keyField === 'email' ? value.trim().toLowerCase() : value.trim();
}

/** The key a contact holds in `keyField`, in its normal form; '' when it holds none. */
export function keyOfContact(keyField: string, contact: { readonly custom_fields: Readonly<Record<string, string>> }): string {
  const value = contact.custom_fields[keyField];
  return value === undefined ? '' : normalKey(keyField, value);
}
