/**
 * A contact as v2 answers it: the SDK's `Contact` (src/types/contact.ts). The store's fields of
 * v2's top-level names are the top-level fields; the others are `custom_fields`.
 */
import type { Contact } from '../../api/wire-types.js';
import { typedValue, type ValueTypes } from '../contact-answer.js';
import { V2_CONTACT_FIELDS } from './contact-fields.js';

export interface V2Contact {
  id: number;
  /** The SDK types it as a string: a contact created through v1 without one answers "". */
  firstName: string;
  lastName: string | null;
  phone: string | null;
  email: string | null;
  language: string | null;
  profilePic: string | null;
  countryCode: string | null;
  custom_fields: Array<{ name: string; value: string | number | boolean | null }>;
  /** The conversation's status: the emulator has no conversations, so every one is open. */
  status: 'open';
  tags: string[];
  assignee: null;
  lifecycle: null;
  created_at: number;
}

export function v2Contact(contact: Contact, numericId: number, valueTypes: ValueTypes): V2Contact {
  const fields = contact.custom_fields;
  const value = (name: string): string | null => fields[name] ?? null;
  return {
    id: numericId,
    firstName: fields.firstName ?? '',
    lastName: value('lastName'),
    phone: value('phone'),
    email: value('email'),
    language: value('language'),
    profilePic: value('profilePic'),
    countryCode: value('countryCode'),
    custom_fields: Object.entries(fields)
      .filter(([name]) => !(V2_CONTACT_FIELDS as readonly string[]).includes(name))
      .map(([name, stored]) => ({ name, value: valueTypes === 'typed' ? typedValue(stored) : stored })),
    status: 'open',
    tags: [...contact.tags],
    assignee: null,
    lifecycle: null,
    created_at: contact.created_at,
  };
}
