/**
 * An exception that is not a row's own failure stops the job with its own code (docs/reports.md,
 * "The reason the job stopped"): a state store that cannot be written is STATE_WRITE_FAILED, a bug
 * is UNEXPECTED. Neither becomes a row's API error, and rows not sent are ABORTED, not failed
 * for a reason of their own.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { runSync } from '../../src/pipeline/run-job.js';
import { StateStore } from '../../src/state/state-store.js';
import { testClient } from '../api/support/test-client.js';
import { customersCsv, fastEmulator, TOKEN, workspace } from '../helpers/cli-harness.js';
import { columnField, makeJob } from '../helpers/job-factory.js';

/** The store, with its row records (`recordConfirmed`, `recordObserved`) throwing `failure()` from the `failAt`th on. */
function failingStore(store: StateStore, failAt: number, failure: () => Error): StateStore {
  let calls = 0;
  return new Proxy(store, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (property === 'recordConfirmed' || property === 'recordObserved') {
        const record = (value as (...a: unknown[]) => void).bind(target);
        return (...args: unknown[]) => {
          calls += 1;
          if (calls >= failAt) throw failure();
          record(...args);
        };
      }
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

describe('an exception that is not the row’s own failure aborts the job', () => {
  let emulator: RunningEmulator;
  beforeEach(async () => {
    emulator = await fastEmulator();
  });
  afterEach(() => emulator.close());

  /**
   * Four rows were recorded; the fifth (line 6) was created, then its record failed: it is reported
   * as what it is, `created`, carrying the abort's code. Rows already in flight finish the same way
   * or, not sent, as ABORTED; no row is labelled with an API code; the job stopped taking rows.
   */
  function expectStoppedAt(results: Record<string, string>[], code: string): void {
    const byLine = new Map(results.map((row) => [row.line, row]));
    expect([2, 3, 4, 5].map((line) => [byLine.get(String(line))?.outcome, byLine.get(String(line))?.error_code])).toEqual(Array(4).fill(['created', '']));
    expect([byLine.get('6')?.outcome, byLine.get('6')?.error_code]).toEqual(['created', code]);
    const later = results.filter((row) => Number(row.line) > 6);
    expect(later.filter((row) => !(row.outcome === 'created' && row.error_code === code) && !(row.outcome === 'failed' && row.error_code === 'ABORTED'))).toEqual([]);
    expect(results.length).toBeLessThan(40);
    // What the report calls created is what the platform holds.
    expect(emulator.contacts(TOKEN).map((contact) => contact.id).sort()).toEqual(results.filter((row) => row.outcome === 'created').map((row) => row.contact_id).sort());
  }

  async function runWith(failure: () => Error) {
    const ws = workspace();
    ws.write('customers.csv', customersCsv(40));
    const input = join(ws.dir, 'customers.csv');
    const statePath = join(ws.dir, 'state.db');
    const job = makeJob({
      name: 'import',
      connection: { ...makeJob().connection, baseUrl: emulator.url, token: TOKEN },
      input: { path: input, delimiter: 'auto', encoding: 'utf-8' },
      fields: [columnField('email', 'email')],
      state: statePath,
      concurrency: 1,
    });
    const store = StateStore.open(statePath, { job: 'import', keyField: 'customerid' });
    try {
      const run = await runSync({
        job,
        api: testClient({ baseUrl: emulator.url, token: TOKEN }),
        reportDir: join(ws.dir, 'reports'),
        dryRun: false,
        state: failingStore(store, 5, failure),
      });
      return { run, results: ws.results('import') };
    } finally {
      store.close();
    }
  }

  it('a state store that cannot be written (SQLITE_FULL) stops the job: STATE_WRITE_FAILED, exit 3', async () => {
    const { run, results } = await runWith(() => new Database.SqliteError('database or disk is full', 'SQLITE_FULL'));

    expect(run.exitCode).toBe(3);
    expect(run.summary.aborted?.code).toBe('STATE_WRITE_FAILED');
    expect(run.summary.aborted?.message).toMatch(/state store .*state\.db could not be written at line 6 \(database or disk is full\); free space/);
    expectStoppedAt(results, 'STATE_WRITE_FAILED');
  });

  it('a bug (a plain Error) stops the job: UNEXPECTED, exit 3, the message kept', async () => {
    const { run, results } = await runWith(() => new TypeError("Cannot read properties of undefined (reading 'id')"));

    expect(run.exitCode).toBe(3);
    expect(run.summary.aborted?.code).toBe('UNEXPECTED');
    expect(run.summary.aborted?.message).toMatch(/unexpected error stopped the job at line 6: Cannot read properties of undefined \(reading 'id'\); please report it/);
    expectStoppedAt(results, 'UNEXPECTED');
  });
});
