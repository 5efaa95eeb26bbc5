/**
 * A contact as the API answers it. The spec and the platform notes say values come back as
 * strings (`"timezone": "5"`); a reseller's search sample answers `"isLead": true`. With
 * `valueTypes: 'typed'` the emulator answers the second way, so the client is tested against it.
 * Likewise the update's answer: the contact's id as the spec says, or, with
 * `updateAnswerId: 'cus'`, an id of another form as the live docs' sample shows.
 */
import { createHash } from 'node:crypto';
import type { Contact } from '../api/wire-types.js';

/** How contact reads answer custom field values (`EmulatorOptions.valueTypes`). */
export type ValueTypes = 'strings' | 'typed';
export const VALUE_TYPES: readonly ValueTypes[] = ['strings', 'typed'];

/** A contact on the wire: with `typed`, a value may be a JSON boolean or number. */
export interface AnsweredContact extends Omit<Contact, 'custom_fields'> {
  custom_fields: Record<string, string | number | boolean>;
}

export function contactAnswer(contact: Contact, valueTypes: ValueTypes): AnsweredContact {
  if (valueTypes === 'strings') return contact;
  return { ...contact, custom_fields: Object.fromEntries(Object.entries(contact.custom_fields).map(([name, value]) => [name, typedValue(value)])) };
}

/**
 * `true` / `false` as booleans, and a number written the way JSON writes it back (`5`, `-2.5`) as
 * a number; anything else stays a string: `+6591234567`, `007`, `1e3`, a number too large to be
 * exact.
 */
export function typedValue(value: string): string | number | boolean {
  if (value === 'true') return true;
  if (value === 'false') return false;
  if (/^-?(0|[1-9]\d*)(\.\d*[1-9])?$/.test(value)) {
    const number = Number(value);
    if (String(number) === value) return number;
  }
  return value;
}

/** What update contact answers as `data.id` (`EmulatorOptions.updateAnswerId`). */
export type UpdateAnswerId = 'contact' | 'cus';
export const UPDATE_ANSWER_IDS: readonly UpdateAnswerId[] = ['contact', 'cus'];

/**
 * Update contact's `data.id`: the contact's id, or (`cus`) a `cus_` id of the live docs' sample,
 * the same for the same contact and never a contact id, so a client that took it for the
 * contact's id would lose the contact.
 */
export function updateAnswerId(contactId: string, form: UpdateAnswerId): string {
  if (form === 'contact') return contactId;
  return `cus_${createHash('sha256').update(contactId).digest('hex').slice(0, 16)}`;
}
