/**
 * Issue 41, item 6: the country spellings people write (`U.S.A.`, `U.S.`, `u.k.`, `Turkey`, which
 * the runtime's ICU now calls Türkiye) are read through a committed table, not the runtime's
 * locale data alone; ICU's names stay the fallback.
 */
import { isSupportedCountry } from 'libphonenumber-js';
import { COUNTRY_ALIASES, aliasKey, countryCode } from '../../../src/pipeline/map/country.js';
import { mapRow } from '../../../src/pipeline/map/map.js';
import { columnField, makeJob } from '../../helpers/job-factory.js';

const SPELLINGS: ReadonlyArray<readonly [string, string]> = [
  ['U.S.A.', 'US'],
  ['U.S.A', 'US'],
  ['u.s.a.', 'US'],
  ['U. S. A.', 'US'],
  ['USA', 'US'],
  ['U.S.', 'US'],
  ['US', 'US'],
  ['United States of America', 'US'],
  ['the United States', 'US'],
  ['UK', 'GB'],
  ['u.k.', 'GB'],
  ['U.K', 'GB'],
  ['Great Britain', 'GB'],
  ['Turkey', 'TR'],
  ['TURKEY', 'TR'],
  ['Türkiye', 'TR'],
  ['Turkiye', 'TR'],
  ['Holland', 'NL'],
  ['The Netherlands', 'NL'],
  ['South Korea', 'KR'],
  ['Korea, Republic of', 'KR'],
  ['Russia', 'RU'],
  ['Russian Federation', 'RU'],
  ['Vietnam', 'VN'],
  ['Viet Nam', 'VN'],
  ['Czech Republic', 'CZ'],
  ['Czechia', 'CZ'],
  ['Ivory Coast', 'CI'],
  ["Côte d'Ivoire", 'CI'],
  ['Cote d’Ivoire', 'CI'],
  ['Swaziland', 'SZ'],
  ['Burma', 'MM'],
  ['Macedonia', 'MK'],
  ['Cape Verde', 'CV'],
  ['East Timor', 'TL'],
  ['U.A.E.', 'AE'],
  ['St. Lucia', 'LC'],
  ['Hong-Kong', 'HK'],
  ['D.E.U.', 'DE'],
];

describe('COUNTRY_ALIASES', () => {
  it.each(SPELLINGS)('%j -> %s', (text, code) => {
    expect(countryCode(text)).toBe(code);
  });

  it('reads the spellings of the issue from the committed table, whatever the runtime names the countries', () => {
    for (const text of ['U.S.A.', 'U.S.', 'u.k.', 'Turkey', 'Türkiye', 'United States of America', 'Great Britain', 'Holland', 'South Korea', 'Russia', 'Vietnam', 'Czech Republic', 'Czechia', 'Ivory Coast']) {
      expect([text, COUNTRY_ALIASES[aliasKey(text)]]).toEqual([text, countryCode(text)]);
    }
  });

  it('every key is its own letters-only form and every code is one the phone library reads', () => {
    for (const [key, code] of Object.entries(COUNTRY_ALIASES)) {
      expect([key, aliasKey(key)]).toEqual([key, key]);
      expect([key, isSupportedCountry(code)]).toEqual([key, true]);
    }
  });

  it.each([['U.S.S.R.'], ['Atlantis'], ['X.Y.'], ['...'], ['constructor'], ['hasownproperty']])('%j names no country', (text) => {
    expect(countryCode(text)).toBeUndefined();
  });

  it('a row whose country is written U.S.A. has its number read as an American one', () => {
    const job = makeJob({ fields: [columnField('phone', 'tel', [{ kind: 'trim' }, { kind: 'phone', defaultCountry: 'SG', countryColumn: 'Country' }])] });
    const mapped = mapRow({ kind: 'row', line: 2, values: { customer_id: 'C1', tel: '(202) 555-0143', Country: 'U.S.A.' }, cells: [] }, job);
    expect(mapped.ok ? mapped.draft.fields.phone : mapped.error.message).toBe('+12025550143');
  });
});
