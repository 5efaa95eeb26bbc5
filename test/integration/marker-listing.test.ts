/**
 * Listing the marked contacts (match.prefetch, reconcile) against the emulator (issue 34, point
 * 10): the list is bounded by the pages its first page announces, not by `timeouts.maxPages`, which
 * caps one key's search; a list that grows past its cap stops the job with PAGE_LIMIT and every
 * report written.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'node-html-parser';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { TOKEN, customersCsv, fastEmulator, jobsYaml, workspace } from '../helpers/cli-harness.js';
import { startRecordingProxy, type RecordingProxy } from '../helpers/recording-proxy.js';
import { STATE_JOB, expectedCustomer } from '../helpers/state-fixtures.js';

const PREFETCH_JOB = `${STATE_JOB.replace('  plan: plan\n', '  plan: plan\n  source: { value: crm }\n')}
match: { prefetch: { field: source, value: crm } }`;
/** One key's search may read 2 pages: the lists below are longer. */
const SMALL_SEARCH_CAP = '    timeouts: { maxPages: 2 }';

let emulator: RunningEmulator;
let proxy: RecordingProxy | undefined;

beforeEach(async () => {
  emulator = await fastEmulator();
});

afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
  await emulator.close();
});

function seedCustomers(from: number, to: number): void {
  const seeds = [];
  for (let i = from; i <= to; i++) {
    const expected = expectedCustomer(i);
    seeds.push({ custom_fields: { ...expected.fields, source: 'crm' }, tags: expected.tags });
  }
  emulator.loadContacts(TOKEN, seeds);
}

describe('a marker listing goes past the search cap (timeouts.maxPages)', () => {
  it('run and reconcile list 35 marked contacts in 4 pages with maxPages 2, and match every row from the list', async () => {
    seedCustomers(1, 35);
    const ws = workspace();
    ws.write('customers.csv', customersCsv(35));
    ws.write('jobs.yaml', jobsYaml({ url: emulator.url, job: PREFETCH_JOB, connectionExtra: SMALL_SEARCH_CAP }));

    const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports']);

    expect(run.exitCode).toBe(0);
    expect(emulator.counters(TOKEN).byOperation.searchContacts.received).toBe(4);
    expect(emulator.counters(TOKEN).total.received).toBe(4);
    const summary = ws.summary('import');
    expect(summary.prefetch).toMatchObject({ used: true, contacts: 35, calls: 4, searchesSaved: 35 });
    expect(summary.rows).toMatchObject({ total: 35, unchanged: 35, failed: 0, notReached: 0 });

    emulator.resetCounters(TOKEN);
    const reconcile = await ws.run(['reconcile', 'jobs.yaml', '--report-dir', 'reconcile']);

    expect(reconcile.exitCode).toBe(0);
    expect(emulator.counters(TOKEN).byOperation.searchContacts.received).toBe(4);
    const json = JSON.parse(readFileSync(join(ws.dir, 'reconcile', 'import.reconcile.json'), 'utf8')) as { keys: Record<string, number>; extra: { listed: boolean } };
    expect(json.keys).toMatchObject({ inFile: 35, same: 35, differs: 0, missing: 0, extra: 0 });
    expect(json.extra.listed).toBe(true);
  });
});

describe('a marker listing that grows past its cap', () => {
  it('stops the job with PAGE_LIMIT after twice the pages announced plus 10, takes no row and writes every report', async () => {
    seedCustomers(1, 5);
    let added = 5;
    // Ten marked contacts are added as each page is asked for: the list never ends.
    proxy = await startRecordingProxy(emulator.url, {
      beforeForward: (path) => {
        if (!path.includes('by_custom_field') || !path.includes('name=source')) return;
        seedCustomers(added + 1, added + 10);
        added += 10;
      },
    });
    const ws = workspace();
    ws.write('customers.csv', customersCsv(5));
    ws.write('jobs.yaml', jobsYaml({ url: proxy.url, job: PREFETCH_JOB, connectionExtra: SMALL_SEARCH_CAP }));

    const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports']);

    expect(run.exitCode).toBe(3);
    // Page 1 announced 2 pages (15 contacts): the cap is 2 x 2 + 10 = 14 pages.
    expect(emulator.counters(TOKEN).byOperation.searchContacts.received).toBe(14);
    expect(emulator.counters(TOKEN).total.received).toBe(14);
    const summary = ws.summary('import');
    expect(summary.status).toBe('aborted');
    expect(summary.aborted).toMatchObject({ code: 'PAGE_LIMIT' });
    expect((summary.aborted as { message: string }).message).toContain('the list of the contacts with source=crm announced 2 pages on its first page and grew to 15');
    expect(summary.rows).toMatchObject({ total: 0, notReached: 5 });
    expect(summary.prefetch).toMatchObject({ used: false, calls: 14 });
    expect(ws.results('import')).toEqual([]);
    const page = parse(readFileSync(join(ws.dir, 'reports', 'import.report.html'), 'utf8'));
    expect(page.querySelector('#stopped')?.text).toBe(
      'Stopped by PAGE_LIMIT: 5 rows of the input were not reached; fix what stopped it (its message is above), then run the same command again to go on: the rows already written settle with no call.',
    );
    expect(run.stderr + run.stdout).toContain('PAGE_LIMIT');
  });
});
