import type { RunningEmulator } from '../../src/emulator/index.js';
import { TOKEN, customersCsv, fastEmulator, jobsYaml, workspace } from '../helpers/cli-harness.js';
import { STATE_JOB, asExpected, contactsByKey, customerKey, expectedCustomer } from '../helpers/state-fixtures.js';

const CONTACTS = 500;

/** The customers job writing a `source: crm` marker on every contact, and prefetching by it. */
const PREFETCH_JOB = `${STATE_JOB.replace('  plan: plan\n', '  plan: plan\n  source: { value: crm }\n')}
match: { prefetch: { field: source, value: crm } }`;
const SEARCH_JOB = PREFETCH_JOB.replace(/\nmatch: .*$/, '');
const FIRST_IMPORT = 'the state store knows no key yet (a first import)';

/** The platform as a first import of `customersCsv(CONTACTS)` with PREFETCH_JOB left it. */
function seedCustomers(emulator: RunningEmulator): void {
  const seeds = [];
  for (let i = 1; i <= CONTACTS; i++) {
    const expected = expectedCustomer(i);
    seeds.push({ custom_fields: { ...expected.fields, source: 'crm' }, tags: expected.tags });
  }
  emulator.loadContacts(TOKEN, seeds);
}

// Every test: an emulator holding the platform as a first import of the customers left it.
let emulator: RunningEmulator;

beforeEach(async () => {
  emulator = await fastEmulator();
  seedCustomers(emulator);
});

afterEach(async () => {
  await emulator.close();
});

describe('run with match.prefetch: the job\'s contacts are read page by page once, rows are matched without a search each', () => {
  it('a 500-contact reconciliation costs 50 search calls with the prefetch, where searching each key costs 500', async () => {
    const ws = workspace();
    ws.write('customers.csv', customersCsv(CONTACTS));
    ws.write('jobs.yaml', jobsYaml({ url: emulator.url, job: PREFETCH_JOB }));

    const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'prefetch']);

    expect(run.exitCode).toBe(0);
    const counters = emulator.counters(TOKEN);
    expect(counters.byOperation.searchContacts.received).toBe(50);
    expect(counters.total.received).toBe(50);
    const summary = ws.summary('import', 'prefetch');
    expect(summary.prefetch).toEqual({ used: true, reason: FIRST_IMPORT, contacts: CONTACTS, calls: 50, searchesSaved: CONTACTS });
    expect(summary.rows).toEqual({ total: CONTACTS, created: 0, updated: 0, unchanged: CONTACTS, skipped: 0, failed: 0, notReached: 0 });
    const idByKey = new Map([...contactsByKey(emulator)].map(([key, contacts]) => [key, contacts[0]?.id]));
    expect(ws.results('import', 'prefetch').filter((r) => r.api_calls !== '0' || r.contact_id !== idByKey.get(r.key ?? ''))).toEqual([]);

    // The same reconciliation without the prefetch: one search per row.
    const searching = workspace();
    searching.write('customers.csv', customersCsv(CONTACTS));
    searching.write('jobs.yaml', jobsYaml({ url: emulator.url, job: `${SEARCH_JOB}\nconcurrency: 32` }));
    emulator.resetCounters(TOKEN);

    expect((await searching.run(['run', 'jobs.yaml', '--report-dir', 'search'])).exitCode).toBe(0);

    expect(emulator.counters(TOKEN).byOperation.searchContacts.received).toBe(CONTACTS);
    expect(searching.summary('import', 'search').prefetch).toBeUndefined();
  }, 30_000);

  it('a changed row found in the index is updated with no search; a key the index lacks is still searched, then created with the marker', async () => {
    const ws = workspace();
    ws.write('customers.csv', customersCsv(CONTACTS + 5, (i, cells) => (i === 7 ? [...cells.slice(0, 3), 'new7@example.com', ...cells.slice(4)] : cells)));
    ws.write('jobs.yaml', jobsYaml({ url: emulator.url, job: PREFETCH_JOB }));

    const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'prefetch']);

    expect(run.exitCode).toBe(0);
    const counters = emulator.counters(TOKEN).byOperation;
    expect(counters.searchContacts.received).toBe(50 + 5);
    expect(counters.updateContact.received).toBe(1);
    expect(counters.createContact.received).toBe(5);
    expect(counters.addTags.received).toBe(5);
    expect(emulator.counters(TOKEN).total.received).toBe(66);
    expect(ws.summary('import', 'prefetch').prefetch).toEqual({ used: true, reason: FIRST_IMPORT, contacts: CONTACTS, calls: 50, searchesSaved: CONTACTS });
    const results = new Map(ws.results('import', 'prefetch').map((r) => [r.key, r]));
    expect(results.get('C0007')).toMatchObject({ outcome: 'updated', fields_changed: 'email', api_calls: '1' });
    expect(results.get('C0503')).toMatchObject({ outcome: 'created', api_calls: '3' });
    const byKey = contactsByKey(emulator);
    expect(byKey.size).toBe(CONTACTS + 5);
    expect(asExpected(byKey.get(customerKey(503))?.[0])).toEqual({ ...expectedCustomer(503), fields: { ...expectedCustomer(503).fields, source: 'crm' } });
  }, 30_000);
});

