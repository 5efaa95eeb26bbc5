/**
 * The run after a reconcile (issue 34, point 11): what the reconcile read of each key is as good
 * as a search, so the next run searches none of the keys it read: it updates the differing keys,
 * settles the agreeing ones and creates the missing ones, each without a search, when that run
 * comes straight after the reconcile (docs/reconcile.md, "The run after").
 */
import { TOKEN, customersCsv, jobsYaml, workspace } from '../helpers/cli-harness.js';
import { STATE_JOB, asExpected, contactIdOf, contactsByKey, customerKey, editOnPlatform, expectedCustomer } from '../helpers/state-fixtures.js';
import { emulatorPerTest } from '../helpers/integration-fixtures.js';

const emulator = emulatorPerTest();

/** STATE_JOB writing a `source: crm` marker and prefetching by it. */
const PREFETCH_JOB = `${STATE_JOB.replace('  plan: plan\n', '  plan: plan\n  source: { value: crm }\n')}
match: { prefetch: { field: source, value: crm } }`;

/** After a first import of 30 customers: agents edit C0002 and C0003, delete C0004 and C0005; the export gains C0031 and C0032. */
async function driftAndReconcile(ws: ReturnType<typeof workspace>, job = STATE_JOB): Promise<void> {
  ws.write('customers.csv', customersCsv(30));
  ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job }));
  expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'first'])).exitCode).toBe(0);
  await editOnPlatform(emulator(), 'PUT', `/v1/contact/${contactIdOf(emulator(), 'C0002')}`, { custom_fields: [{ name: 'firstName', value: 'Edited' }] });
  await editOnPlatform(emulator(), 'PUT', `/v1/contact/${contactIdOf(emulator(), 'C0003')}`, { custom_fields: [{ name: 'plan', value: 'gold' }] });
  emulator().deleteContact(TOKEN, contactIdOf(emulator(), 'C0004'));
  emulator().deleteContact(TOKEN, contactIdOf(emulator(), 'C0005'));
  ws.write('customers.csv', customersCsv(32));
  const reconcile = await ws.run(['reconcile', 'jobs.yaml', '--report-dir', 'reconcile']);
  expect(reconcile.exitCode).toBe(1);
  emulator().resetCounters(TOKEN);
}

describe('the run after a reconcile', () => {
  it('searches none of the keys the reconcile read: 2 updates, 4 creates with their tags, 26 settled, no search', async () => {
    const ws = workspace();
    await driftAndReconcile(ws);

    const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'after']);

    expect(run.exitCode).toBe(0);
    const calls = emulator().counters(TOKEN).byOperation;
    expect(calls.searchContacts.received).toBe(0);
    expect(calls.updateContact.received).toBe(2);
    expect(calls.createContact.received).toBe(4);
    expect(calls.addTags.received).toBe(4);
    expect(emulator().counters(TOKEN).total.received).toBe(10);
    const summary = ws.summary('import', 'after');
    expect(summary.apiCalls.byOperation.searchContacts).toBe(0);
    expect(summary.rows).toMatchObject({ total: 32, created: 4, updated: 2, unchanged: 26, failed: 0 });
    // The platform holds each key once, as the file says.
    const byKey = contactsByKey(emulator());
    for (let i = 1; i <= 32; i++) {
      expect(byKey.get(customerKey(i))).toHaveLength(1);
      expect(asExpected(byKey.get(customerKey(i))?.[0])).toEqual(expectedCustomer(i));
    }
  });

  it('a run that is not the next after the reconcile searches the keys it read absent before creating them', async () => {
    const ws = workspace();
    await driftAndReconcile(ws);
    // A run of the first two rows comes between: the reconcile's reads are no longer the last word.
    expect((await ws.run(['run', 'jobs.yaml', '--limit', '2', '--report-dir', 'between'])).exitCode).toBe(0);
    emulator().resetCounters(TOKEN);

    const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'after']);

    expect(run.exitCode).toBe(0);
    const calls = emulator().counters(TOKEN).byOperation;
    expect(calls.searchContacts.received).toBe(4);
    expect(calls.createContact.received).toBe(4);
    expect(ws.summary('import', 'after').rows).toMatchObject({ total: 32, created: 4, failed: 0 });
    expect([...contactsByKey(emulator()).values()].filter((contacts) => contacts.length !== 1)).toEqual([]);
  });

  it('run --full after a reconcile searches every key, the absent ones too', async () => {
    const ws = workspace();
    await driftAndReconcile(ws);

    const run = await ws.run(['run', 'jobs.yaml', '--full', '--report-dir', 'after']);

    expect(run.exitCode).toBe(0);
    expect(emulator().counters(TOKEN).byOperation.searchContacts.received).toBe(32);
    expect(emulator().counters(TOKEN).byOperation.createContact.received).toBe(4);
  });

  it('with match.prefetch, the keys read absent do not make the run page: no page, no search', async () => {
    const ws = workspace();
    await driftAndReconcile(ws, PREFETCH_JOB);

    const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'after']);

    expect(run.exitCode).toBe(0);
    const calls = emulator().counters(TOKEN).byOperation;
    expect(calls.searchContacts.received).toBe(0);
    expect(calls.createContact.received).toBe(4);
    expect(calls.updateContact.received).toBe(2);
    const summary = ws.summary('import', 'after');
    expect(summary.prefetch).toMatchObject({ used: false, calls: 0 });
    expect(summary.rows).toMatchObject({ total: 32, created: 4, updated: 2, unchanged: 26, failed: 0 });
  });
});
