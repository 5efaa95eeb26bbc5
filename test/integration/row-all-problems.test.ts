/**
 * Issue 41, item 18: a row with several problems names them all at once, in results.csv's and
 * rejected.csv's error_message and in validate --problems, so one pass fixes it; the error_code is
 * the first problem's (the key's, then the fields' in the job's order).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { jobsYaml, workspace } from '../helpers/cli-harness.js';
import { byLine, csvLines, emulatorPerTest } from '../helpers/integration-fixtures.js';

const emulator = emulatorPerTest();

const JOB = `input: customers.csv
key: { column: customer_id, field: customerid }
fields:
  firstName: first_name
  email: { column: email, transform: [email] }
  phone: { column: phone, transform: { phone: { defaultCountry: SG } } }
state: false`;

describe('a row with several problems', () => {
  it('names every one of them in error_message and validate --problems; the code is the first', async () => {
    const ws = workspace();
    ws.write(
      'customers.csv',
      csvLines([
        'customer_id,first_name,email,phone',
        'C1,Ann,ann@example.com,9123 4567', // 2
        'C2,Bob,bob-at-example,12ab', // 3: a bad email and a bad phone
        ',Cid,cid@,9123 4567', // 4: no key and a bad email
        'C4,Dee,dee@example.com,12ab', // 5: a bad phone alone
      ]),
    );
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: JOB }));

    const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports']);
    expect(run.exitCode).toBe(1);
    const failed = byLine(ws.results('import')).filter((row) => row.outcome === 'failed');
    expect(failed.map((row) => [row.line, row.error_code])).toEqual([
      ['3', 'INVALID_EMAIL'],
      ['4', 'KEY_MISSING'],
      ['5', 'INVALID_PHONE'],
    ]);
    const [bob, cid, dee] = failed.map((row) => row.error_message);
    expect(bob).toMatch(/^line 3, column "email" \(field email\): "bob-at-example" is not an email address; .*\. Also: line 3, column "phone" \(field phone\): "12ab" is not a valid phone number/);
    expect(cid).toMatch(/^line 4: the key column "customer_id" is empty; .*\. Also: line 4, column "email" \(field email\): "cid@" is not an email address/);
    expect(dee).not.toContain('Also:');
    expect(byLine(ws.rejected('import')).map((row) => row.error_message)).toEqual([bob, cid, dee]);

    const validate = await ws.run(['validate', 'jobs.yaml', '--problems', 'problems.csv']);
    expect(validate.exitCode).toBe(1);
    const problems = parse<Record<string, string>>(readFileSync(join(ws.dir, 'problems.csv'), 'utf8'), { columns: true });
    expect(problems.map((row) => [row.line, row.error_code, row.error_message])).toEqual([
      ['3', 'INVALID_EMAIL', bob],
      ['4', 'KEY_MISSING', cid],
      ['5', 'INVALID_PHONE', dee],
    ]);
  });
});
