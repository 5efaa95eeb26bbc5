/**
 * v2's contact body (the SDK's `ContactFields`, src/types/contact.ts) onto the one contact store.
 * The store knows only v1's custom fields, so v2's top-level fields are kept as the custom fields
 * of the same names (`firstName`, `email`, ...): a v1 write of `email` is v2's `email`, and back.
 * Every other field goes in `custom_fields: [{name, value}]`, whose names must exist in the
 * workspace when the emulator has a list of them (`allowedFields`).
 */
import { describe } from '../request-body.js';
import { EMAIL_PATTERN, E164_PATTERN } from './identifier.js';
import { badRequest } from './v2-errors.js';

/** v2's top-level contact fields (`ContactFields`), in the SDK's order. */
export const V2_CONTACT_FIELDS = ['firstName', 'lastName', 'phone', 'email', 'language', 'profilePic', 'countryCode'] as const;
export type V2ContactField = (typeof V2_CONTACT_FIELDS)[number];

/** What a body asks of the store: values to set and fields to clear (v2's `null`). */
export interface ContactChanges {
  set: Array<[string, string]>;
  clear: string[];
}

export function readContactFields(
  body: unknown,
  rules: { create: boolean; allowedFields: ReadonlySet<string> | undefined },
): ContactChanges {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw badRequest(`the request body must be a JSON object of contact fields, got ${describe(body)}`);
  }
  const fields = body as Record<string, unknown>;
  const changes: ContactChanges = { set: [], clear: [] };
  for (const key of Object.keys(fields)) {
    if (key !== 'custom_fields' && !(V2_CONTACT_FIELDS as readonly string[]).includes(key)) {
      throw badRequest(`"${key}" is not a contact field (${V2_CONTACT_FIELDS.join(', ')}); send it in custom_fields as {"name": "${key}", "value": ...}`);
    }
  }
  if (rules.create && (typeof fields.firstName !== 'string' || fields.firstName.trim() === '')) {
    throw badRequest(`firstName is required to create a contact (a non-empty string), got ${JSON.stringify(fields.firstName) ?? 'none'}`);
  }
  for (const name of V2_CONTACT_FIELDS) {
    const value = fields[name];
    if (value === undefined) continue;
    if (value === null) {
      if (name === 'firstName') throw badRequest('firstName cannot be cleared; give a name');
      changes.clear.push(name);
      continue;
    }
    if (typeof value !== 'string') throw badRequest(`${name} must be a string or null, got ${describe(value)}`);
    if (name === 'email' && !EMAIL_PATTERN.test(value)) throw badRequest(`email "${value}" is not an email address; give one, or null to clear it`);
    if (name === 'phone' && !E164_PATTERN.test(value)) {
      throw badRequest(`phone "${value}" is not an E.164 number; give "+" and the country code and number (+6591234567), or null to clear it`);
    }
    changes.set.push([name, value]);
  }
  readCustomFields(fields.custom_fields, rules.allowedFields, changes);
  if (changes.set.length === 0 && changes.clear.length === 0) {
    throw badRequest(`the body holds no field; give at least one of ${V2_CONTACT_FIELDS.join(', ')}, custom_fields`);
  }
  return changes;
}

function readCustomFields(list: unknown, allowedFields: ReadonlySet<string> | undefined, changes: ContactChanges): void {
  if (list === undefined || list === null) return;
  if (!Array.isArray(list)) throw badRequest(`custom_fields must be a list of {"name", "value"}, got ${describe(list)}`);
  const seen = new Set<string>();
  list.forEach((entry: unknown, index) => {
    const where = `custom_fields[${index}]`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) throw badRequest(`${where} must be {"name", "value"}, got ${describe(entry)}`);
    const { name, value } = entry as Record<string, unknown>;
    if (typeof name !== 'string' || name === '') throw badRequest(`${where}.name must be a non-empty string, got ${describe(name)}`);
    if ((V2_CONTACT_FIELDS as readonly string[]).includes(name)) {
      throw badRequest(`${where}: "${name}" is a contact field, not a custom field; give it at the top level of the body`);
    }
    if (seen.has(name)) throw badRequest(`${where}: custom field "${name}" is given twice; give it once`);
    seen.add(name);
    if (allowedFields !== undefined && !allowedFields.has(name)) {
      throw badRequest(`custom field "${name}" does not exist in this workspace; create it in the workspace's settings first`);
    }
    if (value === null) changes.clear.push(name);
    else if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') changes.set.push([name, String(value)]);
    else throw badRequest(`${where}.value of "${name}" must be a string, number, boolean or null, got ${describe(value)}`);
  });
}

/** The value a body gives to a field, if it sets it. */
export function valueSet(changes: ContactChanges, name: string): string | undefined {
  return changes.set.find(([field]) => field === name)?.[1];
}
