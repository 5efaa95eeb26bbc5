/**
 * Unchanged rows settled by their row hash (pipeline/map/row-hash.ts, docs/state.md "Unchanged
 * rows"), against the emulator: a re-run settles a row whose cells and mapping are those of the
 * last confirmed write without mapping it, and gives exactly the report the full decision gives;
 * anything that could make the row do more sends it through the full decision.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunningEmulator } from '../../src/emulator/index.js';
import type { Job } from '../../src/config/job-types.js';
import { runSync, type SyncRun, type RunJobOptions } from '../../src/pipeline/run-job.js';
import { StateStore } from '../../src/state/state-store.js';
import { testClient } from '../api/support/test-client.js';
import { customersCsv, fastEmulator, TOKEN, workspace, type Workspace } from '../helpers/cli-harness.js';
import { columnField, makeJob } from '../helpers/job-factory.js';

const ROWS = 200;

describe('unchanged rows settled by their row hash', () => {
  let emulator: RunningEmulator;
  let ws: Workspace;
  let runs = 0;

  beforeEach(async () => {
    emulator = await fastEmulator();
    ws = workspace();
    ws.write('customers.csv', customersCsv(ROWS));
  });
  afterEach(() => emulator.close());

  function importJob(overrides: Partial<Job> = {}): Job {
    return makeJob({
      name: 'import',
      connection: { ...makeJob().connection, baseUrl: emulator.url, token: TOKEN },
      input: { path: join(ws.dir, 'customers.csv'), delimiter: 'auto', encoding: 'utf-8' },
      fields: [columnField('firstName', 'first_name'), columnField('lastName', 'last_name'), columnField('email', 'email', [{ kind: 'email' }]), columnField('plan', 'plan')],
      tags: { column: 'segments', separator: ';', static: ['crm'], remove: [], prune: false },
      state: join(ws.dir, 'state.db'),
      concurrency: 4,
      ...overrides,
    });
  }

  /** One run of `job` (its own report folder), with the calls it made. */
  async function run(job: Job, options: Partial<RunJobOptions> = {}): Promise<{ run: SyncRun; calls: number; results: Record<string, string>[]; resultsText: string }> {
    emulator.resetCounters(TOKEN);
    const reportDir = `reports-${++runs}`;
    const store = typeof job.state !== 'string' ? undefined : StateStore.open(job.state, { job: job.name, keyField: job.key.field });
    try {
      const done = await runSync({
        job,
        api: testClient({ baseUrl: emulator.url, token: TOKEN }),
        reportDir: join(ws.dir, reportDir),
        dryRun: false,
        productVersion: '1.0.0',
        ...(store === undefined ? {} : { state: store }),
        ...options,
      });
      const resultsText = readFileSync(join(ws.dir, reportDir, `${job.name}.results.csv`), 'utf8');
      return { run: done, calls: emulator.counters(TOKEN).total.received, results: ws.results(job.name, reportDir), resultsText };
    } finally {
      store?.close();
    }
  }

  it('a re-run settles every unchanged row by its hash, with no call and the very report the full decision gives', async () => {
    const job = importJob();
    const first = await run(job);
    expect(first.run.summary.rows).toMatchObject({ created: ROWS, failed: 0 });
    expect(first.run.rowsByRowHash).toBe(0);

    const quick = await run(job);
    expect(quick.calls).toBe(0);
    expect(quick.run.rowsByRowHash).toBe(ROWS);
    expect(quick.run.summary.rows).toMatchObject({ total: ROWS, unchanged: ROWS });
    const createdId = new Map(first.results.map((row) => [row.key, row.contact_id]));
    expect(quick.results.filter((row) => row.outcome !== 'unchanged' || row.contact_id !== createdId.get(row.key) || row.api_calls !== '0')).toEqual([]);

    // Another version of contact-sync may map otherwise: every row is mapped and decided in full,
    // found unchanged by its draft hash, and reported the same, byte for byte.
    const full = await run(job, { productVersion: '1.0.1' });
    expect(full.calls).toBe(0);
    expect(full.run.rowsByRowHash).toBe(0);
    expect(full.resultsText).toBe(quick.resultsText);

    // The full decision noted the new row hashes: the next run settles every row by them again.
    const after = await run(job, { productVersion: '1.0.1' });
    expect([after.calls, after.run.rowsByRowHash]).toEqual([0, ROWS]);
  });

  it('a changed row is mapped and written; the rest are settled by their hash, and next time all of them', async () => {
    const job = importJob();
    await run(job);
    ws.write('customers.csv', customersCsv(ROWS, (i, cells) => (i % 20 === 0 ? [cells[0]!, `Renamed${i}`, ...cells.slice(2)] : cells)));

    const changed = await run(job);
    expect(changed.calls).toBe(10);
    expect(changed.run.summary.rows).toMatchObject({ updated: 10, unchanged: ROWS - 10 });
    expect(changed.run.rowsByRowHash).toBe(ROWS - 10);
    expect(changed.results.filter((row) => row.outcome === 'updated').map((row) => row.fields_changed)).toEqual(Array(10).fill('firstName'));

    const again = await run(job);
    expect([again.calls, again.run.rowsByRowHash]).toEqual([0, ROWS]);
  });

  it('a change of mapping maps every row again: the rows it changes are written, then all are settled by hash', async () => {
    await run(importJob());
    const mapped = importJob({
      fields: [
        columnField('firstName', 'first_name'),
        columnField('lastName', 'last_name'),
        columnField('email', 'email', [{ kind: 'email' }]),
        columnField('plan', 'plan', [{ kind: 'map', map: { pro: 'Pro', basic: 'basic' } }]),
      ],
    });

    const remapped = await run(mapped);
    expect(remapped.run.rowsByRowHash).toBe(0);
    // customersCsv: every even row is on plan "pro", now written "Pro".
    expect(remapped.run.summary.rows).toMatchObject({ updated: ROWS / 2, unchanged: ROWS / 2 });
    expect(remapped.calls).toBe(ROWS / 2);

    const again = await run(mapped);
    expect([again.calls, again.run.rowsByRowHash]).toEqual([0, ROWS]);
  });

  it('a column the job does not map changes: the row is mapped once, found unchanged with no call, and settled by hash after', async () => {
    const job = importJob();
    await run(job);
    // A new column the job does not read: the header differs, so every row is mapped once.
    const withLogin = (stamp: (i: number) => string): string =>
      customersCsv(ROWS)
        .trimEnd()
        .split('\n')
        .map((line, i) => `${line},${i === 0 ? 'last_login' : stamp(i)}`)
        .join('\n') + '\n';
    ws.write('customers.csv', withLogin(() => '2026-11-01'));
    const header = await run(job);
    expect([header.calls, header.run.rowsByRowHash, header.run.summary.rows.unchanged]).toEqual([0, 0, ROWS]);

    // Same header, one row's login date moves: that row alone is mapped, still unchanged.
    ws.write('customers.csv', withLogin((i) => (i === 7 ? '2026-11-24' : '2026-11-01')));
    const one = await run(job);
    expect([one.calls, one.run.rowsByRowHash, one.run.summary.rows.unchanged]).toEqual([0, ROWS - 1, ROWS]);

    const again = await run(job);
    expect([again.calls, again.run.rowsByRowHash]).toEqual([0, ROWS]);
  });

  it('a key on several rows is left to onDuplicateRows, not settled by hash', async () => {
    const job = importJob();
    await run(job);
    const csv = customersCsv(ROWS);
    const firstRow = csv.split('\n')[1]!;
    ws.write('customers.csv', `${csv}${firstRow}\n`);

    const repeated = await run(job);
    expect(repeated.calls).toBe(0);
    expect(repeated.run.rowsByRowHash).toBe(ROWS - 1);
    expect(repeated.results.filter((row) => row.key === 'C0001').map((row) => [row.line, row.outcome])).toEqual([
      ['2', 'skipped'],
      [String(ROWS + 2), 'unchanged'],
    ]);
  });

  it('a key that left and came back is decided in full: the tag its departure added is removed', async () => {
    const job = importJob({ onMissing: { action: 'tag', tags: ['left-crm'], fields: {}, maxSharePercent: 10 } });
    await run(job);
    ws.write('customers.csv', customersCsv(ROWS).split('\n').filter((_line, i) => i < 1 || i > 5).join('\n'));
    const gone = await run(job);
    expect(gone.run.summary.departed).toMatchObject({ missing: 5, failed: 0 });

    ws.write('customers.csv', customersCsv(ROWS));
    const back = await run(job);
    expect(back.run.rowsByRowHash).toBe(ROWS - 5);
    expect(back.calls).toBe(5);
    expect(back.results.filter((row) => row.tags_removed === 'left-crm').map((row) => row.key)).toEqual(['C0001', 'C0002', 'C0003', 'C0004', 'C0005']);
  });

  it('a create left pending is searched, not settled by hash', async () => {
    const job = importJob();
    await run(job);
    const store = StateStore.open(job.state as string, { job: job.name, keyField: job.key.field });
    store.markCreatePending('C0009');
    store.close();

    const pending = await run(job);
    expect(pending.run.rowsByRowHash).toBe(ROWS - 1);
    expect(emulator.counters(TOKEN).byOperation.searchContacts.received).toBe(1);
    expect(pending.results.find((row) => row.key === 'C0009')?.outcome).toBe('unchanged');
  });

  it('a dry run, --full, a message job and mode create never settle by hash', async () => {
    const job = importJob();
    await run(job);

    expect((await run(job, { dryRun: true })).run.rowsByRowHash).toBe(0);
    const full = await run(job, { full: true });
    expect([full.run.rowsByRowHash, full.run.summary.rows.unchanged]).toEqual([0, ROWS]);
    const greeting = await run(importJob({ message: { when: 'created', type: 'text', text: 'Hello', quickReplies: [], forceCancelSurvey: false, repeat: false } }));
    expect([greeting.run.rowsByRowHash, greeting.run.summary.rows.unchanged, greeting.calls]).toEqual([0, ROWS, 0]);
    const create = await run(importJob({ mode: 'create' }));
    expect([create.run.rowsByRowHash, create.run.summary.rows.skipped]).toEqual([0, ROWS]);
  });
});
