/**
 * A mixed-country export: the phone transform takes each row's country from a column (an ISO code
 * or a common name), falling back to the fixed default when the cell is empty or unknown.
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

  it('an unknown country falls back to the default, and is named when the number then fails', () => {
    expect(phoneOf('9123 4567', 'Atlantis')).toBe('+6591234567');
    expect(phoneOf('07946 012345', 'Atlantis')).toMatch(
      /^INVALID_PHONE: .*"07946 012345" is not a valid phone number; .*\(the row's country "Atlantis" in column "Country" is not a country this knows; write an ISO code such as SG\)$/,
    );
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
