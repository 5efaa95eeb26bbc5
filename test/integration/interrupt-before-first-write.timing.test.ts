/**
 * A signal before the first write ends the reading that comes first: the listing of
 * `match.prefetch` (50 pages of a 500-contact job) and the guards' first read of the keys the
 * state does not know (`guards.maxChange`, up to 100 searches) ask for no further page or key once
 * SIGINT or SIGTERM arrived. The run then takes no row and writes nothing, exits with the signal's
 * code and writes every report, instead of reading to the end (minutes at v1's rate) and being cut
 * by the hard stop with its reports unwritten.
 *
 * Each page or search is held 100 ms by the emulator so that the signal lands mid-reading: real
 * time, so in the in-band timing project; the assertions are counts.
 */
import { EventEmitter } from 'node:events';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { TOKEN, customersCsv, fastEmulator, jobsYaml, workspace, type CliRun } from '../helpers/cli-harness.js';
import { waitUntil } from '../helpers/cli-process.js';
import { STATE_JOB, expectedCustomer } from '../helpers/state-fixtures.js';

const CONTACTS = 500;
const WAIT_MS = 20_000;

let emulator: RunningEmulator;

beforeEach(async () => {
  emulator = await fastEmulator();
  emulator.loadContacts(
    TOKEN,
    Array.from({ length: CONTACTS }, (_, index) => {
      const expected = expectedCustomer(index + 1);
      return { custom_fields: { ...expected.fields, source: 'crm' }, tags: expected.tags };
    }),
  );
  // Every read is slow enough for a signal to land in the middle of the reading.
  emulator.setFaults({ latency: { minMs: 100, maxMs: 100 }, operations: ['searchContacts'] });
});

afterEach(async () => {
  await emulator.close();
});

const searches = (): number => emulator.counters(TOKEN).byOperation.searchContacts.received;
const total = (): number => emulator.counters(TOKEN).total.received;

/** Runs `jobs.yaml` in process and sends `signal` once the platform received `after` searches. */
async function interruptedRun(job: string, signal: 'SIGINT' | 'SIGTERM', after: number): Promise<{ run: CliRun; ws: ReturnType<typeof workspace> }> {
  const ws = workspace();
  ws.write('customers.csv', customersCsv(CONTACTS));
  ws.write('jobs.yaml', jobsYaml({ url: emulator.url, job }));
  const signals = new EventEmitter();
  const running = ws.run(['run', 'jobs.yaml', '--report-dir', 'reports'], { signals });
  let ended = false;
  void running.finally(() => (ended = true));
  await waitUntil(() => ended || searches() >= after, `${after} searches were received`, WAIT_MS);
  signals.emit(signal);
  return { run: await running, ws };
}

describe('a signal before the first write', () => {
  it('SIGINT while match.prefetch lists the contacts: no further page, no row taken, exit 130, every report written', async () => {
    const job = `${STATE_JOB.replace('  plan: plan\n', '  plan: plan\n  source: { value: crm }\n')}\nmatch: { prefetch: { field: source, value: crm } }`;

    const { run, ws } = await interruptedRun(job, 'SIGINT', 2);

    expect(run.exitCode).toBe(130);
    // The pages asked for before the signal landed and the one in flight (a few more on a busy machine): far from the 50.
    expect(searches()).toBeLessThanOrEqual(10);
    expect(total()).toBe(searches());
    const summary = ws.summary('import', 'reports');
    expect(summary.rows).toMatchObject({ created: 0, updated: 0, unchanged: 0, failed: 0, notReached: CONTACTS });
    expect(summary.prefetch).toMatchObject({ used: false, contacts: 0, calls: searches() });
    expect((summary.prefetch as { reason?: string } | undefined)?.reason).toContain('the listing was interrupted (SIGINT)');
    // No row was taken: results.csv has none (a row not reached is counted, not listed).
    expect(ws.results('import', 'reports')).toEqual([]);
  });

  it('SIGTERM while guards.maxChange reads the keys the state does not know: no further key, nothing judged or written, exit 143', async () => {
    const job = `${STATE_JOB}\nguards: { maxChange: 50% }\nconcurrency: 1`;

    const { run, ws } = await interruptedRun(job, 'SIGTERM', 2);

    expect(run.exitCode).toBe(143);
    // Not refused (exit 2) on a part of the facts, and far from the 100 keys the read would take.
    expect(run.stderr).not.toContain('refused by its guards');
    expect(searches()).toBeLessThanOrEqual(10);
    expect(total()).toBe(searches());
    expect(ws.summary('import', 'reports').rows).toMatchObject({ created: 0, updated: 0, unchanged: 0, failed: 0, notReached: CONTACTS });
  });
});
