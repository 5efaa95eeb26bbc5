/**
 * Issue 42 item 1: an answer to a read of a key is checked against the key. A server (or proxy)
 * that ignores the search's filter answers with another customer's contact; that contact is not
 * the row's: the row fails with MATCH_KEY_MISMATCH, nothing is written, and the state store does
 * not record the key. The proxy here rewrites the filter of the search of C0002 to C0001.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { StateStore } from '../../src/state/state-store.js';
import { TOKEN, customersCsv, fastEmulator, jobsYaml, workspace } from '../helpers/cli-harness.js';
import { startRecordingProxy, type RecordingProxy } from '../helpers/recording-proxy.js';
import { STATE_FILE, STATE_JOB, expectedCustomer } from '../helpers/state-fixtures.js';

const WORKSPACE_TOKEN = 'workspace-token-42a1c9';

let emulator: RunningEmulator;
let proxy: RecordingProxy | undefined;
let firstId: string;

beforeEach(async () => {
  emulator = await fastEmulator({
    workspaceTokens: [WORKSPACE_TOKEN],
    rateLimits: { contacts: { limit: 60_000, periodMs: 60_000 }, messages: { limit: 1000, periodMs: 1000 }, v2: { limit: 1000, periodMs: 1000 } },
  });
  const first = expectedCustomer(1);
  firstId = emulator.loadContacts(TOKEN, [{ custom_fields: first.fields, tags: first.tags }])[0]!.id;
});
afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
  await emulator.close();
});

/** The state store's record of `key` after the runs. */
function stored(dir: string, key: string): unknown {
  const store = StateStore.open(join(dir, STATE_FILE), { job: 'import', keyField: 'customerid' });
  try {
    return store.get(key);
  } finally {
    store.close();
  }
}

function expectFirstUntouched(): void {
  const contacts = emulator.contacts(TOKEN);
  expect(contacts).toHaveLength(1);
  expect(contacts[0]).toMatchObject({ id: firstId, custom_fields: expectedCustomer(1).fields });
}

describe('a read of a key answered with another key\'s contact', () => {
  it('v1: the search of C0002 answered with C0001\'s contact fails the row, writes nothing and leaves the key unknown', async () => {
    proxy = await startRecordingProxy(emulator.url, { rewrite: (_method, path, body) => ({ path: path.replace('value=C0002', 'value=C0001'), body }) });
    const ws = workspace();
    ws.write('customers.csv', customersCsv(2));
    ws.write('jobs.yaml', jobsYaml({ url: proxy.url, job: STATE_JOB }));

    const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports']);

    expect(run.exitCode).toBe(1);
    const [one, two] = ws.results('import');
    expect(one).toMatchObject({ key: 'C0001', outcome: 'unchanged', contact_id: firstId });
    expect(two).toMatchObject({ key: 'C0002', outcome: 'failed', error_code: 'MATCH_KEY_MISMATCH', contact_id: '' });
    expect(two?.error_message).toContain(`customerid="C0002" with contact ${firstId}, whose customerid is "C0001"`);
    expectFirstUntouched();
    expect(emulator.counters(TOKEN).byOperation.updateContact.received).toBe(0);
    expect(stored(ws.dir, 'C0002')).toBeUndefined();

    // reconcile's read of the key is checked too: the row fails, the store records nothing of it.
    const reconcile = await ws.run(['reconcile', 'jobs.yaml', '--report-dir', 'reconcile']);
    expect(reconcile.exitCode).toBe(1);
    const diff = parse<Record<string, string>>(readFileSync(join(ws.dir, 'reconcile', 'import.diff.csv'), 'utf8'), { columns: true });
    expect(diff).toEqual([expect.objectContaining({ key: 'C0002', error_code: 'MATCH_KEY_MISMATCH' })]);
    expect(stored(ws.dir, 'C0002')).toBeUndefined();
  });

  it('v2: the list filtered on C0002 answered with C0001\'s contact fails the row; nothing is written', async () => {
    proxy = await startRecordingProxy(emulator.v2Url, { rewrite: (_method, path, body) => ({ path, body: body.replace('"value":"C0002"', '"value":"C0001"') }) });
    const ws = workspace();
    ws.write('customers.csv', customersCsv(2));
    ws.write('jobs.yaml', jobsYaml({ url: proxy.url, token: WORKSPACE_TOKEN, job: STATE_JOB, connectionExtra: '    api: v2' }));

    const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports']);

    expect(run.exitCode).toBe(1);
    expect(ws.results('import')).toEqual([
      expect.objectContaining({ key: 'C0001', outcome: 'unchanged', contact_id: firstId }),
      expect.objectContaining({ key: 'C0002', outcome: 'failed', error_code: 'MATCH_KEY_MISMATCH' }),
    ]);
    expectFirstUntouched();
    expect(stored(ws.dir, 'C0002')).toBeUndefined();
  });

  it('v2: the direct read of an email key answered with another email\'s contact fails the row; nothing is written', async () => {
    proxy = await startRecordingProxy(emulator.v2Url, {
      rewrite: (method, path, body) => ({ path: method === 'GET' ? path.replace('email:new%40example.com', 'email:user1%40example.com') : path, body }),
    });
    const ws = workspace();
    ws.write('people.csv', 'email,first_name\nNew@Example.com,Bob\n');
    const job = 'input: people.csv\nkey: { column: email, field: email }\nfields:\n  firstName: first_name\nstate: state/import.db';
    ws.write('jobs.yaml', jobsYaml({ url: proxy.url, token: WORKSPACE_TOKEN, job, connectionExtra: '    api: v2' }));

    const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports']);

    expect(run.exitCode).toBe(1);
    expect(ws.results('import')).toEqual([expect.objectContaining({ key: 'new@example.com', outcome: 'failed', error_code: 'MATCH_KEY_MISMATCH', api_calls: '1' })]);
    expectFirstUntouched();
  });
});
