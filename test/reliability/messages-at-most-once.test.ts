/**
 * At-most-once messages: a job that greets the contacts it creates or changes never sends one
 * contact the same message twice, under random faults (sends answered 500, dropped after the
 * platform recorded them, reset) and across a run killed in the middle of its sends, each followed
 * by the same command again. A send whose outcome is unknown is reported `unknown` and not resent.
 */
import { join } from 'node:path';
import type { FaultOptions, RunningEmulator } from '../../src/emulator/index.js';
import { TOKEN, customersCsv, fastEmulator, jobsYaml, workspace } from '../helpers/cli-harness.js';
import { buildCli, startCli, waitUntil, type CliProcess } from '../helpers/cli-process.js';
import { STATE_JOB } from '../helpers/state-fixtures.js';
import { CLEAN, auditPlatform, readReport, type ReportRow } from './support/platform-audit.js';
import { platformQuiet } from './support/quiet-platform.js';
import { reportFigures } from '../helpers/figures.js';

const JOB = `${STATE_JOB}\nmessage: { when: changed, text: "Welcome {{first_name}}" }`;
const WAIT_MS = 15_000;

/** Messages the platform recorded per contact id. */
function messagesPerContact(emulator: RunningEmulator): Map<string, number> {
  const counts = new Map<string, number>();
  for (const message of emulator.messages(TOKEN)) counts.set(message.contactId, (counts.get(message.contactId) ?? 0) + 1);
  return counts;
}

/** Contacts that received the message more than once. */
function twiceMessaged(emulator: RunningEmulator): string[] {
  return [...messagesPerContact(emulator)].filter(([, count]) => count > 1).map(([id]) => id);
}

/** A row reported `sent` reached its contact exactly once; `failed` never did. */
function expectStatusesTrue(emulator: RunningEmulator, rows: readonly ReportRow[]): void {
  const counts = messagesPerContact(emulator);
  expect(rows.filter((row) => row.message_status === 'sent' && counts.get(row.contact_id ?? '') !== 1)).toEqual([]);
  expect(rows.filter((row) => row.message_status === 'failed' && counts.has(row.contact_id ?? ''))).toEqual([]);
}

describe('messages are sent at most once per contact, under faults and kills, across re-runs', () => {
  let emulator: RunningEmulator | undefined;
  const running = new Set<CliProcess>();

  afterEach(async () => {
    for (const cli of running) if (!cli.ended) cli.child.kill('SIGKILL');
    running.clear();
    await emulator?.close();
    emulator = undefined;
  });

  it('300 rows under random faults, then the same command again: no contact messaged twice, unknown sends not resent', async () => {
    const rows = 300;
    // Its 429s ask for no wait (Retry-After: 0): a Retry-After pauses the whole connection, and 15
    // pauses of a second would measure the pause, not the journal.
    const faults: FaultOptions = { serverError: 0.1, rateLimited: 0.05, retryAfterSeconds: 0, createCommitThenDrop: 0.02, sendCommitThenDrop: 0.05, resetConnection: 0.01 };
    const platform = await fastEmulator({ faults, seed: 8 });
    emulator = platform;
    const ws = workspace();
    ws.write('customers.csv', customersCsv(rows));
    ws.write('jobs.yaml', jobsYaml({ url: platform.url, job: `${JOB}\nconcurrency: 32` }));

    await ws.run(['run', 'jobs.yaml', '--report-dir', 'chaos', '--log-level', 'warn']);
    const first = ws.results('import', 'chaos');
    expect(twiceMessaged(platform)).toEqual([]);
    expectStatusesTrue(platform, first);
    const unknown = first.filter((row) => row.message_status === 'unknown');
    expect(unknown.length).toBeGreaterThan(0);

    platform.setFaults({});
    const rerun = await ws.run(['run', 'jobs.yaml', '--report-dir', 'rerun', '--log-level', 'warn']);

    expect(rerun.exitCode).toBe(0);
    expect(twiceMessaged(platform)).toEqual([]);
    const second = new Map(ws.results('import', 'rerun').map((row) => [row.key, row]));
    // Unknown sends are never resent: the contact may have it.
    expect(unknown.filter((row) => second.get(row.key)?.message_status === 'sent')).toEqual([]);
    expect(auditPlatform(platform, rows)).toEqual(CLEAN);
    reportFigures(
      `messages chaos seed 8: rows ${rows}, messages recorded ${platform.messages(TOKEN).length}, sent ${first.filter((r) => r.message_status === 'sent').length}, ` +
        `unknown ${unknown.length} (delivered ${unknown.filter((row) => messagesPerContact(platform).has(row.contact_id ?? '')).length}), contacts messaged twice ${twiceMessaged(platform).length}`,
    );
  }, 180_000);

  it('killed while sends are in flight, then the same command again: no contact messaged twice', async () => {
    await buildCli();
    const rows = 100;
    // Sends wait 30-60 ms before the platform records them: the kill finds some on their way.
    const platform = await fastEmulator({ faults: { latency: { minMs: 30, maxMs: 60 }, operations: ['sendMessage'] }, seed: 9 });
    emulator = platform;
    const ws = workspace();
    ws.write('customers.csv', customersCsv(rows));
    ws.write('jobs.yaml', jobsYaml({ url: platform.url, job: `${JOB}\nconcurrency: 16` }));

    const killed = startCli(['run', 'jobs.yaml', '--report-dir', 'killed', '--log-level', 'warn'], ws.dir);
    running.add(killed);
    await waitUntil(() => platform.counters(TOKEN).byOperation.sendMessage.received >= 20, '20 sends received', WAIT_MS, killed);
    killed.child.kill('SIGKILL');
    const recordedAtKill = platform.messages(TOKEN).length;
    const sendsAtKill = platform.counters(TOKEN).byOperation.sendMessage.received;
    await killed.exited(WAIT_MS);
    expect(recordedAtKill).toBeLessThan(sendsAtKill);
    await platformQuiet(platform, 150);
    expect(twiceMessaged(platform)).toEqual([]);
    readReport(join(ws.dir, 'killed', 'import.results.csv'));

    const rerun = startCli(['run', 'jobs.yaml', '--report-dir', 'rerun', '--log-level', 'warn'], ws.dir);
    running.add(rerun);
    const exit = await rerun.exited(WAIT_MS);

    expect({ ...exit, output: exit.code === 0 ? '' : rerun.output() }).toEqual({ code: 0, signal: null, output: '' });
    expect(twiceMessaged(platform)).toEqual([]);
    expect(auditPlatform(platform, rows)).toEqual(CLEAN);
    // Sends on their way at the kill were delivered and are not resent. A contact whose row was
    // killed between its create and its send is found unchanged by the re-run and greeted all the
    // same: its message was journalled as due before the create.
    reportFigures(
      `messages crash seed 9: rows ${rows}, sends in flight at the kill ${sendsAtKill - recordedAtKill}, messages recorded ${platform.messages(TOKEN).length}, ` +
        `contacts never messaged ${rows - messagesPerContact(platform).size}, contacts messaged twice ${twiceMessaged(platform).length}`,
    );
  }, 60_000);
});
