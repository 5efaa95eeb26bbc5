/**
 * SIGINT and SIGTERM sent to a real `contact-sync run` process mid-run (cron's timeout, a
 * container stop, Ctrl-C): the job stops taking rows, finishes the rows it took, writes complete
 * reports for them and exits 130 / 143. The same command again then finishes the file.
 * (test/integration/exit-codes.test.ts proves the same in-process, with an emitter for signals.)
 */
import { join } from 'node:path';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { CUSTOMERS_JOB, TOKEN, customersCsv, fastEmulator, jobsYaml, workspace } from '../helpers/cli-harness.js';
import { startCli, useCliChildren, waitUntil } from '../helpers/cli-process.js';
import { STATE_JOB } from '../helpers/state-fixtures.js';
import { CLEAN, auditPlatform, countOutcomes, dataLines, readReport, repeatedLines, reportedLines } from './support/platform-audit.js';

const ROWS = 100;
const WAIT_MS = 15_000;

describe(`${ROWS} rows, a signal mid-run: the rows taken finish, their reports are complete, exit 130 / 143`, () => {
  let emulator: RunningEmulator | undefined;
  const children = useCliChildren();

  afterEach(async () => {
    await emulator?.close();
    emulator = undefined;
  });

  it.each([
    { signal: 'SIGINT', code: 130, state: false },
    { signal: 'SIGTERM', code: 143, state: true },
  ] as const)('$signal (state store: $state): exit $code, every row taken reported once and on the platform, the rest untouched; the same command again finishes the file', async ({ signal, code, state }) => {
    // 10-30 ms per call, 8 rows at a time: the file takes over a second, the signal lands mid-run.
    const platform = await fastEmulator({ faults: { latency: { minMs: 10, maxMs: 30 } }, seed: 7 });
    emulator = platform;
    const ws = workspace();
    ws.write('customers.csv', customersCsv(ROWS));
    ws.write('jobs.yaml', jobsYaml({ url: platform.url, job: `${state ? STATE_JOB : CUSTOMERS_JOB}\nconcurrency: 8` }));

    const cli = startCli(['run', 'jobs.yaml', '--report-dir', 'interrupted'], ws.dir);
    children.track(cli);
    await waitUntil(() => platform.counters(TOKEN).byOperation.addTags.received >= 10, 'ten rows written', WAIT_MS, cli);
    const createsAtSignal = platform.counters(TOKEN).byOperation.createContact.received;
    cli.child.kill(signal);
    const exit = await cli.exited(WAIT_MS);

    expect({ ...exit, output: exit.code === code ? '' : cli.output() }).toEqual({ code, signal: null, output: '' });
    expect(cli.output()).toMatch(/interrupted \(SIG(INT|TERM)\): taking no more rows, finishing those in flight/);
    const results = readReport(join(ws.dir, 'interrupted', 'import.results.csv'));
    const summary = ws.summary('import', 'interrupted');
    expect(summary.interrupted).toBe(signal);
    // summary.json counts what results.csv holds, and the rows the run did not take.
    expect(summary.rows).toEqual({ ...countOutcomes(results), notReached: ROWS - results.length });
    expect(summary.status).toBe('interrupted');
    expect(repeatedLines(results)).toEqual([]);
    // The rows in flight at the signal were finished (none aborted), and no row was taken after it.
    expect(results.length).toBeGreaterThanOrEqual(createsAtSignal);
    expect(results.length).toBeLessThan(ROWS);
    expect(results.filter((row) => row.outcome !== 'created')).toEqual([]);
    expect(readReport(join(ws.dir, 'interrupted', 'import.rejected.csv'))).toEqual([]);
    // The platform holds exactly the rows taken, as the file says; no other row was sent.
    const taken = new Set(results.map((row) => row.key ?? ''));
    expect(auditPlatform(platform, ROWS, taken)).toEqual(CLEAN);
    expect(platform.contacts(TOKEN)).toHaveLength(taken.size);

    const rerun = startCli(['run', 'jobs.yaml', '--report-dir', 'rerun'], ws.dir);
    children.track(rerun);
    const rerunExit = await rerun.exited(WAIT_MS);
    expect({ ...rerunExit, output: rerunExit.code === 0 ? '' : rerun.output() }).toEqual({ code: 0, signal: null, output: '' });
    expect(reportedLines(readReport(join(ws.dir, 'rerun', 'import.results.csv')))).toEqual(dataLines(ROWS));
    expect(auditPlatform(platform, ROWS)).toEqual(CLEAN);
  }, 30_000);
});
