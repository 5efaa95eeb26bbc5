/**
 * A row's country, as a CRM export writes it, to the ISO 3166 alpha-2 code the phone transform
 * needs: alpha-2 codes in any case (`SG`, `sg`), English names (`Singapore`, `United Kingdom`)
 * and a few common forms (`UK`, `USA`, `England`). Names come from the runtime's own ICU
 * (`Intl.DisplayNames`), for every country libphonenumber-js knows: no table to keep up to date.
 */
import { getCountries, isSupportedCountry, type CountryCode } from 'libphonenumber-js';

/** Forms a CRM writes that are not ICU's English name of the country. */
const ALIASES: Readonly<Record<string, CountryCode>> = {
  uk: 'GB',
  'great britain': 'GB',
  britain: 'GB',
  england: 'GB',
  scotland: 'GB',
  wales: 'GB',
  'northern ireland': 'GB',
  usa: 'US',
  'united states of america': 'US',
  america: 'US',
  uae: 'AE',
  'south korea': 'KR',
  korea: 'KR',
  'hong kong': 'HK',
  russia: 'RU',
  vietnam: 'VN',
  holland: 'NL',
  'czech republic': 'CZ',
};

let byName: Map<string, CountryCode> | undefined;

function names(): Map<string, CountryCode> {
  if (byName !== undefined) return byName;
  const display = new Intl.DisplayNames(['en'], { type: 'region' });
  byName = new Map(Object.entries(ALIASES));
  for (const code of getCountries()) {
    const name = display.of(code);
    if (name !== undefined) byName.set(fold(name), code);
  }
  return byName;
}

/** Lowercase, accents and punctuation away: `Côte d’Ivoire` and `cote d'ivoire` meet. */
function fold(text: string): string {
  return text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z ]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The ISO code of `text`, or undefined when it names no country this knows. */
export function countryCode(text: string): CountryCode | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  if (trimmed.length === 2 && isSupportedCountry(trimmed.toUpperCase())) return trimmed.toUpperCase() as CountryCode;
  return names().get(fold(trimmed));
}
