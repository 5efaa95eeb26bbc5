/**
 * `<job>.changes.csv` (issue 37, docs/reports.md): a dry run lists each field it would change with
 * the platform's value and the file's, the preview a migration checks before it writes; the real
 * run lists the same, with the ids of the contacts it created; report.html shows the first lines.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { parse as parseHtml } from 'node-html-parser';
import { TOKEN, jobsYaml, workspace } from '../helpers/cli-harness.js';
import { emulatorPerTest } from '../helpers/integration-fixtures.js';

const emulator = emulatorPerTest();

const JOB = `input: customers.csv
key: { column: customer_id, field: customerid }
fields:
  firstName: first_name
  plan: plan
tags: { column: segments }
state: false`;

describe('changes.csv', () => {
  it('previews each change with both values in a dry run, and lists the same with the created ids in the real run', async () => {
    emulator().loadContacts(TOKEN, [{ custom_fields: { customerid: 'C1', firstName: 'Ada', plan: 'basic' }, tags: ['old'] }]);
    const ws = workspace();
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: JOB }));
    ws.write('customers.csv', 'customer_id,first_name,plan,segments\nC1,Ada,=pro,vip\nC2,Bo,basic,\nC3,Cy,basic,\n');
    const existing = emulator().contacts(TOKEN)[0]!.id;

    expect((await ws.run(['run', 'jobs.yaml', '--dry-run', '--report-dir', 'dry'])).exitCode).toBe(0);
    // Rows finish in any order (as in results.csv): lines are compared sorted by key and field.
    const byKeyAndField = (a: Record<string, string>, b: Record<string, string>) => `${a.key} ${a.field}`.localeCompare(`${b.key} ${b.field}`);
    const sorted = (lines: Array<Record<string, string>>) => lines.map(({ contact_id: _id, ...rest }) => rest).sort(byKeyAndField);
    const read = (dir: string) => parse<Record<string, string>>(readFileSync(join(ws.dir, dir, 'import.changes.csv'), 'utf8'), { columns: true });
    expect(read('dry').sort(byKeyAndField)).toEqual([
      // A value a spreadsheet would run is neutralised, as in results.csv.
      { key: 'C1', contact_id: existing, field: 'plan', platform_value: 'basic', file_value: "'=pro" },
      { key: 'C1', contact_id: existing, field: 'tags', platform_value: '', file_value: 'vip' },
      { key: 'C2', contact_id: '', field: 'customerid', platform_value: '', file_value: 'C2' },
      { key: 'C2', contact_id: '', field: 'firstName', platform_value: '', file_value: 'Bo' },
      { key: 'C2', contact_id: '', field: 'plan', platform_value: '', file_value: 'basic' },
      { key: 'C3', contact_id: '', field: 'customerid', platform_value: '', file_value: 'C3' },
      { key: 'C3', contact_id: '', field: 'firstName', platform_value: '', file_value: 'Cy' },
      { key: 'C3', contact_id: '', field: 'plan', platform_value: '', file_value: 'basic' },
    ]);
    expect(emulator().contacts(TOKEN)).toHaveLength(1);
    const html = parseHtml(readFileSync(join(ws.dir, 'dry', 'import.report.html'), 'utf8'));
    expect(html.querySelector('#changes + p')?.text).toContain('8 fields or tag sets would change (a dry run: nothing was written)');
    expect(html.querySelectorAll('#changes ~ table')[0]?.querySelectorAll('tbody tr').map((row) => row.querySelectorAll('td').map((cell) => cell.text))[0]).toEqual(['C1', existing, 'plan', 'basic', '=pro']);

    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'real'])).exitCode).toBe(0);
    const created = Object.fromEntries(emulator().contacts(TOKEN).map((contact) => [String(contact.custom_fields.customerid), contact.id]));
    const real = read('real');
    expect(sorted(real)).toEqual(sorted(read('dry')));
    expect(real.filter((line) => line.key === 'C2').map((line) => line.contact_id)).toEqual([created.C2, created.C2, created.C2]);

    // Nothing left to change: the file has its header only.
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'again'])).exitCode).toBe(0);
    expect(read('again')).toEqual([]);
  });

  it('tells an absent value (an empty cell, no quotes) from an empty one (`""`), in changes.csv and history --csv (issue 41 item 18)', async () => {
    emulator().loadContacts(TOKEN, [{ custom_fields: { customerid: 'C1', firstName: 'Ada', plan: 'basic' }, tags: [] }]);
    const ws = workspace();
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: JOB.replace('state: false', 'state: state.db\nemptyValues: clear') }));
    // C1's first name is cleared (written ""); C2 is created (nothing before).
    ws.write('customers.csv', 'customer_id,first_name,plan,segments\nC1,,basic,\nC2,Bo,basic,\n');
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'real'])).exitCode).toBe(0);
    // A reader tells them apart by the quotes: csv-parse's cast sees whether a cell was quoted.
    const withAbsent = (text: string) =>
      parse<Record<string, string | null>>(text, { columns: true, cast: (value, context) => (context.header || context.quoting || value !== '' ? value : null) });
    const changes = withAbsent(readFileSync(join(ws.dir, 'real', 'import.changes.csv'), 'utf8'));
    expect(changes.find((line) => line.key === 'C1' && line.field === 'firstName')).toMatchObject({ platform_value: 'Ada', file_value: '' });
    expect(changes.find((line) => line.key === 'C2' && line.field === 'firstName')).toMatchObject({ platform_value: null, file_value: 'Bo' });
    const history = await ws.run(['history', 'jobs.yaml', '--job', 'import', '--run', '1', '--csv']);
    const lines = withAbsent(history.stdout);
    expect(lines.find((line) => line.key === 'C1' && line.field === 'firstName')).toMatchObject({ operation: 'update', before: 'Ada', after: '' });
    expect(lines.find((line) => line.key === 'C2' && line.field === 'firstName')).toMatchObject({ operation: 'create', before: null, after: 'Bo' });
    expect(history.stdout).toMatch(/,C1,\d+,update,firstName,Ada,"",(yes|no)\n/);
  });
});
