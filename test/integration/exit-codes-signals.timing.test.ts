/**
 * A signal landing mid-run, in-process (an emitter stands in for the process's signals): exit
 * 130 / 143 after the rows taken are finished and reported. In the in-band timing project: the
 * signal must land while rows are in flight, which takes real time.
 */
import { EventEmitter } from 'node:events';
import { CUSTOMERS_JOB, TOKEN, customersCsv, jobsYaml, workspace } from '../helpers/cli-harness.js';
import { emulatorPerTest, waitFor } from '../helpers/integration-fixtures.js';

describe('run: interrupted by a signal', () => {
  // 20 ms per call and 2 rows at a time: 30 rows take well over a second, so the signal lands mid-run.
  const emulator = emulatorPerTest({ faults: { latency: { minMs: 20, maxMs: 20 } } });

  async function interrupt(signal: 'SIGINT' | 'SIGTERM') {
    const ws = workspace();
    ws.write('customers.csv', customersCsv(30));
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: `${CUSTOMERS_JOB}\nconcurrency: 2` }));
    const signals = new EventEmitter();
    const running = ws.run(['run', 'jobs.yaml', '--report-dir', 'reports'], { signals });
    await waitFor(() => emulator().counters(TOKEN).byOperation.addTags.received >= 3, 'three rows done');
    signals.emit(signal);
    const run = await running;
    return { ws, run };
  }

  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)('%s: exit %i after the rows taken are finished and reported, with parseable reports', async (signal, code) => {
    const { ws, run } = await interrupt(signal);

    expect(run.exitCode).toBe(code);
    const summary = ws.summary('import');
    expect(summary.interrupted).toBe(signal);
    const results = ws.results('import');
    expect(results.length).toBeGreaterThanOrEqual(3);
    expect(results.length).toBeLessThan(30);
    expect(results).toHaveLength(summary.rows.total!);
    // Rows in flight were finished, not dropped: every row taken was created, and only those.
    expect(results.filter((r) => r.outcome !== 'created' || r.contact_id === '')).toEqual([]);
    const stored = emulator().contacts(TOKEN);
    expect(stored.map((c) => c.custom_fields.customerid).sort()).toEqual(results.map((r) => r.key).sort());
    expect(stored.filter((c) => !c.tags.includes('crm'))).toEqual([]);
    expect(ws.rejected('import')).toEqual([]);
  });
});
