/**
 * reconcile's row work on its own (issue 35: it had no test of its own): one key read on the
 * emulator (port 0), compared with the row, and the state store refreshed so the next run writes
 * exactly the difference; the platform is never written.
 */
import type { RunningEmulator } from '../../../src/emulator/index.js';
import { mapRow } from '../../../src/pipeline/map/map.js';
import { reconcileRow } from '../../../src/pipeline/row/reconcile-row.js';
import type { ContactDraft } from '../../../src/pipeline/map/contact-draft.js';
import { draftHash } from '../../../src/state/draft-hash.js';
import { StateStore } from '../../../src/state/state-store.js';
import { testClient } from '../../api/support/test-client.js';
import { fastEmulator, TOKEN } from '../../helpers/cli-harness.js';
import { columnField, makeJob } from '../../helpers/job-factory.js';
import { makeStateTestDir, type StateTestDir } from '../../state/state-test-dir.js';

describe('reconcileRow', () => {
  let emulator: RunningEmulator;
  let dir: StateTestDir;
  let state: StateStore;
  const job = makeJob({ fields: [columnField('firstName', 'first_name')] });

  beforeEach(async () => {
    emulator = await fastEmulator();
    dir = makeStateTestDir();
    state = StateStore.open(dir.statePath(), { job: job.name, keyField: job.key.field });
  });

  afterEach(async () => {
    state.close();
    dir.remove();
    await emulator.close();
  });

  function draftOf(key: string, firstName: string): ContactDraft {
    const mapped = mapRow({ kind: 'row', line: 2, values: { customer_id: key, first_name: firstName }, cells: [key, firstName] }, job);
    if (!mapped.ok) throw new Error('the row did not map');
    return mapped.draft;
  }

  async function reconcile(draft: ContactDraft) {
    const api = testClient({ baseUrl: emulator.url, token: TOKEN });
    const sync = await reconcileRow(draft, [draft.key], { api, job, state });
    // The operations it called, by name.
    return { sync, calls: Object.entries(api.stats.byOperation).filter(([, count]) => count.requests > 0).map(([operation, count]) => [operation, count.requests]) };
  }

  it('a contact that agrees: same, known with the row\'s hash (the next run settles it with no call), nothing written', async () => {
    const api = testClient({ baseUrl: emulator.url, token: TOKEN });
    const { id } = await api.createContact({ customerid: 'C1', firstName: 'Ann' });
    const draft = draftOf('C1', 'Ann');
    const { sync, calls } = await reconcile(draft);
    expect([sync.comparison?.status, sync.result.outcome, sync.result.contactId, sync.result.apiCalls]).toEqual(['same', 'unchanged', id, 1]);
    expect([state.get('C1')?.contact.id, state.get('C1')?.draftHash]).toEqual([id, draftHash(draft)]);
    expect(calls).toEqual([['searchContacts', 1]]);
  });

  it('a contact that differs: known with what the platform holds and no hash (the next run writes the difference)', async () => {
    const api = testClient({ baseUrl: emulator.url, token: TOKEN });
    const { id } = await api.createContact({ customerid: 'C2', firstName: 'Bea' });
    const { sync } = await reconcile(draftOf('C2', 'Bob'));
    expect([sync.comparison?.status, sync.result.outcome]).toEqual(['differs', 'unchanged']);
    expect([state.get('C2')?.contact.id, state.get('C2')?.contact.custom_fields.firstName, state.get('C2')?.draftHash]).toEqual([id, 'Bea', null]);
    expect(emulator.contacts(TOKEN).map((contact) => contact.custom_fields.firstName)).toEqual(['Bea']);
  });

  it('no contact holds the key: missing, noted absent under the reconcile\'s run, and not created', async () => {
    state.startRun({ job: job.name, argv: 'reconcile', full: false, surface: 'v1' });
    const { sync } = await reconcile(draftOf('C3', 'Cy'));
    expect([sync.comparison?.status, sync.result.outcome, sync.result.contactId]).toEqual(['missing', 'unchanged', '']);
    expect([state.get('C3'), state.absentRead('C3') !== undefined, emulator.contacts(TOKEN)]).toEqual([undefined, true, []]);
  });
});
