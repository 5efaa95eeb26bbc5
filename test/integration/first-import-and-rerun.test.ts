import type { RunningEmulator } from '../../src/emulator/index.js';
import { CUSTOMERS_JOB, TOKEN, customersCsv, fastEmulator, jobsYaml, workspace } from '../helpers/cli-harness.js';

describe('run: first import, then the same file again', () => {
  let emulator: RunningEmulator;
  beforeEach(async () => {
    emulator = await fastEmulator();
  });
  afterEach(async () => {
    await emulator.close();
  });

  it('creates every contact with its fields and tags in 3 calls a row, and reports every row', async () => {
    const ws = workspace();
    ws.write('customers.csv', customersCsv(20));
    ws.write('jobs.yaml', jobsYaml({ url: emulator.url, job: CUSTOMERS_JOB }));

    const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports']);

    expect(run.exitCode).toBe(0);
    const contacts = emulator.contacts(TOKEN);
    expect(contacts).toHaveLength(20);
    const third = contacts.find((c) => c.custom_fields.customerid === 'C0003');
    expect(third?.custom_fields).toEqual({ customerid: 'C0003', firstName: 'First3', lastName: 'Last3', email: 'user3@example.com', plan: 'basic' });
    expect([...(third?.tags ?? [])].sort()).toEqual(['crm', 'newsletter', 'vip']);

    const results = ws.results('import');
    expect(results).toHaveLength(20);
    expect(results.filter((r) => r.outcome !== 'created' || r.api_calls !== '3')).toEqual([]);
    expect(results.map((r) => Number(r.line)).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 2));
    const byId = new Map(contacts.map((c) => [c.id, c.custom_fields.customerid]));
    for (const row of results) expect(byId.get(String(row.contact_id))).toBe(row.key);

    const summary = ws.summary('import');
    expect(summary.rows).toEqual({ total: 20, created: 20, updated: 0, unchanged: 0, skipped: 0, failed: 0, notReached: 0 });
    expect(summary.apiCalls.byOperation).toMatchObject({ searchContacts: 20, createContact: 20, addTags: 20, updateContact: 0, removeTags: 0 });
    expect(emulator.counters(TOKEN).total.received).toBe(60);
  });

  it('a re-run of an unchanged 1,000-row file makes exactly one search call per row and no other call', async () => {
    const ws = workspace();
    ws.write('customers.csv', customersCsv(1000));
    ws.write('jobs.yaml', jobsYaml({ url: emulator.url, job: `${CUSTOMERS_JOB}\nconcurrency: 32` }));
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'first'])).exitCode).toBe(0);
    emulator.resetCounters(TOKEN);

    const rerun = await ws.run(['run', 'jobs.yaml', '--report-dir', 'second']);

    expect(rerun.exitCode).toBe(0);
    const counters = emulator.counters(TOKEN);
    expect(counters.total.received).toBe(1000);
    expect(counters.byOperation.searchContacts.received).toBe(1000);
    const results = ws.results('import', 'second');
    expect(results).toHaveLength(1000);
    expect(results.filter((r) => !(r.outcome === 'unchanged' && r.api_calls === '1' && r.contact_id !== ''))).toEqual([]);
    expect(emulator.contacts(TOKEN)).toHaveLength(1000);
    // 4,000 calls through the real CLI: a budget for a machine busy with other work, not a pace.
  }, 180_000);

  it('a changed file sends only the changed fields and tags', async () => {
    const ws = workspace();
    ws.write('customers.csv', customersCsv(10));
    ws.write('jobs.yaml', jobsYaml({ url: emulator.url, job: CUSTOMERS_JOB }));
    await ws.run(['run', 'jobs.yaml', '--report-dir', 'first']);
    emulator.resetCounters(TOKEN);
    // Row 4: new email; row 7: a new segment; the rest as before.
    ws.write(
      'customers.csv',
      customersCsv(10, (i, cells) => (i === 4 ? [...cells.slice(0, 3), 'NEW4@example.com', ...cells.slice(4)] : i === 7 ? [...cells.slice(0, 5), 'newsletter;beta'] : cells)),
    );

    const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'second']);

    expect(run.exitCode).toBe(0);
    const counters = emulator.counters(TOKEN).byOperation;
    expect(counters.searchContacts.received).toBe(10);
    expect(counters.updateContact.received).toBe(1);
    expect(counters.addTags.received).toBe(1);
    expect(counters.createContact.received).toBe(0);
    const results = new Map(ws.results('import', 'second').map((r) => [r.key, r]));
    expect(results.get('C0004')).toMatchObject({ outcome: 'updated', fields_changed: 'email', tags_added: '', api_calls: '2' });
    expect(results.get('C0007')).toMatchObject({ outcome: 'updated', fields_changed: '', tags_added: 'beta', api_calls: '2' });
    expect(results.get('C0001')).toMatchObject({ outcome: 'unchanged', api_calls: '1' });
    const four = emulator.contacts(TOKEN).find((c) => c.custom_fields.customerid === 'C0004');
    expect(four?.custom_fields.email).toBe('new4@example.com');
    expect(four?.custom_fields.firstName).toBe('First4');
  });
});
