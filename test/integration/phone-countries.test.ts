/**
 * Issue 34, points 1 and 2: a mixed-country export lands right or fails loudly. An alpha-3 country
 * is its country (`MEX` is Mexico, not the default US); a country cell that names no country
 * never falls back to the default; a phone extension is never dropped unsaid (issue 41, item 5:
 * the number is written, the extension named in results.csv's warnings and counted in
 * summary.json, or kept in a field of its own with extensionField). validate says what run does.
 */
import { TOKEN, jobsYaml, workspace } from '../helpers/cli-harness.js';
import { byLine, contactWithKey, contactsWithKey, csvLines, emulatorPerTest } from '../helpers/integration-fixtures.js';

const emulator = emulatorPerTest();

const CSV = csvLines([
  'customer_id,first_name,phone,country',
  'C1,Ana,55 1234 5678,MEX', // 2: alpha-3 Mexico; under US it would be +15512345678
  'C2,Jonas,030 901820,DEU', // 3
  'C3,Olivia,07946 012345,GBR', // 4
  'C4,Jack,0412 345 678,AUS', // 5
  'C5,Nia,55 1234 5678,Narnia', // 6: names no country: never the default
  'C6,Ray,+52 55 1234 5678,Narnia', // 7: international: needs no country
  'C7,Eve,+1 212 555 0100 x889,US', // 8: an extension
  'C8,Sam,(212) 555-0100,', // 9: empty country: the default
]);

const job = (onInvalid: string) => `input: customers.csv
key: { column: customer_id, field: customerid }
fields:
  firstName: first_name
  phone: { column: phone, transform: { phone: { defaultCountry: US, country: { column: country } } }${onInvalid} }
state: false`;

describe('phones of a mixed-country export', () => {
  it('alpha-3 countries land in their country; an unknown country fails the row, named; an extension is named and its number written', async () => {
    const ws = workspace();
    ws.write('customers.csv', CSV);
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: job('') }));

    const validate = await ws.run(['validate', 'jobs.yaml']);
    expect(validate.exitCode).toBe(1);
    expect(validate.stdout).toContain('import: 8 rows, 7 valid, 1 invalid; 1 row with a phone written without its extension (E.164 has none)');
    expect(validate.stdout).toMatch(/customers\.csv:6: UNKNOWN_COUNTRY: line 6, column "phone" \(field phone\): the row's country "Narnia" in column "country" names no country this knows/);
    expect(validate.stdout).toContain('customers.csv:8: PHONE_EXTENSION: phone: the extension "889" of "+1 212 555 0100 x889" is not written');

    const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports']);
    expect(run.exitCode).toBe(1);
    const phoneOf = (key: string): unknown => contactWithKey(emulator(), key).custom_fields.phone;
    expect(['C1', 'C2', 'C3', 'C4', 'C6', 'C7', 'C8'].map(phoneOf)).toEqual(['+525512345678', '+4930901820', '+447946012345', '+61412345678', '+525512345678', '+12125550100', '+12125550100']);
    expect(contactsWithKey(emulator(), 'C5')).toEqual([]);
    const c7 = ws.results('import').find((row) => row.key === 'C7');
    expect(c7).toMatchObject({ outcome: 'created', error_code: '' });
    expect(c7?.warnings).toMatch(/^phone: the extension "889" of "\+1 212 555 0100 x889" is not written \(the platform's phone is E\.164/);
    expect(ws.results('import').filter((row) => row.warnings !== '').map((row) => row.key)).toEqual(['C7']);
    expect(run.stdout).toContain('phone extensions not written (E.164 has none): 1 row (phone 1)');
    expect(emulator().contacts(TOKEN).map((contact) => contact.custom_fields.phone)).not.toContain('+15512345678');
    expect(byLine(ws.rejected('import')).map((row) => [row.customer_id, row.error_code])).toEqual([['C5', 'UNKNOWN_COUNTRY']]);
    expect(ws.summary('import')).toMatchObject({ rows: { created: 7, failed: 1 }, failedRows: { toFix: 1, toRunAgain: 0 }, phoneExtensionsDropped: { rows: 1, byField: { phone: 1 } } });

    // The next run of the same export names the extension again (the row keeps no row hash), with no call for it.
    const again = await ws.run(['run', 'jobs.yaml', '--report-dir', 'again']);
    expect(again.exitCode).toBe(1);
    expect(ws.results('import', 'again').find((row) => row.key === 'C7')).toMatchObject({ outcome: 'unchanged', warnings: expect.stringContaining('"889"') });
    expect(ws.summary('import', 'again')).toMatchObject({ phoneExtensionsDropped: { rows: 1, byField: { phone: 1 } } });
  });

  it('under onInvalid: skip-field the row is written without the phone, and results.csv names why', async () => {
    const ws = workspace();
    ws.write('customers.csv', CSV);
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: job(', onInvalid: skip-field') }));

    const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports']);
    expect(run.exitCode).toBe(0);
    expect(contactWithKey(emulator(), 'C5').custom_fields).toEqual({ customerid: 'C5', firstName: 'Nia' });
    expect(contactWithKey(emulator(), 'C7').custom_fields).toEqual({ customerid: 'C7', firstName: 'Eve', phone: '+12125550100' });
    const skipped = Object.fromEntries(ws.results('import').map((row) => [row.key, row.fields_skipped]));
    expect(skipped.C5).toMatch(/^phone \(UNKNOWN_COUNTRY: the row's country "Narnia"/);
    expect(skipped.C7).toBe('');
    expect(ws.summary('import')).toMatchObject({ rows: { created: 8, failed: 0 }, fieldsSkipped: { rows: 1, byField: { phone: 1 } }, phoneExtensionsDropped: { rows: 1 } });
  });

  it('with extensionField the extension is written to a field of its own, and nothing is named dropped', async () => {
    const ws = workspace();
    ws.write('customers.csv', CSV);
    ws.write(
      'jobs.yaml',
      jobsYaml({ url: emulator().url, job: job(', onInvalid: skip-field').replace('country: { column: country } }', 'country: { column: country }, extensionField: phoneExt }') }),
    );

    const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports']);
    expect(run.exitCode).toBe(0);
    expect(contactWithKey(emulator(), 'C7').custom_fields).toEqual({ customerid: 'C7', firstName: 'Eve', phone: '+12125550100', phoneExt: '889' });
    expect(contactWithKey(emulator(), 'C8').custom_fields).toEqual({ customerid: 'C8', firstName: 'Sam', phone: '+12125550100' });
    expect(ws.results('import').every((row) => row.warnings === '')).toBe(true);
    expect(ws.summary('import').phoneExtensionsDropped).toBeUndefined();
  });

  it('an extensionField the job maps already is refused, naming the YAML path', async () => {
    const ws = workspace();
    ws.write('customers.csv', CSV);
    ws.write(
      'jobs.yaml',
      jobsYaml({ url: emulator().url, job: job('').replace('country: { column: country } }', 'country: { column: country }, extensionField: firstName }') }),
    );
    const validate = await ws.run(['validate', 'jobs.yaml']);
    expect(validate.exitCode).toBe(2);
    expect(validate.stderr).toMatch(/fields\.phone\.transform\.phone\.extensionField.*"firstName" is a field the job maps already/);
  });
});
