/**
 * Value transforms of a field (`transform: [trim, lowercase, ...]`), pure functions of a string.
 * An empty value stays empty and is never an error: emptiness is the mapper's business
 * (`default`, `emptyValues`). A value that cannot be normalised is an error with a row code.
 */
import { getExampleNumber, isSupportedCountry, parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js';
import examples from 'libphonenumber-js/mobile/examples';
import type { Transform } from '../../config/job-types.js';
import { countryCode, countryLabel } from './country.js';

export type TransformErrorCode = 'INVALID_EMAIL' | 'INVALID_PHONE' | 'UNKNOWN_COUNTRY';

export type TransformResult =
  | {
      ok: true;
      value: string;
      /**
       * The phone transform's: the extension the value had (`x889`, `ext. 889`), which the E.164
       * `value` does not hold. The mapper names it (or writes it to `extensionField`), never drops it unsaid.
       */
      extension?: string;
    }
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
  let extension: string | undefined;
  for (const transform of transforms) {
    const result = applyTransform(current, transform, cell);
    if (!result.ok) return result;
    current = result.value;
    if (result.extension !== undefined) extension = result.extension;
  }
  return extension === undefined ? { ok: true, value: current } : { ok: true, value: current, extension };
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
 * plausible length. A number with an extension (`x889`, `ext. 889`, `;ext=889`, `#889`) is the
 * number in E.164, which has no extension, and the extension beside it (`extension`): the mapper
 * names it in the reports, or writes it to a field of its own (docs/decisions.md, "Phone extensions").
 */
export function normalisePhone(value: string, defaultCountry?: string): TransformResult {
  const text = value.trim();
  if (text === '') return { ok: true, value: '' };
  const upper = defaultCountry?.toUpperCase();
  const country = upper !== undefined && isSupportedCountry(upper) ? upper : undefined;
  // extract: false, so "call 0791..." is refused instead of yielding the number inside it.
  const phone = parsePhoneNumberFromString(text, { defaultCountry: country, extract: false });
  if (phone === undefined || !phone.isValid()) {
    return { ok: false, code: 'INVALID_PHONE', reason: `${JSON.stringify(value)} is not a valid phone number; ${phoneFix(country)}` };
  }
  if (phone.ext !== undefined) return { ok: true, value: phone.number, extension: phone.ext };
  return { ok: true, value: phone.number };
}

/** How to write a number: with the country's own example when the number is read in one. */
function phoneFix(country: CountryCode | undefined): string {
  const example = country === undefined ? undefined : getExampleNumber(country, examples);
  if (country === undefined || example === undefined) {
    return "write it in international form with its country code (+447946012345), or set the phone transform's defaultCountry";
  }
  return `write it as a valid ${countryLabel(country)} number such as ${example.formatNational()}, or in international form (${example.number})`;
}

/**
 * The phone with the row's own country first (`country: {column}`): a code (alpha-2 or alpha-3)
 * or a name; empty, the fixed `defaultCountry`. A cell that names no country is never replaced by
 * the default, which would store a Mexican number as an American one: a number in international
 * form needs no country, any other fails `UNKNOWN_COUNTRY` (or is skipped under skip-field).
 */
function phoneOfRowCountry(value: string, transform: Extract<Transform, { kind: 'phone' }>, countryCell: string): TransformResult {
  const rowCountry = countryCode(countryCell);
  if (rowCountry !== undefined || countryCell.trim() === '') return normalisePhone(value, rowCountry ?? transform.defaultCountry);
  const text = value.trim();
  if (text === '' || text.startsWith('+')) return normalisePhone(value);
  return {
    ok: false,
    code: 'UNKNOWN_COUNTRY',
    reason: `the row's country ${JSON.stringify(countryCell)} in column ${JSON.stringify(transform.countryColumn)} names no country this knows, so ${JSON.stringify(value)} (no +country code) cannot be read; write an ISO code (SG or SGP) or a country's name (Singapore) in that column, or the number in international form (+6581234567)`,
  };
}
