import type { RunningEmulator } from '../../src/emulator/index.js';
import { TOKEN, customersCsv, fastEmulator, jobsYaml, workspace, type Workspace } from '../helpers/cli-harness.js';
import { STATE_JOB, asExpected, contactIdOf, contactsByKey, expectedCustomer } from '../helpers/state-fixtures.js';

const ROWS = 10;

describe('run with a state store: a contact deleted on the platform between runs', () => {
  let emulator: RunningEmulator;
  let ws: Workspace;

  beforeEach(async () => {
    emulator = await fastEmulator();
    ws = workspace();
    ws.write('customers.csv', customersCsv(ROWS));
    ws.write('jobs.yaml', jobsYaml({ url: emulator.url, job: STATE_JOB }));
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'first'])).exitCode).toBe(0);
  });

  afterEach(async () => {
    await emulator.close();
  });

  it('is created again when its row changed: the update by the known id is answered "no such contact", the key is forgotten, searched and created', async () => {
    const deletedId = contactIdOf(emulator, 'C0003');
    expect(emulator.deleteContact(TOKEN, deletedId)).toBe(true);
    ws.write('customers.csv', customersCsv(ROWS, (i, cells) => (i === 3 ? [...cells.slice(0, 3), 'moved3@example.com', ...cells.slice(4)] : cells)));
    emulator.resetCounters(TOKEN);

    const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'second']);

    expect(run.exitCode).toBe(0);
    const counters = emulator.counters(TOKEN).byOperation;
    expect(counters.updateContact.received).toBe(1);
    expect(counters.searchContacts.received).toBe(1);
    expect(counters.createContact.received).toBe(1);
    expect(counters.addTags.received).toBe(1);
    expect(emulator.counters(TOKEN).total.received).toBe(4);

    const recreated = contactsByKey(emulator).get('C0003') ?? [];
    expect(recreated).toHaveLength(1);
    expect(recreated[0]?.id).not.toBe(deletedId);
    expect(asExpected(recreated[0])).toEqual({ ...expectedCustomer(3), fields: { ...expectedCustomer(3).fields, email: 'moved3@example.com' } });
    const results = new Map(ws.results('import', 'second').map((r) => [r.key, r]));
    expect(results.get('C0003')).toMatchObject({ outcome: 'created', contact_id: recreated[0]?.id, api_calls: '4', error_code: '' });
    expect([...results.values()].filter((r) => r.key !== 'C0003').filter((r) => !(r.outcome === 'unchanged' && r.api_calls === '0'))).toEqual([]);

    // The state learnt the new id: the next run of the same file costs nothing.
    emulator.resetCounters(TOKEN);
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'third'])).exitCode).toBe(0);
    expect(emulator.counters(TOKEN).total.received).toBe(0);
    expect(ws.results('import', 'third').find((r) => r.key === 'C0003')).toMatchObject({ outcome: 'unchanged', contact_id: recreated[0]?.id });
  });

  it('costs no call while its row is unchanged (the state is trusted), and is created again by --full', async () => {
    const deletedId = contactIdOf(emulator, 'C0005');
    emulator.deleteContact(TOKEN, deletedId);
    emulator.resetCounters(TOKEN);

    const trusted = await ws.run(['run', 'jobs.yaml', '--report-dir', 'trusted']);

    expect(trusted.exitCode).toBe(0);
    expect(emulator.counters(TOKEN).total.received).toBe(0);
    expect(ws.results('import', 'trusted').find((r) => r.key === 'C0005')).toMatchObject({ outcome: 'unchanged', contact_id: deletedId });

    const full = await ws.run(['run', 'jobs.yaml', '--full', '--report-dir', 'full']);

    expect(full.exitCode).toBe(0);
    const counters = emulator.counters(TOKEN).byOperation;
    expect(counters.searchContacts.received).toBe(ROWS);
    expect(counters.createContact.received).toBe(1);
    expect(counters.addTags.received).toBe(1);
    const recreated = contactsByKey(emulator).get('C0005') ?? [];
    expect(recreated).toHaveLength(1);
    expect(asExpected(recreated[0])).toEqual(expectedCustomer(5));
    expect(ws.results('import', 'full').find((r) => r.key === 'C0005')).toMatchObject({ outcome: 'created', contact_id: recreated[0]?.id });
  });
});
