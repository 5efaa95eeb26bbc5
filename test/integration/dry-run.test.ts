import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { CUSTOMERS_JOB, TOKEN, customersCsv, jobsYaml, workspace } from '../helpers/cli-harness.js';
import { byLine, callsByOperation, csvLines, emulatorPerTest } from '../helpers/integration-fixtures.js';

/** What a row's report says would happen, without the parts only a real run knows (ids, calls). */
const planned = (rows: Array<Record<string, string>>) =>
  byLine(rows).map((r) => ({ line: r.line, key: r.key, outcome: r.outcome, fields_changed: r.fields_changed, tags_added: r.tags_added, tags_removed: r.tags_removed, error_code: r.error_code }));

describe('run --dry-run', () => {
  const emulator = emulatorPerTest();

  it('only searches, writes nothing, and reports the same outcomes and changes as the real run of the same file', async () => {
    const ws = workspace();
    ws.write('customers.csv', customersCsv(6));
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: CUSTOMERS_JOB }));
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'first'])).exitCode).toBe(0);
    // The platform's copy of C0005 carries the "lead" tag that the job removes.
    const c5 = emulator().contacts(TOKEN).find((c) => c.custom_fields.customerid === 'C0005')!;
    emulator().deleteContact(TOKEN, c5.id);
    emulator().loadContacts(TOKEN, [{ ...c5, tags: [...c5.tags, 'lead'] }]);
    // C0001-C0003 unchanged, C0004 a new email, C0006 a new segment, C0007 new, C0008 new twice
    // (its second row, which onDuplicateRows: last applies, changes the plan), and one invalid row.
    ws.write(
      'customers.csv',
      customersCsv(8, (i, cells) =>
        i === 4 ? [cells[0]!, cells[1]!, cells[2]!, 'new4@example.com', ...cells.slice(4)] : i === 6 ? [...cells.slice(0, 5), 'vip;newsletter;beta'] : cells,
      ) + csvLines(['C0008,First8,Last8,user8@example.com,enterprise,newsletter', 'C0009,First9,Last9,not-an-email,basic,newsletter']),
    );
    const before = emulator().contacts(TOKEN);
    emulator().resetCounters(TOKEN);

    const dry = await ws.run(['run', 'jobs.yaml', '--dry-run', '--report-dir', 'dry']);

    expect(dry.exitCode).toBe(1);
    expect(emulator().contacts(TOKEN)).toEqual(before);
    const calls = callsByOperation(emulator());
    // One search per key (the first C0008 row is skipped: the second wins).
    expect(calls).toMatchObject({ searchContacts: 8, total: 8 });
    expect(ws.summary('import', 'dry')).toMatchObject({ dryRun: true });
    expect(ws.summary('import', 'dry').apiCalls.total).toBe(8);

    emulator().resetCounters(TOKEN);
    const real = await ws.run(['run', 'jobs.yaml', '--report-dir', 'real']);

    expect(real.exitCode).toBe(1);
    expect(planned(ws.results('import', 'dry'))).toEqual(planned(ws.results('import', 'real')));
    expect(planned(ws.results('import', 'dry'))).toEqual([
      { line: '2', key: 'C0001', outcome: 'unchanged', fields_changed: '', tags_added: '', tags_removed: '', error_code: '' },
      { line: '3', key: 'C0002', outcome: 'unchanged', fields_changed: '', tags_added: '', tags_removed: '', error_code: '' },
      { line: '4', key: 'C0003', outcome: 'unchanged', fields_changed: '', tags_added: '', tags_removed: '', error_code: '' },
      { line: '5', key: 'C0004', outcome: 'updated', fields_changed: 'email', tags_added: '', tags_removed: '', error_code: '' },
      { line: '6', key: 'C0005', outcome: 'updated', fields_changed: '', tags_added: '', tags_removed: 'lead', error_code: '' },
      { line: '7', key: 'C0006', outcome: 'updated', fields_changed: '', tags_added: 'beta', tags_removed: '', error_code: '' },
      { line: '8', key: 'C0007', outcome: 'created', fields_changed: 'customerid;firstName;lastName;email;plan', tags_added: 'newsletter;crm', tags_removed: '', error_code: '' },
      { line: '9', key: 'C0008', outcome: 'skipped', fields_changed: '', tags_added: '', tags_removed: '', error_code: '' },
      { line: '10', key: 'C0008', outcome: 'created', fields_changed: 'customerid;firstName;lastName;email;plan', tags_added: 'newsletter;crm', tags_removed: '', error_code: '' },
      { line: '11', key: 'C0009', outcome: 'failed', fields_changed: '', tags_added: '', tags_removed: '', error_code: 'INVALID_EMAIL' },
    ]);
    const dryRows = ws.summary('import', 'dry').rows;
    expect(dryRows).toEqual(ws.summary('import', 'real').rows);
    expect(callsByOperation(emulator())).toMatchObject({ searchContacts: 8, createContact: 2, updateContact: 1, addTags: 3, removeTags: 1 });
  });

  it('two identical rows of one new key report skipped then created (onDuplicateRows: last), with one search and no write', async () => {
    const ws = workspace();
    ws.write('customers.csv', csvLines(['customer_id,first_name,last_name,email,plan,segments', 'N1,Ann,Lee,ann@example.com,basic,a', 'N1,Ann,Lee,ann@example.com,basic,a']));
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: CUSTOMERS_JOB }));

    const run = await ws.run(['run', 'jobs.yaml', '--dry-run', '--report-dir', 'reports']);

    expect(run.exitCode).toBe(0);
    expect(byLine(ws.results('import')).map((r) => r.outcome)).toEqual(['skipped', 'created']);
    expect(callsByOperation(emulator())).toMatchObject({ searchContacts: 1, total: 1 });
    expect(emulator().contacts(TOKEN)).toEqual([]);
    expect(run.stdout).toContain('dry run');
  });

  it('does not create the state store of a job that has none yet', async () => {
    const ws = workspace();
    ws.write('customers.csv', customersCsv(3));
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: CUSTOMERS_JOB.replace('state: false', 'state: .contact-sync/import.db') }));

    const run = await ws.run(['run', 'jobs.yaml', '--dry-run', '--report-dir', 'reports']);

    expect(run.exitCode).toBe(0);
    expect(ws.summary('import').rows).toMatchObject({ total: 3, created: 3 });
    expect(existsSync(join(ws.dir, '.contact-sync', 'import.db'))).toBe(false);
    expect(emulator().contacts(TOKEN)).toEqual([]);
  });
});

