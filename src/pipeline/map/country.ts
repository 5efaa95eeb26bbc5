/**
 * A row's country, as a CRM export writes it, to the ISO 3166 alpha-2 code the phone transform
 * needs: alpha-2 and alpha-3 codes in any case (`SG`, `sg`, `SGP`, `deu`; alpha-3 from the ISO
 * table in iso-alpha3.ts), the spellings people write, in a committed table (`COUNTRY_ALIASES`:
 * `U.S.A.`, `u.k.`, `Turkey`, `Ivory Coast`, `Holland`), English names (`Singapore`, `United
 * Kingdom`), and the names a CRM in another language writes (`Deutschland`, `Österreich`,
 * `España`, `Brasil`). Names beyond the table come from the runtime's own ICU
 * (`Intl.DisplayNames`), for every country libphonenumber-js knows.
 */
import { getCountries, isSupportedCountry, type CountryCode } from 'libphonenumber-js';
import { ALPHA3_TO_ALPHA2 } from './iso-alpha3.js';

/**
 * What people write for a country, keyed by its letters only (case, accents, dots, spaces, dashes
 * and apostrophes away: `U.S.A.`, `u.s.a`, `U S A` and `usa` meet), committed here so the common
 * spellings never depend on the runtime's locale data alone: ICU renames countries (`Turkey` is
 * `Türkiye` since ICU 72, `Czech Republic` became `Czechia`, `Swaziland` `Eswatini`), and a name
 * an earlier version read must stay read. Looked up before ICU's names (`Intl.DisplayNames`), which
 * stay the fallback for everything else; test/pipeline/map/country-aliases.test.ts is its table test.
 */
export const COUNTRY_ALIASES: Readonly<Record<string, CountryCode>> = {
  // The United States
  us: 'US',
  usa: 'US',
  unitedstates: 'US',
  unitedstatesofamerica: 'US',
  theunitedstates: 'US',
  theunitedstatesofamerica: 'US',
  america: 'US',
  // The United Kingdom
  uk: 'GB',
  unitedkingdom: 'GB',
  theunitedkingdom: 'GB',
  unitedkingdomofgreatbritainandnorthernireland: 'GB',
  greatbritain: 'GB',
  britain: 'GB',
  england: 'GB',
  scotland: 'GB',
  wales: 'GB',
  northernireland: 'GB',
  // Renamed, or written in an older or shorter form than ICU's
  turkey: 'TR',
  turkiye: 'TR',
  republicofturkiye: 'TR',
  czechrepublic: 'CZ',
  czechia: 'CZ',
  holland: 'NL',
  thenetherlands: 'NL',
  netherlands: 'NL',
  southkorea: 'KR',
  korea: 'KR',
  republicofkorea: 'KR',
  korearepublicof: 'KR',
  northkorea: 'KP',
  russia: 'RU',
  russianfederation: 'RU',
  vietnam: 'VN',
  vietnamsocialistrepublic: 'VN',
  ivorycoast: 'CI',
  cotedivoire: 'CI',
  swaziland: 'SZ',
  eswatini: 'SZ',
  burma: 'MM',
  myanmar: 'MM',
  macedonia: 'MK',
  northmacedonia: 'MK',
  capeverde: 'CV',
  caboverde: 'CV',
  easttimor: 'TL',
  timorleste: 'TL',
  uae: 'AE',
  unitedarabemirates: 'AE',
  hongkong: 'HK',
  macau: 'MO',
  macao: 'MO',
  taiwan: 'TW',
  laos: 'LA',
  moldova: 'MD',
  iran: 'IR',
  syria: 'SY',
  bolivia: 'BO',
  venezuela: 'VE',
  tanzania: 'TZ',
  drc: 'CD',
  drcongo: 'CD',
  democraticrepublicofthecongo: 'CD',
  congokinshasa: 'CD',
  congobrazzaville: 'CG',
  republicofthecongo: 'CG',
  vatican: 'VA',
  vaticancity: 'VA',
  holysee: 'VA',
  palestine: 'PS',
  brunei: 'BN',
  micronesia: 'FM',
  saintkittsandnevis: 'KN',
  stkittsandnevis: 'KN',
  saintlucia: 'LC',
  stlucia: 'LC',
  saintvincentandthegrenadines: 'VC',
  stvincentandthegrenadines: 'VC',
  // Common names of the countries most exports hold, so they read on any runtime
  germany: 'DE',
  france: 'FR',
  spain: 'ES',
  italy: 'IT',
  portugal: 'PT',
  ireland: 'IE',
  belgium: 'BE',
  switzerland: 'CH',
  austria: 'AT',
  sweden: 'SE',
  norway: 'NO',
  denmark: 'DK',
  finland: 'FI',
  poland: 'PL',
  greece: 'GR',
  canada: 'CA',
  mexico: 'MX',
  brazil: 'BR',
  argentina: 'AR',
  australia: 'AU',
  newzealand: 'NZ',
  china: 'CN',
  prc: 'CN',
  japan: 'JP',
  india: 'IN',
  singapore: 'SG',
  malaysia: 'MY',
  indonesia: 'ID',
  philippines: 'PH',
  thailand: 'TH',
  southafrica: 'ZA',
  nigeria: 'NG',
  egypt: 'EG',
  israel: 'IL',
  saudiarabia: 'SA',
  ukraine: 'UA',
};

/**
 * The languages, besides English, whose country names are known: those written in the Latin
 * script that CRMs are most used in. A name in another script folds to nothing and is not used.
 */
const OTHER_LANGUAGES = ['de', 'fr', 'es', 'it', 'pt', 'nl', 'sv', 'da', 'nb', 'fi', 'pl', 'cs', 'hu', 'ro', 'tr', 'id', 'ca', 'hr', 'sk', 'sl'] as const;

let byName: Map<string, CountryCode> | undefined;

function names(): Map<string, CountryCode> {
  if (byName !== undefined) return byName;
  byName = new Map();
  addNames(byName, 'en', () => true);
  // A name that means two countries in two languages is left out rather than guessed; English
  // names come first and are never replaced (the aliases are looked up before any of them).
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
  const letters = aliasKey(trimmed);
  if (Object.hasOwn(COUNTRY_ALIASES, letters)) return COUNTRY_ALIASES[letters];
  // Initials with dots or spaces (`U.S.`, `D.E.U.`): the code they spell.
  if (/^(?:[a-z][.\s]*){2,3}$/i.test(trimmed) && letters !== trimmed.toLowerCase()) return countryCode(letters);
  return names().get(fold(trimmed));
}

/** The key of `text` in `COUNTRY_ALIASES`: its letters, lowercased, without accents. */
export function aliasKey(text: string): string {
  return fold(text).replaceAll(' ', '');
}

/** `Mexico (MX)`: the country's English name and code, for a message. */
export function countryLabel(code: CountryCode): string {
  const name = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' }).of(code);
  return name === undefined ? code : `${name} (${code})`;
}
