/**
 * v2's contact on the wire and the one flat `Contact` the pipeline uses, both ways
 * (spec/api-v2-notes.md, "Contacts"; the SDK's `ContactFields` and `Contact`). v2 keeps seven
 * fields at the top level of a contact; every other one is a custom field `{name, value}`. The
 * pipeline knows only named fields, so a write puts the seven at the top level and the rest in
 * `custom_fields`, and a read folds both back into `Contact.custom_fields` under the same names:
 * the row's `email` is the contact's `email` whichever surface wrote it.
 */
import { MalformedResponseError, V2CannotCreateError, type ApiErrorContext } from '../errors.js';
import type { Contact } from '../wire-types.js';

/** v2's top-level contact fields (`ContactFields`). */
export const V2_TOP_LEVEL_FIELDS = ['firstName', 'lastName', 'phone', 'email', 'language', 'profilePic', 'countryCode'] as const;
const TOP_LEVEL: ReadonlySet<string> = new Set(V2_TOP_LEVEL_FIELDS);

/** Whether a field of a job is one of v2's top-level contact fields (else it is a custom field). */
export function isTopLevelField(name: string): boolean {
  return TOP_LEVEL.has(name);
}

/** The body of a create or update: `{firstName, ..., custom_fields: [{name, value}]}`. */
export interface V2ContactBody {
  [topLevel: string]: string | null | Array<{ name: string; value: string }> | undefined;
  custom_fields?: Array<{ name: string; value: string }>;
}

/**
 * The body that writes `fields`. An empty top-level value clears the field (`null`: v2 checks an
 * email or a phone it is given), but `firstName`, which v2 does not let be cleared, is left out.
 */
export function v2ContactBody(fields: Readonly<Record<string, string>>): V2ContactBody {
  const body: V2ContactBody = {};
  const custom: Array<{ name: string; value: string }> = [];
  for (const [name, value] of Object.entries(fields)) {
    if (!isTopLevelField(name)) custom.push({ name, value: String(value) });
    else if (value !== '') body[name] = value;
    else if (name !== 'firstName') body[name] = null;
  }
  if (custom.length > 0) body.custom_fields = custom;
  return body;
}

/** The path identifier of a contact id: `id:<number>`. */
export function idIdentifier(id: string): string {
  return `id:${encodeURIComponent(id)}`;
}

/** `email:<address>` or `phone:<+E.164>`, the value encoded as one path segment. */
export function keyIdentifier(field: 'email' | 'phone', value: string): string {
  return `${field}:${encodeURIComponent(value)}`;
}

/** The forms v2 takes in an identifier (the emulator's, as the platform's are not published). */
const IDENTIFIER_FORMS: Readonly<Record<'email' | 'phone', RegExp>> = {
  email: /^[^\s@]+@[^\s@]+$/,
  phone: /^\+[1-9]\d{5,14}$/,
};

/** Whether `value` of `field` can name a contact in a path: a well-formed email or E.164 phone. */
export function isIdentifierValue(field: string, value: string): field is 'email' | 'phone' {
  return (field === 'email' || field === 'phone') && IDENTIFIER_FORMS[field].test(value);
}

/**
 * How v2 creates a contact of these fields: by its email, else its phone (a well-formed one, the
 * `create_or_update` identifier), with a firstName; else why it cannot (`V2_CANNOT_CREATE`). The
 * one rule: the v2 client's create and `validate` (offline) both ask it.
 */
export function v2CreateBy(fields: Readonly<Record<string, string>>): { ok: true; by: 'email' | 'phone' } | { ok: false; error: V2CannotCreateError } {
  const by = (['email', 'phone'] as const).find((name) => isIdentifierValue(name, fields[name] ?? ''));
  const missing: Array<'identifier' | 'firstName'> = [];
  if (by === undefined) missing.push('identifier');
  if ((fields.firstName ?? '').trim() === '') missing.push('firstName');
  return by === undefined || missing.length > 0 ? { ok: false, error: new V2CannotCreateError(missing) } : { ok: true, by };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function shown(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'an object' : `${typeof value} ${JSON.stringify(value)}`;
}

/** A field value as the pipeline holds it: a string, or nothing for null and an empty first name. */
function flatValue(value: unknown): string | undefined | false {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return false;
}

/** `created_at` as Unix seconds: a number, a string of digits, or a date text. */
function createdSeconds(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && /^\d+$/.test(value)) return Number(value);
  if (typeof value === 'string' && !Number.isNaN(Date.parse(value))) return Math.floor(Date.parse(value) / 1000);
  return undefined;
}

/** A v2 contact read into the flat `Contact`: the id as a string, top-level fields among the custom ones. */
export function readV2Contact(value: unknown, where: ApiErrorContext, at = 'the body'): Contact {
  const malformed = (problem: string): MalformedResponseError => new MalformedResponseError({ ...where, problem });
  if (!isObject(value)) throw malformed(`${at} is ${shown(value)}, not a contact object`);
  const { id, custom_fields: list, tags, created_at: createdAt } = value;
  if (!(typeof id === 'number' && Number.isSafeInteger(id) && id > 0) && !(typeof id === 'string' && /^\d+$/.test(id))) {
    throw malformed(`${at}.id is ${shown(id)}, not a contact's number`);
  }
  const fields: Record<string, string> = {};
  for (const name of V2_TOP_LEVEL_FIELDS) {
    const read = flatValue(value[name]);
    if (read === false) throw malformed(`${at}.${name} is ${shown(value[name])}, not a string or null`);
    // A contact created through v1 without a first name answers "": it has none.
    if (read !== undefined && !(name === 'firstName' && read === '')) fields[name] = read;
  }
  if (list !== undefined && list !== null && !Array.isArray(list)) throw malformed(`${at}.custom_fields is ${shown(list)}, not a list of {name, value}`);
  for (const [index, entry] of (list ?? []).entries()) {
    if (!isObject(entry) || typeof entry.name !== 'string') throw malformed(`${at}.custom_fields[${index}] is ${shown(entry)}, not {name, value}`);
    const read = flatValue(entry.value);
    if (read === false) throw malformed(`${at}.custom_fields[${index}].value is ${shown(entry.value)}, not a string, number, boolean or null`);
    if (read !== undefined) fields[entry.name] = read;
  }
  if (tags !== undefined && tags !== null && !(Array.isArray(tags) && tags.every((tag) => typeof tag === 'string'))) {
    throw malformed(`${at}.tags is ${shown(tags)}, not a list of strings`);
  }
  const seconds = createdSeconds(createdAt);
  if (seconds === undefined) throw malformed(`${at}.created_at is ${shown(createdAt)}, not a time`);
  return { id: String(id), custom_fields: fields, tags: [...(tags ?? [])], created_at: seconds };
}
