import { TOKEN, jobsYaml, workspace } from '../helpers/cli-harness.js';
import { callsByOperation, contactWithKey, csvLines, emulatorPerTest, sortedTags } from '../helpers/integration-fixtures.js';

const FIELD_COUNT = 45;
const TAG_COUNT = 23;
const fieldNames = Array.from({ length: FIELD_COUNT }, (_, i) => `f${String(i + 1).padStart(2, '0')}`);
const tagNames = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => `${prefix}${String(i + 1).padStart(2, '0')}`);

/** 45 fields named f01..f45, mapped from columns of the same name, and a `tags` column. */
const WIDE_JOB = `input: wide.csv
key: { column: customer_id, field: customerid }
fields:
${fieldNames.map((name) => `  ${name}: ${name}`).join('\n')}
tags: { column: tags }
state: false`;

function wideCsv(rows: Array<{ key: string; value: (field: string) => string; tags: string[] }>): string {
  return csvLines([
    ['customer_id', ...fieldNames, 'tags'].join(','),
    ...rows.map((row) => [row.key, ...fieldNames.map(row.value), row.tags.join(';')].join(',')),
  ]);
}

describe('run: more than 30 fields and more than 10 tags', () => {
  const emulator = emulatorPerTest();

  it('a new contact with 45 fields and 23 tags takes 1 create of 30 fields, 1 update of the other 16 and 3 addTags calls', async () => {
    const ws = workspace();
    const tags = tagNames('t', TAG_COUNT);
    ws.write('wide.csv', wideCsv([{ key: 'W1', value: (f) => `${f}-v1`, tags }]));
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: WIDE_JOB }));

    const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports']);

    expect(run.exitCode).toBe(0);
    const contact = contactWithKey(emulator(), 'W1');
    expect(contact.custom_fields).toEqual({ customerid: 'W1', ...Object.fromEntries(fieldNames.map((f) => [f, `${f}-v1`])) });
    expect(sortedTags(contact)).toEqual([...tags].sort());
    // The emulator refuses more than 30 fields or 10 tags in one call: these counts are the chunks.
    expect(callsByOperation(emulator())).toMatchObject({ searchContacts: 1, createContact: 1, updateContact: 1, addTags: 3, total: 6 });
    const [row] = ws.results('import');
    expect(row).toMatchObject({ outcome: 'created', contact_id: contact.id, api_calls: '6' });
    expect(row?.fields_changed!.split(';')).toEqual(['customerid', ...fieldNames]);
    expect(row?.tags_added!.split(';')).toEqual(tags);
  });

  it('on an existing contact only the changed fields and the missing tags are sent, in chunks of 30 and 10', async () => {
    const ws = workspace();
    const oldTags = tagNames('t', TAG_COUNT);
    const [existing] = emulator().loadContacts(TOKEN, [
      { custom_fields: { customerid: 'W1', ...Object.fromEntries(fieldNames.map((f) => [f, `${f}-v1`])) }, tags: oldTags },
    ]);
    // 35 fields change (f01..f35), 10 stay; 12 new tags besides the 23 it has.
    const changed = fieldNames.slice(0, 35);
    const newTags = tagNames('n', 12);
    ws.write('wide.csv', wideCsv([{ key: 'W1', value: (f) => (changed.includes(f) ? `${f}-v2` : `${f}-v1`), tags: [...oldTags, ...newTags] }]));
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: WIDE_JOB }));

    const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports']);

    expect(run.exitCode).toBe(0);
    const contact = contactWithKey(emulator(), 'W1');
    expect(contact.id).toBe(existing!.id);
    expect(contact.custom_fields).toEqual({
      customerid: 'W1',
      ...Object.fromEntries(fieldNames.map((f) => [f, changed.includes(f) ? `${f}-v2` : `${f}-v1`])),
    });
    expect(sortedTags(contact)).toEqual([...oldTags, ...newTags].sort());
    expect(callsByOperation(emulator())).toMatchObject({ searchContacts: 1, createContact: 0, updateContact: 2, addTags: 2, removeTags: 0, total: 5 });
    const [row] = ws.results('import');
    expect(row).toMatchObject({ outcome: 'updated', contact_id: existing!.id, api_calls: '5', tags_removed: '' });
    expect(row?.fields_changed!.split(';')).toEqual(changed);
    expect(row?.tags_added!.split(';')).toEqual(newTags);
  });

  it('removes more than 10 present tags in chunks of 10, and only those the contact has', async () => {
    const ws = workspace();
    const present = tagNames('old', 14);
    const absent = tagNames('gone', 5);
    emulator().loadContacts(TOKEN, [{ custom_fields: { customerid: 'R1', f01: 'x' }, tags: [...present, 'keep'] }]);
    ws.write('people.csv', csvLines(['customer_id,f01', 'R1,x']));
    ws.write(
      'jobs.yaml',
      jobsYaml({
        url: emulator().url,
        job: `input: people.csv\nkey: { column: customer_id, field: customerid }\nfields: { f01: f01 }\ntags: { remove: [${[...present, ...absent].join(', ')}] }\nstate: false`,
      }),
    );

    const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports']);

    expect(run.exitCode).toBe(0);
    expect(contactWithKey(emulator(), 'R1').tags).toEqual(['keep']);
    expect(callsByOperation(emulator())).toMatchObject({ searchContacts: 1, removeTags: 2, updateContact: 0, addTags: 0, total: 3 });
    expect(ws.results('import')[0]?.tags_removed!.split(';')).toEqual(present);
  });
});
