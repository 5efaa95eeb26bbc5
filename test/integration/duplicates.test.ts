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

/** K1 on lines 2, 4 and 5 (each with other values and tags), X1 on line 3. */
const THREE_ROWS = csvLines(['customer_id,first_name,plan,segments', 'K1,Ann,basic,a', 'X1,Xav,basic,x', 'K1,,pro,b', 'K1,Anna,,c']);

const POLICY_JOB = (policy: string) => `input: customers.csv
key: { column: customer_id, field: customerid }
onDuplicateRows: ${policy}
fields:
  firstName: first_name
  plan: plan
tags: { column: segments, static: [crm] }
state: .contact-sync/import.db`;

type Row = [line: string, key: string, outcome: string, api_calls: string, error: string];
const rowsOf = (rows: Array<Record<string, string>>): Row[] =>
  byLine(rows).map((r) => [r.line!, r.key!, r.outcome!, r.api_calls!, r.error_code || r.error_message || '']);

describe('run: a key on several rows of the file (onDuplicateRows)', () => {
  const emulator = emulatorPerTest();

  /** A first run of THREE_ROWS, then a re-run of the unchanged file with the state store. */
  async function runTwice(policy: string) {
    const ws = workspace();
    ws.write('customers.csv', THREE_ROWS);
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: POLICY_JOB(policy) }));
    const first = await ws.run(['run', 'jobs.yaml', '--report-dir', 'first']);
    const calls = callsByOperation(emulator());
    emulator().resetCounters(TOKEN);
    const again = await ws.run(['run', 'jobs.yaml', '--report-dir', 'again']);
    return { ws, first, calls, again, againCalls: callsByOperation(emulator()) };
  }

  /** What a new key on one row costs: a search, a create, the tags. X1 costs the same. */
  const ONE_NEW_ROW_EACH = { searchContacts: 2, createContact: 2, updateContact: 0, addTags: 2, removeTags: 0, total: 6 };

  it('last (the default): the last row is applied, the others are skipped naming it, their tags do not pile up, at the cost of one row', async () => {
    const { ws, first, calls, again, againCalls } = await runTwice('last');

    expect(first.exitCode).toBe(0);
    expect(contactWithKey(emulator(), 'K1').custom_fields).toEqual({ customerid: 'K1', firstName: 'Anna' });
    expect(sortedTags(contactWithKey(emulator(), 'K1'))).toEqual(['c', 'crm']);
    expect(calls).toMatchObject(ONE_NEW_ROW_EACH);
    expect(rowsOf(ws.results('import', 'first'))).toEqual([
      ['2', 'K1', 'skipped', '0', 'superseded by line 5 (onDuplicateRows: last)'],
      ['3', 'X1', 'created', '3', ''],
      ['4', 'K1', 'skipped', '0', 'superseded by line 5 (onDuplicateRows: last)'],
      ['5', 'K1', 'created', '3', ''],
    ]);
    expect(ws.summary('import', 'first').rows).toEqual({ total: 4, created: 2, updated: 0, unchanged: 0, skipped: 2, failed: 0, notReached: 0 });

    // The unchanged file again: no call, the same winner unchanged.
    expect(again.exitCode).toBe(0);
    expect(againCalls.total).toBe(0);
    expect(rowsOf(ws.results('import', 'again')).map((r) => r.slice(0, 3))).toEqual([
      ['2', 'K1', 'skipped'],
      ['3', 'X1', 'unchanged'],
      ['4', 'K1', 'skipped'],
      ['5', 'K1', 'unchanged'],
    ]);
  });

  it('a winning (last) row that fails on its own (a bad email) fails the key as a whole: the row it supersedes is skipped saying so, and the contact is left as it was (issue 41)', async () => {
    const [held] = emulator().loadContacts(TOKEN, [{ custom_fields: { customerid: 'K1', firstName: 'Old', email: 'old@example.com' }, tags: [] }]);
    const ws = workspace();
    ws.write('customers.csv', csvLines(['customer_id,first_name,email,segments', 'K1,Ann,ann@example.com,a', 'X1,Xav,xav@example.com,x', 'K1,Anna,not-an-email,b']));
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: POLICY_JOB('last').replace('  plan: plan', '  email: { column: email, transform: email }') }));
    const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'r']);
    expect(run.exitCode).toBe(1);
    expect(rowsOf(ws.results('import', 'r'))).toEqual([
      ['2', 'K1', 'skipped', '0', 'superseded by line 4 (onDuplicateRows: last), which fails: no row of key "K1" is written until line 4 is fixed'],
      ['3', 'X1', 'created', '3', ''],
      ['4', 'K1', 'failed', '0', 'INVALID_EMAIL'],
    ]);
    expect(ws.rejected('import', 'r').map((row) => [row.customer_id, row.error_code])).toEqual([['K1', 'INVALID_EMAIL']]);
    expect(contactsWithKey(emulator(), 'K1')).toEqual([expect.objectContaining({ id: held?.id, custom_fields: { customerid: 'K1', firstName: 'Old', email: 'old@example.com' }, tags: [] })]);
  });

  it('first: the first row is applied, the later ones are skipped naming it, and a re-run makes no call', async () => {
    const { ws, first, calls, again, againCalls } = await runTwice('first');

    expect(first.exitCode).toBe(0);
    expect(contactWithKey(emulator(), 'K1').custom_fields).toEqual({ customerid: 'K1', firstName: 'Ann', plan: 'basic' });
    expect(sortedTags(contactWithKey(emulator(), 'K1'))).toEqual(['a', 'crm']);
    expect(calls).toMatchObject(ONE_NEW_ROW_EACH);
    expect(rowsOf(ws.results('import', 'first'))).toEqual([
      ['2', 'K1', 'created', '3', ''],
      ['3', 'X1', 'created', '3', ''],
      ['4', 'K1', 'skipped', '0', 'superseded by line 2 (onDuplicateRows: first)'],
      ['5', 'K1', 'skipped', '0', 'superseded by line 2 (onDuplicateRows: first)'],
    ]);
    expect(again.exitCode).toBe(0);
    expect(againCalls.total).toBe(0);
  });

  it('merge: the rows are folded (last non-empty value per field, union of tags) into the last line, the others skipped naming it; a re-run makes no call', async () => {
    const { ws, first, calls, again, againCalls } = await runTwice('merge');

    expect(first.exitCode).toBe(0);
    expect(contactWithKey(emulator(), 'K1').custom_fields).toEqual({ customerid: 'K1', firstName: 'Anna', plan: 'pro' });
    expect(sortedTags(contactWithKey(emulator(), 'K1'))).toEqual(['a', 'b', 'c', 'crm']);
    expect(calls).toMatchObject(ONE_NEW_ROW_EACH);
    expect(rowsOf(ws.results('import', 'first'))).toEqual([
      ['2', 'K1', 'skipped', '0', 'merged into line 5 (onDuplicateRows: merge)'],
      ['3', 'X1', 'created', '3', ''],
      ['4', 'K1', 'skipped', '0', 'merged into line 5 (onDuplicateRows: merge)'],
      ['5', 'K1', 'created', '3', ''],
    ]);
    expect(byLine(ws.results('import', 'first'))[3]).toMatchObject({ fields_changed: 'customerid;firstName;plan', tags_added: 'a;crm;b;c' });
    expect(again.exitCode).toBe(0);
    expect(againCalls.total).toBe(0);
    expect(ws.summary('import', 'again').rows).toMatchObject({ unchanged: 2, skipped: 2 });
  });

  it('fail: every row of the key fails with DUPLICATE_ROWS naming all its lines, nothing is written for it, and the rows go to rejected.csv', async () => {
    const { ws, first, calls, again, againCalls } = await runTwice('fail');

    expect(first.exitCode).toBe(1);
    expect(contactsWithKey(emulator(), 'K1')).toEqual([]);
    expect(contactWithKey(emulator(), 'X1').custom_fields.firstName).toBe('Xav');
    expect(calls).toMatchObject({ searchContacts: 1, createContact: 1, addTags: 1, total: 3 });
    const message = 'key "K1" is on lines 2, 4 and 5 (onDuplicateRows: fail), so none of them is written; fix the export so the key is on one row, or set onDuplicateRows to last, first or merge';
    expect(byLine(ws.results('import', 'first')).map((r) => [r.line, r.outcome, r.api_calls, r.error_code, r.error_message])).toEqual([
      ['2', 'failed', '0', 'DUPLICATE_ROWS', message],
      ['3', 'created', '3', '', ''],
      ['4', 'failed', '0', 'DUPLICATE_ROWS', message],
      ['5', 'failed', '0', 'DUPLICATE_ROWS', message],
    ]);
    expect(ws.rejected('import', 'first').map((r) => [r.customer_id, r.first_name, r.error_code])).toEqual([
      ['K1', 'Ann', 'DUPLICATE_ROWS'],
      ['K1', '', 'DUPLICATE_ROWS'],
      ['K1', 'Anna', 'DUPLICATE_ROWS'],
    ]);
    expect(again.exitCode).toBe(1);
    expect(againCalls.total).toBe(0);
  });

  it('last on a contact the platform has: one update with the last row\'s values, however far apart the rows and many in flight', async () => {
    emulator().loadContacts(TOKEN, [{ custom_fields: { customerid: 'K', firstName: 'old', plan: 'basic' }, tags: ['crm'] }]);
    const ws = workspace();
    const lines = ['customer_id,first_name,plan', 'K,v1,basic'];
    for (let i = 1; i <= 30; i++) lines.push(`X${i},x,basic`);
    lines.push('K,v2,pro', 'K,v3,pro');
    ws.write('customers.csv', csvLines(lines));
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: `${JOB()}\nconcurrency: 16` }));

    const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports']);

    expect(run.exitCode).toBe(0);
    expect(contactWithKey(emulator(), 'K').custom_fields).toEqual({ customerid: 'K', firstName: 'v3', plan: 'pro' });
    const rowsOfK = byLine(ws.results('import')).filter((r) => r.key === 'K');
    expect(rowsOfK.map((r) => [r.line, r.outcome, r.fields_changed, r.api_calls])).toEqual([
      ['2', 'skipped', '', '0'],
      ['33', 'skipped', '', '0'],
      ['34', 'updated', 'firstName;plan', '2'],
    ]);
    // K: a search and one update; each X: search, create, addTags.
    expect(callsByOperation(emulator())).toMatchObject({ searchContacts: 31, createContact: 30, updateContact: 1, addTags: 30, total: 92 });
  });

  it('--limit takes the first N rows as they would be in the whole run: a row whose winner lies beyond the limit is skipped, and the winner is not reached', async () => {
    const ws = workspace();
    ws.write('customers.csv', THREE_ROWS);
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: POLICY_JOB('last') }));

    const run = await ws.run(['run', 'jobs.yaml', '--limit', '2', '--report-dir', 'reports']);

    expect(run.exitCode).toBe(0);
    expect(rowsOf(ws.results('import'))).toEqual([
      ['2', 'K1', 'skipped', '0', 'superseded by line 5 (onDuplicateRows: last)'],
      ['3', 'X1', 'created', '3', ''],
    ]);
    expect(ws.summary('import').rows).toMatchObject({ total: 2, skipped: 1, created: 1, notReached: 2 });
    expect(contactsWithKey(emulator(), 'K1')).toEqual([]);
  });

  it('validate names each repeated key\'s lines and what the policy will do; under fail its rows count as invalid', async () => {
    const ws = workspace();
    ws.write('customers.csv', THREE_ROWS);
    const validate = async (policy: string) => {
      ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: POLICY_JOB(policy) }));
      return ws.run(['validate', 'jobs.yaml']);
    };

    const last = await validate('last');
    expect(last.exitCode).toBe(0);
    expect(last.stdout).toContain('import: 4 rows, 4 valid, 0 invalid; 2 rows repeat a key of an earlier row (onDuplicateRows: last)');
    expect(last.stdout).toMatch(/customers\.csv: key "K1" is on lines 2, 4, 5: line 5 is applied, the 2 other rows are skipped \(onDuplicateRows: last\)\n/);
    expect((await validate('first')).stdout).toContain('key "K1" is on lines 2, 4, 5: line 2 is applied, the 2 other rows are skipped (onDuplicateRows: first)');
    expect((await validate('merge')).stdout).toContain('key "K1" is on lines 2, 4, 5: the 3 rows are merged into line 5 (onDuplicateRows: merge)');
    const fail = await validate('fail');
    expect(fail.exitCode).toBe(1);
    expect(fail.stdout).toContain('import: 4 rows, 1 valid, 3 invalid; 2 rows repeat a key of an earlier row (onDuplicateRows: fail)');
    expect(fail.stdout).toContain('key "K1" is on lines 2, 4, 5: the 3 rows fail with DUPLICATE_ROWS (onDuplicateRows: fail)');
    expect(callsByOperation(emulator()).total).toBe(0);
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
