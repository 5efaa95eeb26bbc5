/**
 * The Authorization header goes to the configured origin only: a server whose search answers link
 * to another origin, and which answers updates with redirects there, gets the next pages asked of
 * the configured origin, and its redirects are not followed (the row fails, naming the origin). A
 * second local server stands for the other origin and records whatever reaches it.
 */
import { TOKEN, fastEmulator, jobsYaml, workspace } from '../helpers/cli-harness.js';
import { byLine, contactWithKey, csvLines } from '../helpers/integration-fixtures.js';
import { startLuringProxy, type LuringProxy } from './support/luring-proxy.js';
import type { RunningEmulator } from '../../src/emulator/index.js';

const JOB = `input: customers.csv
key: { column: customer_id, field: customerid }
fields: { firstName: first_name }
onDuplicate: oldest
state: false`;

describe('the token never reaches another origin, whatever links or redirects a server answers with', () => {
  let emulator: RunningEmulator;
  let proxy: LuringProxy;

  beforeEach(async () => {
    emulator = await fastEmulator();
    proxy = await startLuringProxy(emulator.url);
  });

  afterEach(async () => {
    await proxy.close();
    await emulator.close();
  });

  it('searches page through the configured origin, redirects fail their row naming the other origin, and nothing reaches it', async () => {
    // C1 is held by 12 contacts: its search has 2 pages, and page 1 links to page 2 elsewhere.
    emulator.loadContacts(TOKEN, [
      ...Array.from({ length: 12 }, (_, i) => ({ custom_fields: { customerid: 'C1', firstName: `Old${i}` }, created_at: 1_700_000_000 + i })),
      { custom_fields: { customerid: 'C3', firstName: 'Old' } },
    ]);
    const ws = workspace();
    ws.write('customers.csv', csvLines(['customer_id,first_name', 'C1,Ann', 'C2,Bob', 'C3,Cid']));
    ws.write('jobs.yaml', jobsYaml({ url: proxy.url, job: JOB }));

    const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports', '--log-format', 'json', '--log-level', 'debug']);

    expect(proxy.reachedElsewhere).toEqual([]);
    expect(proxy.received).toContainEqual(expect.stringMatching(/by_custom_field\?name=customerid&value=C1&page=2$/));
    expect(run.exitCode).toBe(1);
    const results = byLine(ws.results('import'));
    expect(results.map((row) => [row.key, row.outcome, row.error_code])).toEqual([
      ['C1', 'failed', 'MALFORMED_RESPONSE'],
      ['C2', 'created', ''],
      ['C3', 'failed', 'MALFORMED_RESPONSE'],
    ]);
    for (const row of results.filter((r) => r.outcome === 'failed')) {
      expect(row.error_message).toContain(`HTTP 307 redirect to ${proxy.elsewhere}, not followed so the token stays with the configured origin`);
    }
    expect(contactWithKey(emulator, 'C2').custom_fields.firstName).toBe('Bob');
    expect(`${run.stdout}${run.stderr}`).not.toContain(TOKEN);
  });
});
