/**
 * A row's country, as a CRM export writes it, to the ISO 3166 alpha-2 code the phone transform
 * needs: alpha-2 and alpha-3 codes in any case (`SG`, `sg`, `SGP`, `deu`; alpha-3 from the ISO
 * table in iso-alpha3.ts), English names (`Singapore`, `United Kingdom`) and a few common forms
 * (`UK`, `USA`, `England`), and the names a CRM in another language writes (`Deutschland`,
 * `Österreich`, `España`, `Brasil`). Names come from the runtime's own ICU
 * (`Intl.DisplayNames`), for every country libphonenumber-js knows: no table of names to keep up to date.
 */
import { getCountries, isSupportedCountry, type CountryCode } from 'libphonenumber-js';
import { ALPHA3_TO_ALPHA2 } from './iso-alpha3.js';

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

/**
 * The languages, besides English, whose country names are known: those written in the Latin
 * script that CRMs are most used in. A name in another script folds to nothing and is not used.
 */
const OTHER_LANGUAGES = ['de', 'fr', 'es', 'it', 'pt', 'nl', 'sv', 'da', 'nb', 'fi', 'pl', 'cs', 'hu', 'ro', 'tr', 'id', 'ca', 'hr', 'sk', 'sl'] as const;

let byName: Map<string, CountryCode> | undefined;

function names(): Map<string, CountryCode> {
  if (byName !== undefined) return byName;
  byName = new Map(Object.entries(ALIASES));
  addNames(byName, 'en', () => true);
  // A name that means two countries in two languages is left out rather than guessed; English
  // names and the aliases come first and are never replaced.
  const english = new Set(byName.keys());
  const ambiguous = new Set<string>();
  for (const language of OTHER_LANGUAGES) {
    addNames(byName, language, (name, code) => {
      if (english.has(name) || ambiguous.has(name)) return false;
      const known = byName?.get(name);
      if (known !== undefined && known !== code) {
        ambiguous.add(name);
        byName?.delete(name);
        return false;
      }
      return true;
    });
  }
  return byName;
}

function addNames(into: Map<string, CountryCode>, language: string, keep: (name: string, code: CountryCode) => boolean): void {
  const display = new Intl.DisplayNames([language], { type: 'region', fallback: 'none' });
  for (const code of getCountries()) {
    const name = display.of(code);
    if (name === undefined) continue;
    const folded = fold(name);
    if (folded.length > 2 && keep(folded, code)) into.set(folded, code);
  }
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
  const upper = trimmed.toUpperCase();
  if (trimmed.length === 2 && isSupportedCountry(upper)) return upper;
  // Own keys only: "CONSTRUCTOR" is no code. A code of a territory with no numbering plan of its
  // own (ATA, Antarctica) names no country whose numbers can be read.
  const alpha2 = trimmed.length === 3 && Object.hasOwn(ALPHA3_TO_ALPHA2, upper) ? ALPHA3_TO_ALPHA2[upper]! : undefined;
  if (alpha2 !== undefined) return isSupportedCountry(alpha2) ? alpha2 : undefined;
  return names().get(fold(trimmed));
}

/** `Mexico (MX)`: the country's English name and code, for a message. */
export function countryLabel(code: CountryCode): string {
  const name = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' }).of(code);
  return name === undefined ? code : `${name} (${code})`;
}
