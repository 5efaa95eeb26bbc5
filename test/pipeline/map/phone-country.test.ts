/**
 * A mixed-country export: the phone transform takes each row's country from a column (an ISO
 * alpha-2 or alpha-3 code, or a common name), falling back to the fixed default only when the cell
 * is empty: a cell that names no country is the row's problem (issue 34), never the default.
 */
import { loadJobsFile } from '../../../src/config/index.js';
import { mapRow } from '../../../src/pipeline/map/map.js';
import { countryCode } from '../../../src/pipeline/map/country.js';
import { jobColumnUses } from '../../../src/pipeline/source/header-check.js';
import { columnField, makeJob } from '../../helpers/job-factory.js';

describe('countryCode', () => {
  it.each([
    ['SG', 'SG'],
    ['sg', 'SG'],
    [' Singapore ', 'SG'],
    ['united kingdom', 'GB'],
    ['UK', 'GB'],
    ['England', 'GB'],
    ['USA', 'US'],
    ['United States', 'US'],
    ['Deutschland', 'DE'],
    ['Österreich', 'AT'],
    ['osterreich', 'AT'],
    ['España', 'ES'],
    ['Brasil', 'BR'],
    ['Schweiz', 'CH'],
    ['Suisse', 'CH'],
    ['Royaume-Uni', 'GB'],
    ['Nederland', 'NL'],
    ['Polska', 'PL'],
    ['Sverige', 'SE'],
    ['Magyarország', 'HU'],
    ['Türkiye', 'TR'],
    ['Deutschand', undefined],
    ['Germany', 'DE'],
    ["Côte d'Ivoire", 'CI'],
    ['cote d ivoire', 'CI'],
    ['', undefined],
    ['Atlantis', undefined],
    ['MEX', 'MX'],
    ['DEU', 'DE'],
    ['gbr', 'GB'],
    [' AUS ', 'AU'],
    ['USA', 'US'],
    ['SGP', 'SG'],
    ['ATA', undefined],
    ['XYZ', undefined],
  ])('%j -> %j', (text, code) => {
    expect(countryCode(text)).toBe(code);
  });
});

describe('phone: {defaultCountry, country: {column}}', () => {
  const job = makeJob({ fields: [columnField('phone', 'tel', [{ kind: 'trim' }, { kind: 'phone', defaultCountry: 'SG', countryColumn: 'Country' }])] });
  const phoneOf = (tel: string, country: string): string => {
    const result = mapRow({ kind: 'row', line: 4, values: { customer_id: 'C1', tel, Country: country }, cells: [] }, job);
    return result.ok ? (result.draft.fields.phone ?? '') : `${result.error.code}: ${result.error.message}`;
  };

  it('each row is read in its own country', () => {
    expect(phoneOf('07946 012345', 'United Kingdom')).toBe('+447946012345');
    expect(phoneOf('(202) 555-0143', 'US')).toBe('+12025550143');
    expect(phoneOf('9123 4567', 'Singapore')).toBe('+6591234567');
  });

  it('an empty country falls back to the default; an international number needs none', () => {
    expect(phoneOf('9123 4567', '')).toBe('+6591234567');
    expect(phoneOf('+44 7946 012345', 'Singapore')).toBe('+447946012345');
  });

  it('an alpha-3 code is its country: MEX is Mexico, not the default', () => {
    expect(phoneOf('55 1234 5678', 'MEX')).toBe('+525512345678');
    expect(phoneOf('030 901820', 'DEU')).toBe('+4930901820');
    expect(phoneOf('07946 012345', 'GBR')).toBe('+447946012345');
    expect(phoneOf('0412 345 678', 'AUS')).toBe('+61412345678');
  });

  it('a country that names no country is UNKNOWN_COUNTRY, even where the default would read the number', () => {
    expect(phoneOf('9123 4567', 'Atlantis')).toBe(
      'UNKNOWN_COUNTRY: line 4, column "tel" (field phone): the row\'s country "Atlantis" in column "Country" names no country this knows, so "9123 4567" (no +country code) cannot be read; write an ISO code (SG or SGP) or a country\'s name (Singapore) in that column, or the number in international form (+6581234567)',
    );
    expect(phoneOf('07946 012345', 'Atlantis')).toMatch(/^UNKNOWN_COUNTRY: /);
    // In international form the number needs no country; an empty phone is no problem either.
    expect(phoneOf('+44 7946 012345', 'Atlantis')).toBe('+447946012345');
    expect(phoneOf('', 'Atlantis')).toBe('');
    expect(phoneOf('+44 12', 'Atlantis')).toMatch(/^INVALID_PHONE: /);
  });

  it('under onInvalid: skip-field the phone of an unknown country is skipped and named, the row written', () => {
    const skipping = makeJob({ fields: [{ ...columnField('phone', 'tel', [{ kind: 'phone', defaultCountry: 'US', countryColumn: 'Country' }]), onInvalid: 'skip-field' }] });
    const result = mapRow({ kind: 'row', line: 4, values: { customer_id: 'C1', tel: '55 1234 5678', Country: 'Narnia' }, cells: [] }, skipping);
    expect(result.ok && result.draft.fields).toEqual({});
    expect(result.ok && result.draft.fieldsSkipped?.map((skip) => [skip.field, skip.code])).toEqual([['phone', 'UNKNOWN_COUNTRY']]);
  });

  it('the country column is one the header must have', () => {
    expect(jobColumnUses(job, 'jobs[0]').map((use) => [use.column, use.path])).toContainEqual(['Country', 'jobs[0].fields.phone.transform.phone.country.column']);
  });
});

describe('the jobs.yaml forms', () => {
  const yaml = (transform: string) =>
    `connections:\n  main: { baseUrl: https://app.example.com/api, token: t0k3n-abc }\njobs:\n  - name: j\n    connection: main\n    input: a.csv\n    key: { column: id, field: customerid }\n    fields:\n      phone: { column: tel, transform: ${transform} }\n`;
  const load = (text: string) => loadJobsFile('/virtual/jobs.yaml', { env: {}, readFile: () => Promise.resolve(text) });

  it('country with and without a default', async () => {
    const both = await load(yaml('{ phone: { defaultCountry: sg, country: { column: Country } } }'));
    expect(both.jobsFile.jobs[0]!.fields[0]!.transforms).toEqual([{ kind: 'trim' }, { kind: 'phone', defaultCountry: 'SG', countryColumn: 'Country' }]);
    const columnOnly = await load(yaml('{ phone: { country: { column: Country } } }'));
    expect(columnOnly.jobsFile.jobs[0]!.fields[0]!.transforms).toEqual([{ kind: 'trim' }, { kind: 'phone', countryColumn: 'Country' }]);
  });

  it('a phone mapping that names no country is refused with the forms', async () => {
    await expect(load(yaml('{ phone: {} }'))).rejects.toThrow(/names no country; write \{defaultCountry: SG\}, \{country: \{column: Country\}\} or both, or plain phone/);
  });
});
