import type { RunningEmulator } from '../../src/emulator/index.js';
import { CUSTOMERS_JOB, TOKEN, customersCsv, fastEmulator, jobsYaml, workspace } from '../helpers/cli-harness.js';

describe('run --shard I/N', () => {
  let emulator: RunningEmulator;
  beforeEach(async () => {
    emulator = await fastEmulator();
  });
  afterEach(async () => {
    await emulator.close();
  });

  it('two shards run side by side apply every row exactly once and report which shard they cover', async () => {
    const ws = workspace();
    // 200 rows, one of them with no key (shard 1 reports it), and key C0007 repeated (one shard takes both rows, and applies the last).
    ws.write('customers.csv', customersCsv(200, (i, cells) => (i === 50 ? ['', ...cells.slice(1)] : i === 60 ? ['C0007', ...cells.slice(1)] : cells)));
    ws.write('jobs.yaml', jobsYaml({ url: emulator.url, job: CUSTOMERS_JOB }));

    const [one, two] = await Promise.all([
      ws.run(['run', 'jobs.yaml', '--shard', '1/2', '--report-dir', 'reports']),
      ws.run(['run', 'jobs.yaml', '--shard', '2/2', '--report-dir', 'reports']),
    ]);

    expect(two.exitCode).toBe(0);
    expect(one.exitCode).toBe(1);
    const rows = [...ws.results('import.shard-1-of-2'), ...ws.results('import.shard-2-of-2')];
    const lines = rows.map((r) => Number(r.line)).sort((a, b) => a - b);
    expect(lines).toEqual(Array.from({ length: 200 }, (_, i) => i + 2));
    expect(ws.results('import.shard-1-of-2').filter((r) => r.outcome === 'failed').map((r) => r.error_code)).toEqual(['KEY_MISSING']);
    const sevens = rows.filter((r) => r.key === 'C0007');
    // onDuplicateRows: last (the default): line 8 gives way to line 61, in the one shard that has both.
    expect(sevens.map((r) => [r.line, r.outcome]).sort()).toEqual([['61', 'created'], ['8', 'skipped']]);

    const contacts = emulator.contacts(TOKEN);
    const keys = contacts.map((c) => c.custom_fields.customerid);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys).toHaveLength(198);
    expect(emulator.counters(TOKEN).byOperation.createContact.received).toBe(198);
    expect(ws.summary('import.shard-1-of-2').shard).toBe('1/2');
    expect(Number(ws.summary('import.shard-2-of-2').rows.total) + Number(ws.summary('import.shard-1-of-2').rows.total)).toBe(200);
  });

  it('refuses a malformed --shard before any call, exit 2', async () => {
    const ws = workspace();
    ws.write('customers.csv', customersCsv(2));
    ws.write('jobs.yaml', jobsYaml({ url: emulator.url, job: CUSTOMERS_JOB }));
    const run = await ws.run(['run', 'jobs.yaml', '--shard', '3/2']);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(/--shard: "3\/2" is not I\/N/);
    expect(emulator.counters(TOKEN).total.received).toBe(0);
  });
});
