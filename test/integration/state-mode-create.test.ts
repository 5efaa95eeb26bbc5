import { join } from 'node:path';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { StateStore } from '../../src/state/state-store.js';
import { TOKEN, customersCsv, fastEmulator, jobsYaml, workspace, type Workspace } from '../helpers/cli-harness.js';
import { STATE_FILE, STATE_JOB, asExpected, contactsByKey, customerKey, expectedCustomer } from '../helpers/state-fixtures.js';

const CREATE_JOB = `${STATE_JOB}\nmode: create`;

describe('run with mode: create and a state store: keys never seen are created without a search', () => {
  let emulator: RunningEmulator;
  let ws: Workspace;

  beforeEach(async () => {
    emulator = await fastEmulator();
    ws = workspace();
    ws.write('jobs.yaml', jobsYaml({ url: emulator.url, job: CREATE_JOB }));
  });

  afterEach(async () => {
    await emulator.close();
  });

  it('a first run creates every row with no search: a create and a tag call per row', async () => {
    ws.write('customers.csv', customersCsv(20));

    const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'first']);

    expect(run.exitCode).toBe(0);
    const counters = emulator.counters(TOKEN);
    expect(counters.byOperation.searchContacts.received).toBe(0);
    expect(counters.byOperation.createContact.received).toBe(20);
    expect(counters.byOperation.addTags.received).toBe(20);
    expect(counters.total.received).toBe(40);
    const byKey = contactsByKey(emulator);
    for (let i = 1; i <= 20; i++) expect(asExpected(byKey.get(customerKey(i))?.[0])).toEqual(expectedCustomer(i));
    expect(ws.results('import', 'first').filter((r) => !(r.outcome === 'created' && r.api_calls === '2'))).toEqual([]);
  });

  it('a later run skips the keys the state knows with no call, even when their row changed, and creates only the new keys', async () => {
    ws.write('customers.csv', customersCsv(20));
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'first'])).exitCode).toBe(0);
    ws.write('customers.csv', customersCsv(25, (i, cells) => (i === 4 ? [...cells.slice(0, 3), 'other4@example.com', ...cells.slice(4)] : cells)));
    emulator.resetCounters(TOKEN);

    const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'second']);

    expect(run.exitCode).toBe(0);
    const counters = emulator.counters(TOKEN);
    expect(counters.byOperation.searchContacts.received).toBe(0);
    expect(counters.byOperation.createContact.received).toBe(5);
    expect(counters.byOperation.addTags.received).toBe(5);
    expect(counters.total.received).toBe(10);
    const results = ws.results('import', 'second');
    expect(results.filter((r) => r.outcome === 'skipped' && r.api_calls === '0')).toHaveLength(20);
    expect(results.filter((r) => r.outcome === 'created').map((r) => r.key).sort()).toEqual(['C0021', 'C0022', 'C0023', 'C0024', 'C0025']);
    expect(contactsByKey(emulator).get('C0004')?.map((c) => c.custom_fields.email)).toEqual(['user4@example.com']);
  });

  it('a key on the platform that the state never saw is created again without --full (the documented risk); --full searches it, skips it and records it', async () => {
    ws.write('customers.csv', customersCsv(3));
    emulator.loadContacts(TOKEN, [{ custom_fields: { customerid: 'C0002', firstName: 'Already' }, tags: [] }]);

    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'trusting'])).exitCode).toBe(0);
    expect(contactsByKey(emulator).get('C0002')).toHaveLength(2);

    // The same situation, checked: --full searches every key the state does not know.
    const careful = workspace();
    careful.write('customers.csv', customersCsv(3));
    careful.write('jobs.yaml', jobsYaml({ url: emulator.url, job: CREATE_JOB }));
    emulator.reset(TOKEN);
    emulator.loadContacts(TOKEN, [{ custom_fields: { customerid: 'C0002', firstName: 'Already' }, tags: [] }]);

    const full = await careful.run(['run', 'jobs.yaml', '--full', '--report-dir', 'full']);

    expect(full.exitCode).toBe(0);
    expect(emulator.counters(TOKEN).byOperation.searchContacts.received).toBe(3);
    expect(emulator.counters(TOKEN).byOperation.createContact.received).toBe(2);
    expect(contactsByKey(emulator).get('C0002')?.map((c) => c.custom_fields.firstName)).toEqual(['Already']);
    expect(careful.results('import', 'full').find((r) => r.key === 'C0002')).toMatchObject({ outcome: 'skipped' });

    // The key found is now in the state: later runs skip it with no call instead of creating it.
    emulator.resetCounters(TOKEN);
    expect((await careful.run(['run', 'jobs.yaml', '--report-dir', 'after'])).exitCode).toBe(0);
    expect(emulator.counters(TOKEN).total.received).toBe(0);
    expect(contactsByKey(emulator).get('C0002')).toHaveLength(1);
  });

  it('a key journalled as "create pending" by a killed run is searched first, and the contact that run created is finished, not skipped or created twice', async () => {
    ws.write('customers.csv', customersCsv(3));
    // What a run killed after its create of C0002 reached the platform leaves behind: the pending
    // mark in the state, and a contact with the create's fields but not yet its tags.
    const store = StateStore.open(join(ws.dir, STATE_FILE), { job: 'import', keyField: 'customerid' });
    store.markCreatePending('C0002');
    store.close();
    const [halfDone] = emulator.loadContacts(TOKEN, [{ custom_fields: expectedCustomer(2).fields, tags: [] }]);

    const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'resumed']);

    expect(run.exitCode).toBe(0);
    const counters = emulator.counters(TOKEN).byOperation;
    expect(counters.searchContacts.received).toBe(1);
    expect(counters.createContact.received).toBe(2);
    expect(counters.addTags.received).toBe(3);
    const byKey = contactsByKey(emulator);
    expect(byKey.get('C0002')?.map((c) => c.id)).toEqual([halfDone?.id]);
    for (let i = 1; i <= 3; i++) expect(asExpected(byKey.get(customerKey(i))?.[0])).toEqual(expectedCustomer(i));
    expect(ws.results('import', 'resumed').find((r) => r.key === 'C0002')).toMatchObject({ outcome: 'updated', contact_id: halfDone?.id, tags_added: 'newsletter;crm' });

    const reopened = StateStore.open(join(ws.dir, STATE_FILE), { job: 'import', keyField: 'customerid' });
    try {
      expect(reopened.pendingCreates()).toEqual([]);
      expect(reopened.get('C0002')?.contact.id).toBe(halfDone?.id);
    } finally {
      reopened.close();
    }
  });
});
