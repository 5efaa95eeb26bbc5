import { TOKEN, jobsYaml, workspace } from '../helpers/cli-harness.js';
import { byLine, callsByOperation, contactWithKey, contactsWithKey, csvLines, emulatorPerTest, sortedTags } from '../helpers/integration-fixtures.js';

const JOB = (onDuplicate = 'fail') => `input: customers.csv
key: { column: customer_id, field: customerid }
onDuplicate: ${onDuplicate}
fields:
  firstName: first_name
  plan: plan
tags: { static: [crm] }
state: false`;

describe('run: several rows of one key in the file', () => {
  const emulator = emulatorPerTest();

  it('three rows of one new key make one contact, applied in file order: created, then updated, then unchanged', async () => {
    const ws = workspace();
    ws.write('customers.csv', csvLines(['customer_id,first_name,plan', 'C1,Ann,basic', 'C2,Bob,basic', 'C1,Anna,basic', 'C1,Anna,basic']));
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: JOB() }));

    const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports']);

    expect(run.exitCode).toBe(0);
    expect(emulator().contacts(TOKEN)).toHaveLength(2);
    expect(contactWithKey(emulator(), 'C1').custom_fields).toEqual({ customerid: 'C1', firstName: 'Anna', plan: 'basic' });
    const c1 = contactWithKey(emulator(), 'C1');
    const results = byLine(ws.results('import'));
    expect(results.map((r) => [r.line, r.key, r.outcome, r.fields_changed, r.api_calls])).toEqual([
      ['2', 'C1', 'created', 'customerid;firstName;plan', '3'],
      ['3', 'C2', 'created', 'customerid;firstName;plan', '3'],
      ['4', 'C1', 'updated', 'firstName', '2'],
      ['5', 'C1', 'unchanged', '', '1'],
    ]);
    expect(results.filter((r) => r.key === 'C1').map((r) => r.contact_id)).toEqual([c1.id, c1.id, c1.id]);
    expect(callsByOperation(emulator())).toMatchObject({ searchContacts: 4, createContact: 2, updateContact: 1, addTags: 2, removeTags: 0, total: 9 });
    expect(ws.summary('import').rows).toEqual({ total: 4, created: 2, updated: 1, unchanged: 1, skipped: 0, failed: 0, notReached: 0 });
  });

  it('the last row of a key wins even when its rows are far apart and run with many rows in flight', async () => {
    const ws = workspace();
    const lines = ['customer_id,first_name,plan', 'K,v1,basic'];
    for (let i = 1; i <= 30; i++) lines.push(`X${i},x,basic`);
    lines.push('K,v2,pro', 'K,v3,pro');
    ws.write('customers.csv', csvLines(lines));
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: `${JOB()}\nconcurrency: 16` }));

    const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports']);

    expect(run.exitCode).toBe(0);
    expect(contactsWithKey(emulator(), 'K')).toHaveLength(1);
    expect(contactWithKey(emulator(), 'K').custom_fields).toEqual({ customerid: 'K', firstName: 'v3', plan: 'pro' });
    const rowsOfK = byLine(ws.results('import')).filter((r) => r.key === 'K');
    expect(rowsOfK.map((r) => [r.outcome, r.fields_changed])).toEqual([
      ['created', 'customerid;firstName;plan'],
      ['updated', 'firstName;plan'],
      ['updated', 'firstName'],
    ]);
    expect(callsByOperation(emulator()).createContact).toBe(31);
  });
});