describe('run --dry-run: the estimate of the real run', () => {
  const emulator = emulatorPerTest();
  const JOB = `input: customers.csv
key: { column: customer_id, field: customerid }
fields: { firstName: first_name, plan: plan, email: { column: email, transform: email } }
tags: { column: segments, static: [crm] }
onMissing: { action: tag, tags: [left-crm] }
state: state.db`;

  it("counts the real run's calls by operation (its own searches, the writes and departed tags it withholds) and their time at the rate limit; the departed step's share is the same in both", async () => {
    const ws = workspace();
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: JOB }));
    ws.write('customers.csv', customersCsv(30));
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'first'])).exitCode).toBe(0);
    // C0004-C0006 left the export, C0002 has a new email, C0007 a new segment, C0031-C0040 are new.
    const [header = '', ...lines] = customersCsv(40, (i, cells) => (i === 2 ? [...cells.slice(0, 3), 'new2@example.com', ...cells.slice(4)] : i === 7 ? [...cells.slice(0, 5), 'newsletter;beta'] : cells))
      .trimEnd()
      .split('\n');
    ws.write('customers.csv', `${[header, ...lines.filter((_line, index) => ![4, 5, 6].includes(index + 1))].join('\n')}\n`);
    emulator().resetCounters(TOKEN);

    const dry = await ws.run(['run', 'jobs.yaml', '--dry-run', '--report-dir', 'dry']);
    expect(dry.exitCode).toBe(0);
    expect(callsByOperation(emulator())).toMatchObject({ searchContacts: 10, total: 10 });
    emulator().resetCounters(TOKEN);
    const real = await ws.run(['run', 'jobs.yaml', '--report-dir', 'real']);
    expect(real.exitCode).toBe(0);

    const estimate = ws.summary('import', 'dry').realRunEstimate as { calls: { total: number; byOperation: Record<string, number> }; contactsCalls: number; contactsPerMinute: number; durationMs: number };
    const made = ws.summary('import', 'real').apiCalls;
    // The bar is 10%; on this file the estimate is exact, operation by operation.
    expect(Math.abs(estimate.calls.total - made.total)).toBeLessThanOrEqual(made.total * 0.1);
    expect(estimate.calls.byOperation).toEqual(made.byOperation);
    // 10 new keys: a search, a create and a tag call each; C0002 an update, C0007 a tag call; 3 departed tags.
    expect(made.byOperation).toMatchObject({ searchContacts: 10, createContact: 10, updateContact: 1, addTags: 14 });
    expect(estimate).toMatchObject({ contactsCalls: made.total, contactsPerMinute: 60_000, durationMs: made.total });
    expect(ws.summary('import', 'real').realRunEstimate).toBeUndefined();
    expect(dry.stdout).toContain(`the real run (estimate): ${made.total} API calls (searchContacts 10, updateContact 1, addTags 14, createContact 10), about 0s at 60000/min`);
    // The keys earlier runs synced, in both: the real run's 10 creates do not enter the share.
    const share = 'departed keys (onMissing: tag): 3 of 30 known keys left the file';
    expect(dry.stdout).toContain(share);
    expect(real.stdout).toContain(share);
    expect(ws.summary('import', 'real').departed).toMatchObject({ knownKeys: 30, missing: 3, updated: 3, apiCalls: 3 });
  });
});
