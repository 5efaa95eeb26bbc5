import type { RunningEmulator } from '../../src/emulator/index.js';
import { TOKEN, customersCsv, fastEmulator, jobsYaml, workspace, type Workspace } from '../helpers/cli-harness.js';
import { STATE_JOB, asExpected, contactIdOf, contactsByKey, customerKey, editOnPlatform, expectedCustomer } from '../helpers/state-fixtures.js';

const ROWS = 10;

describe('run --full: the state\'s hashes are ignored, every key is compared with the platform and the state refreshed', () => {
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

  it('repairs contacts edited on the platform that a normal run trusts the state about, then the next run costs nothing', async () => {
    // Someone edits C0002's first name and takes the crm tag off C0004 on the platform.
    await editOnPlatform(emulator, 'PUT', `/v1/contact/${contactIdOf(emulator, 'C0002')}`, { custom_fields: [{ name: 'firstName', value: 'Edited' }] });
    await editOnPlatform(emulator, 'DELETE', `/v1/contact/${contactIdOf(emulator, 'C0004')}/tags`, { tags: ['crm'] });
    emulator.resetCounters(TOKEN);

    const trusted = await ws.run(['run', 'jobs.yaml', '--report-dir', 'trusted']);
    expect(trusted.exitCode).toBe(0);
    expect(emulator.counters(TOKEN).total.received).toBe(0);

    const full = await ws.run(['run', 'jobs.yaml', '--full', '--report-dir', 'full']);

    expect(full.exitCode).toBe(0);
    const counters = emulator.counters(TOKEN);
    expect(counters.byOperation.searchContacts.received).toBe(ROWS);
    expect(counters.byOperation.updateContact.received).toBe(1);
    expect(counters.byOperation.addTags.received).toBe(1);
    expect(counters.total.received).toBe(ROWS + 2);
    const results = new Map(ws.results('import', 'full').map((r) => [r.key, r]));
    expect(results.get('C0002')).toMatchObject({ outcome: 'updated', fields_changed: 'firstName', tags_added: '', api_calls: '2' });
    expect(results.get('C0004')).toMatchObject({ outcome: 'updated', fields_changed: '', tags_added: 'crm', api_calls: '2' });
    expect(results.get('C0001')).toMatchObject({ outcome: 'unchanged', api_calls: '1' });
    const byKey = contactsByKey(emulator);
    for (let i = 1; i <= ROWS; i++) expect(asExpected(byKey.get(customerKey(i))?.[0])).toEqual(expectedCustomer(i));

    emulator.resetCounters(TOKEN);
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'after'])).exitCode).toBe(0);
    expect(emulator.counters(TOKEN).total.received).toBe(0);
    expect(ws.summary('import', 'after').rows.unchanged).toBe(ROWS);
  });

  it('replaces a stale contact id with the one the platform holds now, so the next change goes to that contact by id', async () => {
    // Someone deleted C0006's contact and made it again by hand: same values, a new id.
    const staleId = contactIdOf(emulator, 'C0006');
    const seen = contactsByKey(emulator).get('C0006')?.[0];
    emulator.deleteContact(TOKEN, staleId);
    const [remade] = emulator.loadContacts(TOKEN, [{ custom_fields: { ...seen?.custom_fields }, tags: [...(seen?.tags ?? [])] }]);
    emulator.resetCounters(TOKEN);

    expect((await ws.run(['run', 'jobs.yaml', '--full', '--report-dir', 'full'])).exitCode).toBe(0);

    expect(emulator.counters(TOKEN).total.received).toBe(ROWS);
    expect(emulator.counters(TOKEN).byOperation.searchContacts.received).toBe(ROWS);
    expect(ws.results('import', 'full').find((r) => r.key === 'C0006')).toMatchObject({ outcome: 'unchanged', contact_id: remade?.id });

    ws.write('customers.csv', customersCsv(ROWS, (i, cells) => (i === 6 ? [cells[0] ?? '', cells[1] ?? '', 'Renamed', ...cells.slice(3)] : cells)));
    emulator.resetCounters(TOKEN);
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'after'])).exitCode).toBe(0);

    expect(emulator.counters(TOKEN).byOperation.updateContact.received).toBe(1);
    expect(emulator.counters(TOKEN).total.received).toBe(1);
    expect(ws.results('import', 'after').find((r) => r.key === 'C0006')).toMatchObject({ outcome: 'updated', contact_id: remade?.id, fields_changed: 'lastName' });
    expect(contactsByKey(emulator).get('C0006')?.map((c) => c.custom_fields.lastName)).toEqual(['Renamed']);
  });
});