describe('run: several contacts on the platform hold the key (onDuplicate)', () => {
  const emulator = emulatorPerTest();

  /** Two contacts with customerid D1; the newer one is stored first, so "oldest" is not "first found". */
  function loadDuplicates() {
    const [newer, older] = emulator().loadContacts(TOKEN, [
      { custom_fields: { customerid: 'D1', firstName: 'Newer', plan: 'basic' }, tags: ['crm'], created_at: 1_700_000_200 },
      { custom_fields: { customerid: 'D1', firstName: 'Older', plan: 'basic' }, tags: ['crm'], created_at: 1_700_000_100 },
    ]);
    return { newer: newer!, older: older! };
  }

  async function runWith(onDuplicate: string) {
    const ws = workspace();
    ws.write('customers.csv', csvLines(['customer_id,first_name,plan', 'D1,Dora,pro', 'E1,Eve,basic']));
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: JOB(onDuplicate) }));
    const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports']);
    const row = ws.results('import').find((r) => r.key === 'D1');
    return { ws, run, row };
  }

  const stored = (id: string) => emulator().contacts(TOKEN).find((c) => c.id === id);

  it('fail: the row fails with DUPLICATE_CONTACTS naming both ids, writes nothing to them, and the other rows go on', async () => {
    const { newer, older } = loadDuplicates();

    const { ws, run, row } = await runWith('fail');

    expect(run.exitCode).toBe(1);
    expect(row).toMatchObject({ outcome: 'failed', error_code: 'DUPLICATE_CONTACTS', contact_id: '', api_calls: '1' });
    expect(row?.error_message).toContain(older.id);
    expect(row?.error_message).toContain(newer.id);
    expect(stored(older.id)?.custom_fields.firstName).toBe('Older');
    expect(stored(newer.id)?.custom_fields.firstName).toBe('Newer');
    expect(ws.rejected('import')).toEqual([
      expect.objectContaining({ customer_id: 'D1', first_name: 'Dora', plan: 'pro', error_code: 'DUPLICATE_CONTACTS' }),
    ]);
    expect(contactWithKey(emulator(), 'E1').custom_fields.firstName).toBe('Eve');
    // D1: one search; E1: search, create, addTags.
    expect(callsByOperation(emulator())).toMatchObject({ searchContacts: 2, createContact: 1, updateContact: 0, addTags: 1, total: 4 });
  });

  it('oldest: only the contact created first is updated', async () => {
    const { newer, older } = loadDuplicates();

    const { run, row } = await runWith('oldest');

    expect(run.exitCode).toBe(0);
    expect(row).toMatchObject({ outcome: 'updated', contact_id: older.id, fields_changed: 'firstName;plan', api_calls: '2' });
    expect(stored(older.id)?.custom_fields).toEqual({ customerid: 'D1', firstName: 'Dora', plan: 'pro' });
    expect(stored(newer.id)?.custom_fields).toEqual({ customerid: 'D1', firstName: 'Newer', plan: 'basic' });
    expect(contactsWithKey(emulator(), 'D1')).toHaveLength(2);
  });

  it('newest: only the contact created last is updated', async () => {
    const { newer, older } = loadDuplicates();

    const { run, row } = await runWith('newest');

    expect(run.exitCode).toBe(0);
    expect(row).toMatchObject({ outcome: 'updated', contact_id: newer.id, fields_changed: 'firstName;plan', api_calls: '2' });
    expect(stored(newer.id)?.custom_fields).toEqual({ customerid: 'D1', firstName: 'Dora', plan: 'pro' });
    expect(stored(older.id)?.custom_fields).toEqual({ customerid: 'D1', firstName: 'Older', plan: 'basic' });
  });

  it('all: every contact of the key is updated, and the row names them all', async () => {
    const { newer, older } = loadDuplicates();
    // The older one lacks the static tag: only it gets an addTags call.
    emulator().deleteContact(TOKEN, older.id);
    const [olderWithoutTag] = emulator().loadContacts(TOKEN, [{ custom_fields: { customerid: 'D1', firstName: 'Older', plan: 'basic' }, created_at: 1_700_000_100 }]);

    const { run, row } = await runWith('all');

    expect(run.exitCode).toBe(0);
    expect(row).toMatchObject({ outcome: 'updated', fields_changed: 'firstName;plan', tags_added: 'crm' });
    expect(row?.contact_id!.split(';').sort()).toEqual([newer.id, olderWithoutTag!.id].sort());
    for (const id of [newer.id, olderWithoutTag!.id]) {
      expect(stored(id)?.custom_fields).toEqual({ customerid: 'D1', firstName: 'Dora', plan: 'pro' });
      expect(sortedTags(stored(id))).toEqual(['crm']);
    }
    // D1: search + 2 updates + 1 addTags; E1: search, create, addTags.
    expect(row?.api_calls).toBe('4');
    expect(callsByOperation(emulator())).toMatchObject({ searchContacts: 2, updateContact: 2, addTags: 2, createContact: 1, total: 7 });
  });
});
