/**
 * `privacy: {mask: [FIELD, ...]}` (issue 45, docs/configuration.md): how a masked field's value is
 * shown where it leaves for people and machines (logs, report.html, summary.json, changes.csv, the
 * webhook; reconcile's and undo's reports). Pure: one rule per kind of value, and a `Masker` of a
 * job that the outputs' few writers call (the report writers, the summary, the job's logger, the
 * webhook, a guard's refusal). Nothing here changes what
 * is written to the platform or kept in the state store.
 *
 * The rules, deterministic and with no length of the hidden part shown:
 * - an email: the first character of its local part, `•••`, `@` and its domain
 *   (`jane.doe@example.com` -> `j•••@example.com`);
 * - a phone in E.164: `+`, its country calling code, `•••••` and its last 3 digits
 *   (`+6591234567` -> `+65•••••567`);
 * - a name (`firstName`, `lastName`, `name`...): its initial and `•` (`Jane` -> `J•`);
 * - anything else: its first character and `•••`; empty stays empty.
 */
import type { Job } from '../../config/job-types.js';

export type MaskRule = 'email' | 'phone' | 'name' | 'other';

const DOTS = '•••';
const PHONE_DOTS = '•••••';

/** Country calling codes of one and two digits (ITU-T E.164); every other code has three. */
const ONE_DIGIT_CODES = new Set(['1', '7']);
const TWO_DIGIT_CODES = new Set(
  '20 27 30 31 32 33 34 36 39 40 41 43 44 45 46 47 48 49 51 52 53 54 55 56 57 58 60 61 62 63 64 65 66 81 82 84 86 90 91 92 93 94 95 98'.split(' '),
);

const EMAIL_SHAPE = /^([^\s@]+)@([^\s@]+)$/;
const PHONE_SHAPE = /^\+(\d{4,15})$/;
/** Field names whose value is a person's name: shown as an initial. */
const NAME_FIELDS = new Set(['firstname', 'lastname', 'name', 'fullname', 'middlename', 'surname', 'givenname', 'familyname', 'nickname']);

/** The first character (a whole code point, never half a surrogate pair). */
function firstChar(value: string): string {
  return Array.from(value)[0] ?? '';
}

/** The country calling code of the digits after `+`. */
function countryCode(digits: string): string {
  if (ONE_DIGIT_CODES.has(digits.slice(0, 1))) return digits.slice(0, 1);
  if (TWO_DIGIT_CODES.has(digits.slice(0, 2))) return digits.slice(0, 2);
  return digits.slice(0, 3);
}

/** `value` masked by `rule`; a value not of the rule's shape (an email field holding no email) is masked as `other`. */
export function maskValue(value: string, rule: MaskRule): string {
  if (value === '') return '';
  if (rule === 'email') {
    const email = EMAIL_SHAPE.exec(value);
    if (email !== null) return `${firstChar(email[1]!)}${DOTS}@${email[2]!}`;
  }
  if (rule === 'phone') {
    const phone = PHONE_SHAPE.exec(value);
    if (phone !== null) {
      const digits = phone[1]!;
      const code = countryCode(digits);
      const rest = digits.slice(code.length);
      return `+${code}${PHONE_DOTS}${rest.length > 3 ? rest.slice(-3) : ''}`;
    }
  }
  if (rule === 'name') return `${firstChar(value)}•`;
  return `${firstChar(value)}${DOTS}`;
}

/**
 * The rule of a field's value: by the field's name first (`email`, `phone`, a name), else by the
 * value's shape (a custom field holding an email or a phone is masked as one), else `other`.
 */
export function ruleOf(field: string, value: string): MaskRule {
  const name = field.toLowerCase();
  if (name === 'email') return 'email';
  if (name === 'phone') return 'phone';
  if (NAME_FIELDS.has(name)) return 'name';
  if (EMAIL_SHAPE.test(value)) return 'email';
  if (PHONE_SHAPE.test(value)) return 'phone';
  return 'other';
}

/** A masked field's value, by its field's rule. */
export function maskFieldValue(field: string, value: string): string {
  return maskValue(value, ruleOf(field, value));
}

