/**
 * undo as a kind of the run engine (issue 35; it had no test of its own): the engine's one stop
 * policy and one abort rule, on an undo against the emulator (port 0). A run created three
 * contacts and a second run changed their first names; the second is undone.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import type { RunningEmulator } from '../../../src/emulator/index.js';
import { runReconcile, runSync } from '../../../src/pipeline/run-job.js';
import { runUndo } from '../../../src/pipeline/undo/run-undo.js';
import { UNDONE_TAG } from '../../../src/pipeline/undo/undo-plan.js';
import { StateStore } from '../../../src/state/state-store.js';
import { testClient } from '../../api/support/test-client.js';
import { customersCsv, fastEmulator, TOKEN, workspace, type Workspace } from '../../helpers/cli-harness.js';
import { emulatorJob } from '../../helpers/job-factory.js';
import type { Job } from '../../../src/config/job-types.js';

describe('runUndo', () => {
  let emulator: RunningEmulator;
  let ws: Workspace;
  let state: StateStore;

  beforeEach(async () => {
    emulator = await fastEmulator();
    ws = workspace();
  });

  afterEach(async () => {
    state.close();
    await emulator.close();
  });

  /** The job, its store, and the id of the run to undo (it changed the three contacts' first names). */
  async function twoRuns(beforeSecond?: (job: Job) => Promise<void>) {
    const job = emulatorJob(emulator.url, TOKEN, ws.dir);
    state = StateStore.open(job.state as string, { job: job.name, keyField: job.key.field });
    ws.write('customers.csv', customersCsv(3));
    const first = await runSync({ job, api: testClient({ baseUrl: emulator.url, token: TOKEN }), reportDir: join(ws.dir, 'first'), dryRun: false, state });
    ws.write('customers.csv', customersCsv(3, (_i, cells) => [cells[0]!, `New${cells[1]!}`, ...cells.slice(2)]));
    await beforeSecond?.(job);
    const second = await runSync({ job, api: testClient({ baseUrl: emulator.url, token: TOKEN }), reportDir: join(ws.dir, 'second'), dryRun: false, state });
    expect(second.summary.rows.updated).toBe(3);
    return { job, runId: Number(second.summary.runId), firstRunId: Number(first.summary.runId) };
  }

  const firstNames = (): string[] => emulator.contacts(TOKEN).map((contact) => contact.custom_fields.firstName ?? '').sort();

  it('leaves what the run wrote unread as unverified (exit 1), and puts it back with --force (exit 0)', async () => {
    const { job, runId } = await twoRuns();
    // The second run wrote by what the state store knew, without reading the contacts.
    const careful = await runUndo({ job, api: testClient({ baseUrl: emulator.url, token: TOKEN }), state, runId, reportDir: join(ws.dir, 'undo'), dryRun: true });
    expect([careful.summary.status, careful.exitCode, careful.summary.lines.unverified]).toEqual(['completed', 1, 3]);
    const forced = await runUndo({ job, api: testClient({ baseUrl: emulator.url, token: TOKEN }), state, runId, reportDir: join(ws.dir, 'undo'), force: true });
    expect([forced.summary.status, forced.exitCode, forced.summary.lines.restored, forced.summary.contacts.notReached]).toEqual(['completed', 0, 3, 0]);
    expect(firstNames()).toEqual(['First1', 'First2', 'First3']);
  });

  it('a run right after a reconcile writes what the reconcile read: its undo puts everything back without --force (issue 41 item 11)', async () => {
    const reconcile = async (job: Job): Promise<void> => {
      const read = await runReconcile({ job, api: testClient({ baseUrl: emulator.url, token: TOKEN }), reportDir: join(ws.dir, 'reconcile'), dryRun: false, state, argv: 'reconcile jobs.yaml --job import' });
      expect(read.reconcile?.keys).toMatchObject({ differs: 3 });
    };
    const { job, runId } = await twoRuns(reconcile);
    expect(state.changesOfRun(runId).every((line) => line.beforeRead)).toBe(true);
    const undo = await runUndo({ job, api: testClient({ baseUrl: emulator.url, token: TOKEN }), state, runId, reportDir: join(ws.dir, 'undo') });
    expect([undo.summary.status, undo.exitCode, undo.summary.lines.restored, undo.summary.lines.unverified]).toEqual(['completed', 0, 3, 0]);
    expect(firstNames()).toEqual(['First1', 'First2', 'First3']);
  });

  it('a re-run right after an undo writes what the undo read: its undo needs no --force either (issue 41 item 11)', async () => {
    const { job, runId } = await twoRuns();
    await runUndo({ job, api: testClient({ baseUrl: emulator.url, token: TOKEN }), state, runId, reportDir: join(ws.dir, 'undo'), force: true });
    const again = await runSync({ job, api: testClient({ baseUrl: emulator.url, token: TOKEN }), reportDir: join(ws.dir, 'again'), dryRun: false, state });
    expect(again.summary.rows.updated).toBe(3);
    const undo = await runUndo({ job, api: testClient({ baseUrl: emulator.url, token: TOKEN }), state, runId: Number(again.summary.runId), reportDir: join(ws.dir, 'undo-again') });
    expect([undo.summary.status, undo.exitCode, undo.summary.lines.restored, undo.summary.lines.unverified]).toEqual(['completed', 0, 3, 0]);
    expect(firstNames()).toEqual(['First1', 'First2', 'First3']);
  });

  it('undoing an undo takes the tag for deletion off the created contacts with one call each and no read (issue 41 item 12)', async () => {
    const { job, firstRunId } = await twoRuns();
    const undo = await runUndo({ job, api: testClient({ baseUrl: emulator.url, token: TOKEN }), state, runId: firstRunId, reportDir: join(ws.dir, 'undo') });
    expect(undo.summary.lines['tagged-for-deletion']).toBe(3);
    const tagged = (): number => emulator.contacts(TOKEN).filter((contact) => contact.tags.includes(UNDONE_TAG)).length;
    expect(tagged()).toBe(3);
    const api = testClient({ baseUrl: emulator.url, token: TOKEN });
    const back = await runUndo({ job, api, state, runId: Number(undo.summary.runId), reportDir: join(ws.dir, 'undo-undo') });
    expect([back.exitCode, back.summary.lines.restored, api.stats.total(), back.summary.apiCalls.byOperation.removeTags, back.summary.apiCalls.byOperation.getContact]).toEqual([0, 3, 3, 3, 0]);
    expect(tagged()).toBe(0);
    // Undone twice: the store knows the tag is gone; nothing is called.
    const twice = testClient({ baseUrl: emulator.url, token: TOKEN });
    const again = await runUndo({ job, api: twice, state, runId: Number(undo.summary.runId), reportDir: join(ws.dir, 'undo-undo-again') });
    expect([again.exitCode, again.summary.lines.unchanged, twice.stats.total()]).toEqual([0, 3, 0]);
  });

  it('--max-duration already past: no contact taken, every one not reached, status deadline, exit 4', async () => {
    const { job, runId } = await twoRuns();
    const api = testClient({ baseUrl: emulator.url, token: TOKEN });
    // A clock of the test's: the deadline is behind it, whatever the machine's load.
    const undo = await runUndo({ job, api, state, runId, reportDir: join(ws.dir, 'undo'), deadline: 1_000, now: () => new Date(2_000) });
    expect([undo.summary.status, undo.exitCode, undo.summary.contacts.notReached, api.stats.total()]).toEqual(['deadline', 4, 3, 0]);
    expect(firstNames()).toEqual(['NewFirst1', 'NewFirst2', 'NewFirst3']);
  });

  it('a refused token aborts it (exit 3): the contacts queued behind are not sent, and nothing is written', async () => {
    const { job, runId } = await twoRuns();
    const undo = await runUndo({ job, api: testClient({ baseUrl: emulator.url, token: 'not-the-token' }), state, runId, reportDir: join(ws.dir, 'undo') });
    expect([undo.summary.status, undo.exitCode, undo.summary.aborted?.code]).toEqual(['aborted', 3, 'INVALID_TOKEN']);
    const lines = parse<Record<string, string>>(readFileSync(join(ws.dir, 'undo', 'import.undo.csv'), 'utf8'), { columns: true });
    const codes = lines.map((line) => line.error_code);
    // The first contact met the 401; the others were queued behind it (not sent) or not reached.
    expect(codes[0]).toBe('INVALID_TOKEN');
    expect([codes.slice(1).every((code) => code === 'ABORTED'), codes.length - 1 + undo.summary.contacts.notReached]).toEqual([true, 2]);
    expect(firstNames()).toEqual(['NewFirst1', 'NewFirst2', 'NewFirst3']);
  });
});
