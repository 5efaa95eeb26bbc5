/**
 * The alpha-3 table (generated once from ISO 3166-1, src/pipeline/map/iso-alpha3.ts) is whole and
 * agrees with the alpha-2 codes the phone library and the runtime know.
 */
import { getCountries, isSupportedCountry } from 'libphonenumber-js';
import { ALPHA3_TO_ALPHA2 } from '../../../src/pipeline/map/iso-alpha3.js';

describe('ALPHA3_TO_ALPHA2', () => {
  const pairs = Object.entries(ALPHA3_TO_ALPHA2);

  it('has the 249 codes of ISO 3166-1, each alpha-3 and alpha-2 once', () => {
    expect(pairs).toHaveLength(249);
    expect(pairs.every(([alpha3, alpha2]) => /^[A-Z]{3}$/.test(alpha3) && /^[A-Z]{2}$/.test(alpha2))).toBe(true);
    expect(new Set(pairs.map(([, alpha2]) => alpha2)).size).toBe(249);
  });

  it('covers every country whose numbers the phone library reads, but Ascension, Tristan da Cunha and Kosovo, which ISO 3166-1 does not list', () => {
    const mapped = new Set(Object.values(ALPHA3_TO_ALPHA2));
    expect(getCountries().filter((code) => !mapped.has(code))).toEqual(['AC', 'TA', 'XK']);
  });

  it.each([
    ['MEX', 'MX'],
    ['DEU', 'DE'],
    ['GBR', 'GB'],
    ['AUS', 'AU'],
    ['USA', 'US'],
    ['CHE', 'CH'],
    ['KOR', 'KR'],
  ])('%s is %s', (alpha3, alpha2) => {
    expect(ALPHA3_TO_ALPHA2[alpha3]).toBe(alpha2);
    expect(isSupportedCountry(alpha2)).toBe(true);
  });
});