/** An email address in free text, raw or percent-encoded as in a URL path (`jane%40example.com`). */
const EMAIL_IN_TEXT = /([A-Za-z0-9._%+'-]+)(@|%40)([A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,})/g;
/** A phone in E.164 in free text, raw or percent-encoded (`%2B6591234567`). */
const PHONE_IN_TEXT = /(\+|%2B)(\d{6,15})(?!\d)/gi;

/** Every email address and E.164 phone in `text` masked by their rules (the field they came from is not known there). */
export function maskInText(text: string): string {
  return text
    .replace(EMAIL_IN_TEXT, (_whole, local: string, _at: string, domain: string) => {
      // A percent-encoded local part starts with its first character all the same (`%2B` is rare first).
      const first = local.startsWith('%') ? decodeOr(local.slice(0, 3)) : firstChar(local);
      return `${first}${DOTS}@${domain}`;
    })
    .replace(PHONE_IN_TEXT, (_whole, _plus: string, digits: string) => maskValue(`+${digits}`, 'phone'));
}

function decodeOr(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** A value of a field as a row holds it: `[field, value]`. */
export type KnownValue = readonly [field: string, value: string];

/**
 * A job's masking: what the report writers, the summary, the logger and the webhook ask. `active`
 * is false for a job without `privacy.mask`: every method then returns what it was given.
 */
export interface Masker {
  readonly active: boolean;
  /** The input's columns that hold a masked field's value (the key's column when the key is masked), to the field. */
  readonly columns: ReadonlyMap<string, string>;
  /** A field's value as shown: masked when the field is masked. */
  field(name: string, value: string): string;
  /** The row's key as shown: masked when the key's field is masked. */
  key(key: string): string;
  /**
   * Free text (an error message, an abort, a log line): email addresses and phones masked, and
   * `keys` (a row's own key) and `values` (the row's values of masked fields, as its cells hold
   * them) wherever they stand as a whole word, raw or percent-encoded. A value shorter than 3
   * characters is left: replaced in free text it would garble the words around it.
   */
  text(text: string, keys?: readonly string[], values?: readonly KnownValue[]): string;
  /** A copy of a JSON-like value (summary.json) with every string passed through `text`. */
  deep<T>(value: T): T;
}

/** The masker of a job without `privacy.mask`. */
export const NO_MASK: Masker = {
  active: false,
  columns: new Map(),
  field: (_name, value) => value,
  key: (key) => key,
  text: (text) => text,
  deep: (value) => value,
};

/** The masker of the masked `fields`, with `keyField` the job's key field (its key is masked when it is among them). */
export function createMasker(fields: readonly string[], keyField: string, columns: ReadonlyMap<string, string> = new Map()): Masker {
  if (fields.length === 0) return NO_MASK;
  const masked = new Set(fields);
  const keyMasked = keyField !== '' && masked.has(keyField);
  const key = (value: string): string => (keyMasked ? maskFieldValue(keyField, value) : value);
  const text = (value: string, keys: readonly string[] = [], values: readonly KnownValue[] = []): string => {
    const known: KnownValue[] = [...(keyMasked ? keys.map((one): KnownValue => [keyField, one]) : []), ...values.filter(([field]) => masked.has(field))];
    // The longest first: a value inside another (a name inside an email) is replaced within it last.
    known.sort((a, b) => b[1].length - a[1].length);
    let out = value;
    for (const [field, one] of known) {
      if (one.length < 3) continue;
      const shown = maskFieldValue(field, one);
      for (const form of new Set([one, encodeURIComponent(one)])) out = out.replace(wholeWord(form), () => shown);
    }
    return maskInText(out);
  };
  const deep = <T>(value: T): T => deepMap(value, (one) => text(one)) as T;
  return {
    active: true,
    columns,
    field: (name, value) => (masked.has(name) ? maskFieldValue(name, value) : value),
    key,
    text,
    deep,
  };
}

/** `text` where it stands as a whole word: not inside a longer run of letters and digits. */
function wholeWord(text: string): RegExp {
  return new RegExp(`(?<![\\p{L}\\p{N}])${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\p{L}\\p{N}])`, 'gu');
}

function deepMap(value: unknown, map: (text: string) => string): unknown {
  if (typeof value === 'string') return map(value);
  if (Array.isArray(value)) return value.map((item) => deepMap(item, map));
  if (value !== null && typeof value === 'object' && !(value instanceof Date)) {
    return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, deepMap(item, map)]));
  }
  return value;
}

/** The masker of a job: its `privacy.mask` (normalised: the fields it maps) over its key's field. */
export function jobMasker(job: Pick<Job, 'privacy' | 'key' | 'fields'>): Masker {
  if (job.privacy === undefined) return NO_MASK;
  const masked = new Set(job.privacy.mask);
  const columns = new Map<string, string>();
  if (masked.has(job.key.field) && job.key.column !== '') columns.set(job.key.column, job.key.field);
  for (const field of job.fields) {
    if (!masked.has(field.name)) continue;
    const from = field.source.kind === 'column' ? [field.source.column] : field.source.kind === 'template' ? field.source.columns : [];
    for (const column of from) if (!columns.has(column)) columns.set(column, field.name);
  }
  return createMasker(job.privacy.mask, job.key.field, columns);
}
