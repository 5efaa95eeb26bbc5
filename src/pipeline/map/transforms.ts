/**
 * Value transforms of a field (`transform: [trim, lowercase, ...]`), pure functions of a string.
 * An empty value stays empty and is never an error: emptiness is the mapper's business
 * (`default`, `emptyValues`). A value that cannot be normalised is an error with a row code.
 */
import { isSupportedCountry, parsePhoneNumberFromString } from 'libphonenumber-js';
import type { Transform } from '../../config/job-types.js';
import { countryCode } from './country.js';

export type TransformErrorCode = 'INVALID_EMAIL' | 'INVALID_PHONE';

export type TransformResult =
  | { ok: true; value: string }
  | {
      ok: false;
      code: TransformErrorCode;
      /** `<what is wrong with the value>; <fix>`, naming the value; the caller adds line and column. */
      reason: string;
    };

/**
 * A reasonable address shape, not RFC 5322: something@domain.tld, no spaces, no second @,
 * no empty domain label. The platform matches emails case-insensitively, so they are lowercased.
 */
const EMAIL = /^[^\s@"(),:;<>[\]\\]+@(?:[^\s@"(),:;<>[\]\\.]+\.)+[^\s@"(),:;<>[\]\\.]{2,}$/;
/** RFC 5321: 254 characters in a forward path. */
const MAX_EMAIL_LENGTH = 254;

/** A cell of the row being mapped, for transforms that read another column (the phone's country). */
export type RowCell = (column: string) => string | undefined;

/** `transforms` applied in order; the first error stops the chain. */
export function applyTransforms(value: string, transforms: readonly Transform[], cell: RowCell = () => undefined): TransformResult {
  let current = value;
  for (const transform of transforms) {
    const result = applyTransform(current, transform, cell);
    if (!result.ok) return result;
    current = result.value;
  }
  return { ok: true, value: current };
}

export function applyTransform(value: string, transform: Transform, cell: RowCell = () => undefined): TransformResult {
  switch (transform.kind) {
    case 'trim':
      return { ok: true, value: value.trim() };
    case 'lowercase':
      return { ok: true, value: value.toLowerCase() };
    case 'uppercase':
      return { ok: true, value: value.toUpperCase() };
    case 'email':
      return normaliseEmail(value);
    case 'phone':
      return transform.countryColumn === undefined ? normalisePhone(value, transform.defaultCountry) : phoneOfRowCountry(value, transform, cell(transform.countryColumn) ?? '');
    case 'map':
      // Own keys only: a value such as "constructor" must not find Object.prototype's.
      return { ok: true, value: Object.hasOwn(transform.map, value) ? transform.map[value]! : value };
  }
}

/** Trimmed, lowercased, checked for an address shape. */
export function normaliseEmail(value: string): TransformResult {
  const email = value.trim().toLowerCase();
  if (email === '') return { ok: true, value: '' };
  if (email.length > MAX_EMAIL_LENGTH || !EMAIL.test(email)) {
    return { ok: false, code: 'INVALID_EMAIL', reason: `${JSON.stringify(value)} is not an email address; write it as name@example.com` };
  }
  return { ok: true, value: email };
}

/**
 * E.164 (`+447946012345`). Without a leading `+` the number is read as a national number of
 * `defaultCountry` (ISO 3166 alpha-2); the number must be valid for its country, not only have a
 * plausible length.
 */
export function normalisePhone(value: string, defaultCountry?: string): TransformResult {
  const text = value.trim();
  if (text === '') return { ok: true, value: '' };
  const upper = defaultCountry?.toUpperCase();
  const country = upper !== undefined && isSupportedCountry(upper) ? upper : undefined;
  // extract: false, so "call 0791..." is refused instead of yielding the number inside it.
  const phone = parsePhoneNumberFromString(text, { defaultCountry: country, extract: false });
  if (phone === undefined || !phone.isValid()) {
    const fix = country === undefined ? 'write it in international form with its country code (+447946012345), or set the phone transform\'s defaultCountry' : `write it as a valid ${country} number or in international form (+447946012345)`;
    return { ok: false, code: 'INVALID_PHONE', reason: `${JSON.stringify(value)} is not a valid phone number; ${fix}` };
  }
  return { ok: true, value: phone.number };
}

/**
 * The phone with the row's own country first (`country: {column}`): a code or a name; empty or
 * unknown, the fixed `defaultCountry`. An unknown country is named when the number then fails.
 */
function phoneOfRowCountry(value: string, transform: Extract<Transform, { kind: 'phone' }>, countryCell: string): TransformResult {
  const rowCountry = countryCode(countryCell);
  const result = normalisePhone(value, rowCountry ?? transform.defaultCountry);
  if (result.ok || rowCountry !== undefined || countryCell.trim() === '') return result;
  return {
    ...result,
    reason: `${result.reason} (the row's country ${JSON.stringify(countryCell)} in column ${JSON.stringify(transform.countryColumn)} is not a country this knows; write an ISO code such as SG)`,
  };
}
