/**
 * Finishing the job on v2 (issue 46), through the real CLI against the emulator: undo deletes what
 * its run created (a contact changed since is kept, a conflict) and undoing that undo creates them
 * again; reconcile merges a key's duplicates and tags the marker set's extras. On v1 the deleting
 * and merging flags exit 2 before any call (the emulator's requests counted).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { StateStore } from '../../src/state/state-store.js';
import { TOKEN, customersCsv, fastEmulator, jobsYaml, workspace } from '../helpers/cli-harness.js';
import { STATE_FILE, STATE_JOB, asExpected, contactIdOf, contactsByKey, editOnPlatform, expectedCustomer } from '../helpers/state-fixtures.js';

const WORKSPACE_TOKEN = 'workspace-token-46a7c1';

function v2Jobs(url: string, job: string): string {
  return jobsYaml({ url, token: WORKSPACE_TOKEN, job, connectionExtra: '    api: v2' });
}

/** Requests both surfaces received (v1's counters and v2's). */
function requests(emulator: RunningEmulator): number {
  return emulator.counters(TOKEN).total.received + emulator.v2Counters().total.received;
}

function undoSummary(ws: ReturnType<typeof workspace>, dir: string): Record<string, unknown> & { runId: string | null; contacts: Record<string, number>; lines: Record<string, number> } {
  return JSON.parse(readFileSync(join(ws.dir, dir, 'import.undo.json'), 'utf8')) as never;
}

describe('undo --delete-created', () => {
  let emulator: RunningEmulator;
  beforeEach(async () => {
    emulator = await fastEmulator({ workspaceTokens: [WORKSPACE_TOKEN], rateLimits: { contacts: { limit: 60_000, periodMs: 60_000 }, messages: { limit: 1000, periodMs: 1000 }, v2: { limit: 1000, periodMs: 1000 } } });
  });
  afterEach(async () => {
    await emulator.close();
  });

  it('deletes the 4 contacts the run created that hold what it wrote, keeps the one edited since (exit 1), and the undo of that undo creates the 4 again with new ids the state knows', async () => {
    const ws = workspace();
    ws.write('customers.csv', customersCsv(5));
    ws.write('jobs.yaml', v2Jobs(emulator.v2Url, STATE_JOB));
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'first'])).exitCode).toBe(0);
    expect(emulator.contacts(TOKEN)).toHaveLength(5);
    const runId = String(ws.summary('import', 'first').runId);
    const oldIds = new Map([1, 2, 3, 4, 5].map((i) => [`C000${i}`, contactIdOf(emulator, `C000${i}`)]));
    await editOnPlatform(emulator, 'PUT', `/v1/contact/${oldIds.get('C0003')}`, { custom_fields: [{ name: 'plan', value: 'agent-set' }] });

    // The dry run lists them and deletes none.
    const dry = await ws.run(['undo', 'jobs.yaml', '--job', 'import', '--run', runId, '--delete-created', '--dry-run', '--report-dir', 'dry']);
    expect(dry.exitCode).toBe(1);
    expect(dry.stdout).toContain('4 contacts the run created would be deleted');
    expect(emulator.contacts(TOKEN)).toHaveLength(5);
    expect(emulator.v2Counters().byEndpoint['DELETE /contact/{identifier}']?.received ?? 0).toBe(0);

    const undo = await ws.run(['undo', 'jobs.yaml', '--job', 'import', '--run', runId, '--delete-created', '--report-dir', 'undo']);

    expect(undo.exitCode).toBe(1);
    expect(emulator.contacts(TOKEN).map((contact) => contact.custom_fields.customerid)).toEqual(['C0003']);
    expect(emulator.v2Counters().byEndpoint['DELETE /contact/{identifier}']?.received).toBe(4);
    const summary = undoSummary(ws, 'undo');
    expect(summary).toMatchObject({ deleteCreated: true, contacts: { total: 5, deleted: 4, conflicts: 1 }, lines: { deleted: 4, conflict: 1, 'tagged-for-deletion': 0 } });
    const lines = parse<Record<string, string>>(readFileSync(join(ws.dir, 'undo', 'import.undo.csv'), 'utf8'), { columns: true });
    expect(lines.map((line) => `${line.key} ${line.action} ${line.outcome}`).sort()).toEqual(['C0001 delete deleted', 'C0002 delete deleted', 'C0003 delete conflict', 'C0004 delete deleted', 'C0005 delete deleted']);
    expect(lines.find((line) => line.key === 'C0003')?.error_message).toBe('changed on the platform since the run (plan is "agent-set", the run wrote "basic"): kept; --force deletes it anyway');
    // The deleted keys are forgotten; the kept one is still known.
    const store = StateStore.open(join(ws.dir, STATE_FILE), { job: 'import', keyField: 'customerid' });
    expect(store.get('C0001')).toBeUndefined();
    expect(store.get('C0003')?.contact.id).toBe(oldIds.get('C0003'));
    const deleteLines = store.changesOfRun(Number(summary.runId));
    store.close();
    expect(deleteLines.map((line) => [line.key, line.operation])).toEqual([['C0001', 'delete'], ['C0002', 'delete'], ['C0004', 'delete'], ['C0005', 'delete']].sort());
    expect(deleteLines.find((line) => line.key === 'C0002')).toMatchObject({ values: { fields: expectedCustomer(2).fields, tags: expect.arrayContaining(expectedCustomer(2).tags) } });

    // Undo of the undo: the 4 created again, new ids, the state knows them.
    const again = await ws.run(['undo', 'jobs.yaml', '--job', 'import', '--run', String(summary.runId), '--report-dir', 'again']);
    expect(again.exitCode).toBe(0);
    const byKey = contactsByKey(emulator);
    expect(byKey.size).toBe(5);
    const reopened = StateStore.open(join(ws.dir, STATE_FILE), { job: 'import', keyField: 'customerid' });
    for (const i of [1, 2, 4, 5]) {
      const key = `C000${i}`;
      const [contact] = byKey.get(key) ?? [];
      expect(asExpected(contact)).toEqual(expectedCustomer(i));
      expect(contact?.id).not.toBe(oldIds.get(key));
      expect(reopened.get(key)?.contact.id).toBe(contact?.id);
    }
    reopened.close();
    expect(undoSummary(ws, 'again')).toMatchObject({ lines: { restored: 4 } });

    // The same file again: every key known as it is, no create.
    const rerun = await ws.run(['run', 'jobs.yaml', '--report-dir', 'rerun']);
    expect(rerun.exitCode).toBe(0);
    expect(ws.summary('import', 'rerun').rows).toMatchObject({ created: 0, failed: 0 });
    expect(contactsByKey(emulator).size).toBe(5);
    expect(emulator.contacts(TOKEN)).toHaveLength(5);
  });

  it('on v1: exit 2 before any call, saying v1 cannot delete and what undo without the flag does', async () => {
    const ws = workspace();
    ws.write('customers.csv', customersCsv(2));
    ws.write('jobs.yaml', jobsYaml({ url: emulator.url, job: STATE_JOB }));
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'first'])).exitCode).toBe(0);
    const runId = String(ws.summary('import', 'first').runId);
    const before = requests(emulator);

    const undo = await ws.run(['undo', 'jobs.yaml', '--job', 'import', '--run', runId, '--delete-created', '--report-dir', 'undo']);

    expect(undo.exitCode).toBe(2);
    expect(undo.stderr).toContain('speaks API v1, which cannot delete a contact');
    expect(undo.stderr).toContain('contact-sync-undone');
    expect(requests(emulator) - before).toBe(0);
    expect(emulator.contacts(TOKEN)).toHaveLength(2);
  });
});