describe('match.prefetch pages only when that can save calls (issue 25)', () => {
  it('a re-run whose keys the state store all knows makes no call; 3 new keys cost their searches, not 50 pages; --full pages', async () => {
    const ws = workspace();
    ws.write('customers.csv', customersCsv(CONTACTS));
    ws.write('jobs.yaml', jobsYaml({ url: emulator.url, job: PREFETCH_JOB }));
    // The first run (an empty state store) pages, as before.
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'first'])).exitCode).toBe(0);
    expect(emulator.counters(TOKEN).total.received).toBe(50);

    emulator.resetCounters(TOKEN);
    const rerun = await ws.run(['run', 'jobs.yaml', '--report-dir', 'rerun']);
    expect(rerun.exitCode).toBe(0);
    expect(emulator.counters(TOKEN).total.received).toBe(0);
    expect(ws.summary('import', 'rerun').prefetch).toEqual({
      used: false,
      reason: `0 key(s) the state store does not know: 0 search(es) at most, fewer than the pages (at least 50 for the ${CONTACTS} known contacts)`,
      contacts: 0,
      calls: 0,
      searchesSaved: 0,
    });
    expect(rerun.stderr).toContain('match.prefetch: not paging (0 key(s) the state store does not know');

    emulator.resetCounters(TOKEN);
    ws.write('customers.csv', customersCsv(CONTACTS + 3));
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'new-keys'])).exitCode).toBe(0);
    const counters = emulator.counters(TOKEN).byOperation;
    expect(counters.searchContacts.received).toBe(3);
    expect(counters.createContact.received).toBe(3);
    expect(counters.addTags.received).toBe(3);
    expect(emulator.counters(TOKEN).total.received).toBe(9);
    expect(ws.summary('import', 'new-keys').prefetch).toMatchObject({ used: false, calls: 0 });
    expect(contactsByKey(emulator).size).toBe(CONTACTS + 3);

    emulator.resetCounters(TOKEN);
    expect((await ws.run(['run', 'jobs.yaml', '--full', '--report-dir', 'full'])).exitCode).toBe(0);
    expect(ws.summary('import', 'full').prefetch).toEqual({ used: true, reason: '--full: every key is matched on the platform', contacts: CONTACTS + 3, calls: 51, searchesSaved: CONTACTS + 3 });
    expect(emulator.counters(TOKEN).total.received).toBe(51);
  }, 60_000);

  it('a file of mostly keys the state store does not know pages', async () => {
    const ws = workspace();
    // The state store learns 20 keys; the next file holds all 500, 480 of them unknown to it.
    ws.write('customers.csv', customersCsv(20));
    ws.write('jobs.yaml', jobsYaml({ url: emulator.url, job: SEARCH_JOB }));
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'few'])).exitCode).toBe(0);
    ws.write('customers.csv', customersCsv(CONTACTS));
    ws.write('jobs.yaml', jobsYaml({ url: emulator.url, job: PREFETCH_JOB }));
    emulator.resetCounters(TOKEN);

    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'many'])).exitCode).toBe(0);

    expect(ws.summary('import', 'many').prefetch).toEqual({
      used: true,
      reason: 'more than 2 keys the state store does not know: their searches would cost more than the pages (about 2)',
      contacts: CONTACTS,
      calls: 50,
      searchesSaved: CONTACTS - 20,
    });
    expect(emulator.counters(TOKEN).total.received).toBe(50);
  }, 60_000);

  it('says why there is no state store: a dry run before the first run has none yet; state: false keeps none (issue 41 item 18)', async () => {
    const ws = workspace();
    ws.write('customers.csv', customersCsv(5));
    ws.write('jobs.yaml', jobsYaml({ url: emulator.url, job: PREFETCH_JOB }));
    expect((await ws.run(['run', 'jobs.yaml', '--dry-run', '--report-dir', 'dry'])).exitCode).toBe(0);
    expect(ws.summary('import', 'dry').prefetch).toMatchObject({
      used: true,
      reason: 'no state store yet (a dry run before the first run, which creates it): every key is matched on the platform',
    });

    ws.write('jobs.yaml', jobsYaml({ url: emulator.url, job: PREFETCH_JOB.replace('state: state/import.db', 'state: false') }));
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'stateless'])).exitCode).toBe(0);
    expect(ws.summary('import', 'stateless').prefetch).toMatchObject({
      used: true,
      reason: 'state: false (the job keeps no state store): every key is matched on the platform',
    });
  }, 60_000);
});
