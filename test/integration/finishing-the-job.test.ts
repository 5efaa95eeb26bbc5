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

    // history shows each deletion with the values it keeps.
    const history = await ws.run(['history', 'jobs.yaml', '--job', 'import', '--run', String(summary.runId)]);
    expect(history.exitCode).toBe(0);
    expect(history.stdout).toMatch(/C0002 \d+ delete: .*plan "pro"; tags "newsletter", "crm"/);

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

/** diff.csv of a reconcile, by column. */
function diffLines(ws: ReturnType<typeof workspace>, dir: string): Array<Record<string, string>> {
  return parse<Record<string, string>>(readFileSync(join(ws.dir, dir, 'import.diff.csv'), 'utf8'), { columns: true, bom: true });
}

function reconcileJson(ws: ReturnType<typeof workspace>, dir: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(ws.dir, dir, 'import.reconcile.json'), 'utf8')) as Record<string, unknown>;
}

const MARKED_JOB = `${STATE_JOB.replace('  plan: plan\n', '  plan: plan\n  source: { value: crm }\n')}\nmatch: { prefetch: { field: source, value: crm } }`;

describe('reconcile --merge-duplicates and --tag-extras', () => {
  let emulator: RunningEmulator;
  beforeEach(async () => {
    emulator = await fastEmulator({ workspaceTokens: [WORKSPACE_TOKEN], rateLimits: { contacts: { limit: 60_000, periodMs: 60_000 }, messages: { limit: 1000, periodMs: 1000 }, v2: { limit: 1000, periodMs: 1000 } } });
  });
  afterEach(async () => {
    await emulator.close();
  });

  /** Customers 1..3 on the platform: C0001 held by 2 contacts, C0002 by 3, C0003 by one; 2 marked contacts the file lacks. */
  function seed(): void {
    const at = 1_700_000_000;
    emulator.loadContacts(TOKEN, [
      { custom_fields: { customerid: 'C0001', firstName: 'Old1', plan: 'basic', source: 'crm' }, tags: ['crm', 'a'], created_at: at },
      { custom_fields: { customerid: 'C0001', firstName: 'Dup1', email: 'user1@example.com', source: 'crm' }, tags: ['b'], created_at: at + 10 },
      { custom_fields: { customerid: 'C0002', firstName: 'Old2', source: 'crm' }, tags: ['x'], created_at: at + 1 },
      { custom_fields: { customerid: 'C0002', firstName: 'Dup2', source: 'crm' }, tags: ['y'], created_at: at + 20 },
      { custom_fields: { customerid: 'C0002', firstName: 'Third2', source: 'crm' }, tags: ['z', 'x'], created_at: at + 30 },
      { custom_fields: { ...expectedCustomer(3).fields, source: 'crm' }, tags: expectedCustomer(3).tags, created_at: at + 2 },
      { custom_fields: { customerid: 'C0098', firstName: 'Gone98', source: 'crm' }, tags: ['crm'], created_at: at + 3 },
      { custom_fields: { customerid: 'C0099', firstName: 'Gone99', source: 'crm' }, tags: ['crm', 'not-in-crm'], created_at: at + 4 },
    ]);
  }

  it('merges a key held by 2 and one held by 3 into one contact each, the file\'s values and the union of tags; the dry run first lists them and changes nothing', async () => {
    seed();
    const oldest1 = contactsByKey(emulator).get('C0001')?.[0]?.id;
    const ws = workspace();
    ws.write('customers.csv', customersCsv(3));
    ws.write('jobs.yaml', v2Jobs(emulator.v2Url, MARKED_JOB));

    const dry = await ws.run(['reconcile', 'jobs.yaml', '--merge-duplicates', '--dry-run', '--report-dir', 'dry']);
    expect(dry.exitCode).toBe(1);
    expect(emulator.contacts(TOKEN)).toHaveLength(8);
    expect(emulator.v2Counters().byEndpoint['POST /contact/merge']?.received ?? 0).toBe(0);
    const listed = diffLines(ws, 'dry').filter((line) => line.status === 'duplicate');
    expect(listed.map((line) => [line.key, line.action, (line.contact_id ?? '').split(';').length])).toEqual([['C0001', 'would-merge', 2], ['C0002', 'would-merge', 3]]);
    // The oldest survives where the state knows none: first in contact_id.
    expect((listed[0]?.contact_id ?? '').split(';')[0]).toBe(oldest1);
    expect(reconcileJson(ws, 'dry')).toMatchObject({ finish: { dryRun: true, merges: { keys: 2, contactsMerged: 3, failed: 0 } } });
    expect(dry.stdout).toContain('2 key(s) would be merged');

    const merge = await ws.run(['reconcile', 'jobs.yaml', '--merge-duplicates', '--report-dir', 'merge']);

    expect(merge.exitCode).toBe(1);
    const byKey = contactsByKey(emulator);
    expect(byKey.get('C0001')).toHaveLength(1);
    expect(byKey.get('C0002')).toHaveLength(1);
    expect(emulator.v2Counters().byEndpoint['POST /contact/merge']?.received).toBe(3);
    const one = byKey.get('C0001')?.[0];
    expect(one?.id).toBe(oldest1);
    expect(one?.custom_fields).toMatchObject(expectedCustomer(1).fields);
    expect([...(one?.tags ?? [])].sort()).toEqual(['a', 'b', 'crm']);
    const two = byKey.get('C0002')?.[0];
    expect(two?.custom_fields).toMatchObject(expectedCustomer(2).fields);
    expect([...(two?.tags ?? [])].sort()).toEqual(['x', 'y', 'z']);
    const merged = diffLines(ws, 'merge').filter((line) => line.status === 'duplicate');
    expect(merged.map((line) => [line.key, line.action, (line.contact_id ?? '').split(';')[0]])).toEqual([['C0001', 'merged', one?.id], ['C0002', 'merged', two?.id]]);
    expect(reconcileJson(ws, 'merge')).toMatchObject({ finish: { dryRun: false, merges: { keys: 2, contactsMerged: 3, failed: 0 } } });
    expect(readFileSync(join(ws.dir, 'merge', 'import.reconcile.html'), 'utf8')).toContain('keys merged into one contact');
    // Journalled: one merge line per contact merged away, naming it, under the reconcile's run.
    const store = StateStore.open(join(ws.dir, STATE_FILE), { job: 'import', keyField: 'customerid' });
    const runId = Number(reconcileJson(ws, 'merge').runId);
    const merges = store.changesOfRun(runId).filter((line) => line.operation === 'merge');
    expect(store.get('C0002')?.contact.id).toBe(two?.id);
    store.close();
    expect(merges).toHaveLength(3);
    expect(merges.flatMap((line) => (line.operation === 'merge' ? line.merged : [])).sort()).toEqual(
      [...((listed[0]?.contact_id ?? '').split(';').slice(1) ?? []), ...((listed[1]?.contact_id ?? '').split(';').slice(1) ?? [])].sort(),
    );

    const history = await ws.run(['history', 'jobs.yaml', '--job', 'import', '--run', String(runId)]);
    expect(history.stdout).toMatch(/C0001 \d+ merge \(merged \d+ into it\): /);

    // Merged: the next reconcile finds no duplicate.
    const after = await ws.run(['reconcile', 'jobs.yaml', '--report-dir', 'after']);
    expect(reconcileJson(ws, 'after')).toMatchObject({ keys: { duplicate: 0 } });
    expect(after.exitCode).toBe(1);
  });

  it.each(['v2', 'v1'] as const)('--tag-extras on %s tags the marker set\'s contacts the file lacks, and undo of that reconcile takes the tag away', async (surface) => {
    seed();
    const ws = workspace();
    ws.write('customers.csv', customersCsv(3));
    ws.write('jobs.yaml', surface === 'v2' ? v2Jobs(emulator.v2Url, MARKED_JOB) : jobsYaml({ url: emulator.url, job: MARKED_JOB }));
    const tagsOf = (key: string): string[] => [...(contactsByKey(emulator).get(key)?.[0]?.tags ?? [])].sort();

    const dry = await ws.run(['reconcile', 'jobs.yaml', '--tag-extras', 'not-in-crm', '--dry-run', '--report-dir', 'dry']);
    expect(dry.exitCode).toBe(1);
    expect(tagsOf('C0098')).toEqual(['crm']);
    expect(diffLines(ws, 'dry').filter((line) => line.status === 'extra').map((line) => [line.key, line.action])).toEqual([['C0098', 'would-tag'], ['C0099', 'already-tagged']]);

    const tag = await ws.run(['reconcile', 'jobs.yaml', '--tag-extras', 'not-in-crm', '--report-dir', 'tag']);

    expect(tag.exitCode).toBe(1);
    expect(tagsOf('C0098')).toEqual(['crm', 'not-in-crm']);
    expect(tagsOf('C0099')).toEqual(['crm', 'not-in-crm']);
    expect((emulator.v2Counters().byEndpoint['POST /contact/{identifier}/tag']?.received ?? 0) + emulator.counters(TOKEN).byOperation.addTags.received).toBe(1);
    expect(reconcileJson(ws, 'tag')).toMatchObject({ finish: { tagExtras: { tag: 'not-in-crm', tagged: 1, alreadyTagged: 1, failed: 0 } } });
    const runId = String(reconcileJson(ws, 'tag').runId);

    const undo = await ws.run(['undo', 'jobs.yaml', '--job', 'import', '--run', runId, '--report-dir', 'undo']);

    expect(undo.exitCode).toBe(0);
    expect(tagsOf('C0098')).toEqual(['crm']);
    // C0099 had the tag before: the reconcile did not add it, so undo leaves it.
    expect(tagsOf('C0099')).toEqual(['crm', 'not-in-crm']);
  });

  it('--tag-extras on a job without match.prefetch: exit 2 saying why, no call', async () => {
    const ws = workspace();
    ws.write('customers.csv', customersCsv(2));
    ws.write('jobs.yaml', v2Jobs(emulator.v2Url, STATE_JOB));
    const before = requests(emulator);
    const run = await ws.run(['reconcile', 'jobs.yaml', '--tag-extras', 'not-in-crm', '--report-dir', 'r']);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain('no match.prefetch: nothing defines the set');
    expect(requests(emulator) - before).toBe(0);
  });

  it('--merge-duplicates on v1: exit 2 before any call', async () => {
    seed();
    const ws = workspace();
    ws.write('customers.csv', customersCsv(3));
    ws.write('jobs.yaml', jobsYaml({ url: emulator.url, job: MARKED_JOB }));
    const before = requests(emulator);
    const run = await ws.run(['reconcile', 'jobs.yaml', '--merge-duplicates', '--report-dir', 'r']);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain('speaks API v1, which cannot merge contacts');
    expect(requests(emulator) - before).toBe(0);
    expect(emulator.contacts(TOKEN)).toHaveLength(8);
  });
});
