/**
 * Issue 28: the platform matches emails case-insensitively (platform notes), so a search for
 * `ann@example.com` returns the contact holding `ANN@example.com`. That contact is the key's:
 * no duplicate is created, and the job, which lowercases an email key, does not rewrite it on
 * every run (the key field is written only by a create).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { TOKEN, fastEmulator, jobsYaml, workspace } from '../helpers/cli-harness.js';

const EMAIL_JOB = `input: people.csv
key: { column: email, field: email }
fields:
  firstName: first_name
state: false`;

const CSV = 'email,first_name\nAnn@Example.COM,Ann\n';

let emulator: RunningEmulator;
let annId: string;

beforeEach(async () => {
  emulator = await fastEmulator();
  annId = emulator.loadContacts(TOKEN, [{ custom_fields: { email: 'ANN@example.com', firstName: 'Ann' }, tags: [] }])[0]!.id;
});
afterEach(async () => {
  await emulator.close();
});

describe('an email key held on the platform in another case', () => {
  it('is the same contact: found by the search, no duplicate, and no write on this run or the next', async () => {
    const ws = workspace();
    ws.write('people.csv', CSV);
    ws.write('jobs.yaml', jobsYaml({ url: emulator.url, job: EMAIL_JOB }));

    for (const reportDir of ['first', 'second']) {
      emulator.resetCounters(TOKEN);
      const run = await ws.run(['run', 'jobs.yaml', '--report-dir', reportDir]);
      expect(run.exitCode).toBe(0);
      expect(ws.results('import', reportDir)).toEqual([
        expect.objectContaining({ key: 'ann@example.com', outcome: 'unchanged', contact_id: annId, api_calls: '1' }),
      ]);
      expect(emulator.counters(TOKEN).byOperation).toMatchObject({
        searchContacts: expect.objectContaining({ received: 1 }),
        createContact: expect.objectContaining({ received: 0 }),
        updateContact: expect.objectContaining({ received: 0 }),
      });
    }
    expect(emulator.contacts(TOKEN)).toEqual([expect.objectContaining({ id: annId, custom_fields: { email: 'ANN@example.com', firstName: 'Ann' } })]);
  });

  it('with match.prefetch, the index finds it under the lowercase key: no search for the row, and reconcile lists nothing the file lacks', async () => {
    emulator.reset(TOKEN);
    annId = emulator.loadContacts(TOKEN, [{ custom_fields: { email: 'ANN@example.com', firstName: 'Ann', source: 'crm' } }])[0]!.id;
    const job = `${EMAIL_JOB.replace('  firstName: first_name', '  firstName: first_name\n  source: { value: crm }')}\nmatch: { prefetch: { field: source, value: crm } }`;
    const ws = workspace();
    ws.write('people.csv', CSV);
    ws.write('jobs.yaml', jobsYaml({ url: emulator.url, job }));

    const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports']);
    expect(run.exitCode).toBe(0);
    expect(ws.results('import')).toEqual([expect.objectContaining({ outcome: 'unchanged', contact_id: annId, api_calls: '0' })]);
    expect(emulator.counters(TOKEN).byOperation.searchContacts.received).toBe(1);

    const reconcile = await ws.run(['reconcile', 'jobs.yaml', '--report-dir', 'reconcile']);
    expect(reconcile.exitCode).toBe(0);
    const summary = JSON.parse(readFileSync(join(ws.dir, 'reconcile', 'import.reconcile.json'), 'utf8')) as { keys: Record<string, number> };
    expect(summary.keys).toMatchObject({ inFile: 1, same: 1, missing: 0, extra: 0, duplicate: 0 });
  });
});
