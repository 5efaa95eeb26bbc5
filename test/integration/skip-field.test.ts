/**
 * `onInvalid: skip-field` (issue 29, point 6): one bad value no longer drops the whole contact.
 * The row is written without the field (the platform keeps what it holds), results.csv and the
 * summary name the skipped field, a re-run spends no call on it and still names it, and validate
 * lists it without calling the row invalid.
 */
import type { RunningEmulator } from '../../src/emulator/index.js';
import { TOKEN, customersCsv, fastEmulator, jobsYaml, workspace } from '../helpers/cli-harness.js';
import { callsByOperation } from '../helpers/integration-fixtures.js';
import { STATE_JOB, contactsByKey, expectedCustomer } from '../helpers/state-fixtures.js';

let emulator: RunningEmulator;

beforeEach(async () => {
  emulator = await fastEmulator();
});

afterEach(async () => {
  await emulator.close();
});

const SKIPPING_JOB = STATE_JOB.replace('email: { column: email, transform: [email] }', 'email: { column: email, transform: [email], onInvalid: skip-field }');

describe('onInvalid: skip-field', () => {
  it('creates and updates the contacts without the bad field, names it, and settles it with no call next run', async () => {
    expect(SKIPPING_JOB).toContain('onInvalid: skip-field');
    // Customer 2 is on the platform with its email; the file breaks the emails of 1 (new) and 2,
    // and renames customer 2.
    const existing = expectedCustomer(2);
    emulator.loadContacts(TOKEN, [{ custom_fields: existing.fields, tags: existing.tags }]);
    const ws = workspace();
    ws.write('customers.csv', customersCsv(4, (i, cells) => (i === 1 ? [...cells.slice(0, 3), 'first@', ...cells.slice(4)] : i === 2 ? [cells[0]!, 'Renamed', cells[2]!, 'second@', ...cells.slice(4)] : cells)));
    ws.write('jobs.yaml', jobsYaml({ url: emulator.url, job: SKIPPING_JOB }));

    const first = await ws.run(['run', 'jobs.yaml', '--report-dir', 'first']);
    expect(first.exitCode).toBe(0);
    const contacts = contactsByKey(emulator);
    expect(contacts.get('C0001')?.[0]?.custom_fields).toEqual({ customerid: 'C0001', firstName: 'First1', lastName: 'Last1', plan: 'basic' });
    expect(contacts.get('C0002')?.[0]?.custom_fields).toMatchObject({ firstName: 'Renamed', email: 'user2@example.com' });
    const results = ws.results('import', 'first');
    const skippedOf = (rows: typeof results, key: string) => rows.find((row) => row.key === key)?.fields_skipped;
    expect(results.find((row) => row.key === 'C0001')?.outcome).toBe('created');
    expect(results.find((row) => row.key === 'C0002')).toMatchObject({ outcome: 'updated', fields_changed: 'firstName' });
    expect(skippedOf(results, 'C0001')).toMatch(/^email \(INVALID_EMAIL: .*first@/);
    expect(skippedOf(results, 'C0002')).toMatch(/^email \(INVALID_EMAIL: .*second@/);
    expect(skippedOf(results, 'C0003')).toBe('');
    expect(ws.summary('import', 'first').fieldsSkipped).toEqual({ rows: 2, byField: { email: 2 } });
    expect(first.stdout).toContain("fields skipped (onInvalid: skip-field): 2 rows written without email 2; results.csv's fields_skipped names each value");
    expect(ws.rejected('import', 'first')).toEqual([]);

    const callsBefore = callsByOperation(emulator).total;
    const second = await ws.run(['run', 'jobs.yaml', '--report-dir', 'second']);
    expect(second.exitCode).toBe(0);
    expect(callsByOperation(emulator).total).toBe(callsBefore);
    const again = ws.results('import', 'second');
    expect(again.map((row) => row.outcome)).toEqual(['unchanged', 'unchanged', 'unchanged', 'unchanged']);
    expect(skippedOf(again, 'C0001')).toMatch(/^email \(INVALID_EMAIL/);
    expect(emulator.contacts(TOKEN)).toHaveLength(4);

    const validate = await ws.run(['validate', 'jobs.yaml']);
    expect(validate.exitCode).toBe(0);
    expect(validate.stdout).toMatch(/customers\.csv:2: INVALID_EMAIL: the row is written without field email \(onInvalid: skip-field\): /);
    expect(validate.stdout).toContain('import: 4 rows, 4 valid, 0 invalid; 2 field values refused and skipped (onInvalid: skip-field)');
  });
});
