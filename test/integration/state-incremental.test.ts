import type { RunningEmulator } from '../../src/emulator/index.js';
import { TOKEN, customersCsv, fastEmulator, jobsYaml, workspace, type Workspace } from '../helpers/cli-harness.js';
import { startRecordingProxy, type RecordingProxy } from '../helpers/recording-proxy.js';
import { STATE_JOB, asExpected, contactsByKey, customerKey, expectedCustomer } from '../helpers/state-fixtures.js';

const ROWS = 1000;

/** 5% of the rows: every 40th gets a new email, every 40th shifted by 20 a new plan and a `beta` segment. */
function changed(i: number, cells: string[]): string[] {
  if (i % 40 === 0) return [...cells.slice(0, 3), `changed${i}@example.com`, ...cells.slice(4)];
  if (i % 40 === 20) return [...cells.slice(0, 4), 'enterprise', `${cells[5] ?? ''};beta`];
  return cells;
}

describe('run with a state store: unchanged rows cost no call, changed rows are updated by their known id', () => {
  let emulator: RunningEmulator;
  let proxy: RecordingProxy;
  let ws: Workspace;

  beforeAll(async () => {
    emulator = await fastEmulator();
    proxy = await startRecordingProxy(emulator.url);
    ws = workspace();
    ws.write('customers.csv', customersCsv(ROWS));
    ws.write('jobs.yaml', jobsYaml({ url: proxy.url, job: `${STATE_JOB}\nconcurrency: 32` }));
    const first = await ws.run(['run', 'jobs.yaml', '--report-dir', 'first']);
    if (first.exitCode !== 0) throw new Error(`the first import failed: ${first.stderr}`);
  }, 180_000);

  afterAll(async () => {
    await proxy.close();
    await emulator.close();
  });

  beforeEach(() => {
    emulator.resetCounters(TOKEN);
    proxy.clear();
  });

  it('a re-run of an unchanged 1,000-row file makes no API call at all and reports every row unchanged with its contact', async () => {
    ws.write('customers.csv', customersCsv(ROWS));

    const rerun = await ws.run(['run', 'jobs.yaml', '--report-dir', 'unchanged']);

    expect(rerun.exitCode).toBe(0);
    expect(emulator.counters(TOKEN).total.received).toBe(0);
    expect(proxy.requests).toEqual([]);
    const summary = ws.summary('import', 'unchanged');
    expect(summary.rows).toEqual({ total: ROWS, created: 0, updated: 0, unchanged: ROWS, skipped: 0, failed: 0, notReached: 0 });
    expect(summary.apiCalls.total).toBe(0);
    const results = ws.results('import', 'unchanged');
    expect(results).toHaveLength(ROWS);
    const idByKey = new Map([...contactsByKey(emulator)].map(([key, contacts]) => [key, contacts.map((c) => c.id).join(';')]));
    expect(results.filter((r) => r.outcome !== 'unchanged' || r.api_calls !== '0' || r.contact_id !== idByKey.get(r.key ?? ''))).toEqual([]);
  }, 30_000);

  it('with 5% of the rows changed, only those rows cost calls, no search, and each call sends only what changed', async () => {
    ws.write('customers.csv', customersCsv(ROWS, changed));
    const idByKey = new Map([...contactsByKey(emulator)].map(([key, contacts]) => [key, contacts[0]?.id ?? '']));

    const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'changed']);

    expect(run.exitCode).toBe(0);
    const counters = emulator.counters(TOKEN);
    expect(counters.byOperation.updateContact.received).toBe(50);
    expect(counters.byOperation.addTags.received).toBe(25);
    expect(counters.byOperation.searchContacts.received).toBe(0);
    expect(counters.byOperation.createContact.received).toBe(0);
    expect(counters.byOperation.removeTags.received).toBe(0);
    expect(counters.total.received).toBe(75);

    // Every request names a known contact by id and carries only the changed values.
    const keyById = new Map([...idByKey].map(([key, id]) => [id, key]));
    const sent = proxy.requests.map((request) => {
      const id = /^\/api\/v1\/contact\/(\d+)(\/tags)?$/.exec(request.path)?.[1] ?? '';
      return { method: request.method, key: keyById.get(id), body: request.body };
    });
    const expected = [];
    for (let i = 20; i <= ROWS; i += 20) {
      const key = customerKey(i);
      if (i % 40 === 0) expected.push({ method: 'PUT', key, body: { custom_fields: [{ name: 'email', value: `changed${i}@example.com` }] } });
      else {
        expected.push({ method: 'PUT', key, body: { custom_fields: [{ name: 'plan', value: 'enterprise' }] } });
        expected.push({ method: 'POST', key, body: { tags: ['beta'] } });
      }
    }
    const order = (a: { key?: string | undefined; method: string }, b: { key?: string | undefined; method: string }) =>
      `${a.key ?? ''}${a.method}`.localeCompare(`${b.key ?? ''}${b.method}`);
    expect(sent.sort(order)).toEqual(expected.sort(order));

    const results = new Map(ws.results('import', 'changed').map((r) => [r.key, r]));
    expect(results.size).toBe(ROWS);
    expect(results.get('C0040')).toMatchObject({ outcome: 'updated', fields_changed: 'email', tags_added: '', api_calls: '1', contact_id: idByKey.get('C0040') });
    expect(results.get('C0020')).toMatchObject({ outcome: 'updated', fields_changed: 'plan', tags_added: 'beta', api_calls: '2', contact_id: idByKey.get('C0020') });
    expect([...results.values()].filter((r) => r.outcome === 'unchanged' && r.api_calls === '0')).toHaveLength(ROWS - 50);

    const byKey = contactsByKey(emulator);
    expect(byKey.size).toBe(ROWS);
    expect(asExpected(byKey.get('C0040')?.[0])).toEqual({ ...expectedCustomer(40), fields: { ...expectedCustomer(40).fields, email: 'changed40@example.com' } });
    expect(asExpected(byKey.get('C0060')?.[0])).toEqual({ fields: { ...expectedCustomer(60).fields, plan: 'enterprise' }, tags: ['beta', 'crm', 'newsletter', 'vip'] });
    expect(asExpected(byKey.get('C0041')?.[0])).toEqual(expectedCustomer(41));
  }, 30_000);

  it('after the changed rows were written, the same file again costs no call', async () => {
    ws.write('customers.csv', customersCsv(ROWS, changed));
    await ws.run(['run', 'jobs.yaml', '--report-dir', 'changed-once']);
    emulator.resetCounters(TOKEN);

    const again = await ws.run(['run', 'jobs.yaml', '--report-dir', 'changed-again']);

    expect(again.exitCode).toBe(0);
    expect(emulator.counters(TOKEN).total.received).toBe(0);
    expect(ws.summary('import', 'changed-again').rows.unchanged).toBe(ROWS);
  }, 30_000);
});
