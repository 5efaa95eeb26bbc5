/**
 * The change journal and `undo` against the emulator (issue 22, docs/undo.md): a migration that
 * updates 30 existing contacts and creates 20, then taken back: every updated field and tag put
 * back, a field an agent changed since left as a conflict, the created contacts tagged for
 * deletion; undoing twice writes nothing; an undo of the undo restores the migration's values.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { StateStore } from '../../src/state/state-store.js';
import { TOKEN, customersCsv, fastEmulator, jobsYaml, workspace, type Workspace } from '../helpers/cli-harness.js';
import { startCli, useCliChildren, waitUntil } from '../helpers/cli-process.js';
import { STATE_FILE, STATE_JOB, asExpected, contactIdOf, contactsByKey, customerKey, editOnPlatform, expectedCustomer, type ExpectedContact } from '../helpers/state-fixtures.js';

const WRITES = ['createContact', 'updateContact', 'addTags', 'removeTags'] as const;
const UNDONE = 'contact-sync-undone';

let emulator: RunningEmulator;

beforeEach(async () => {
  emulator = await fastEmulator();
});

afterEach(async () => {
  await emulator.close();
});

/** Customer `i` as the platform held it before the migration: an old email, a legacy plan, a lead. */
function beforeMigration(i: number): ExpectedContact {
  const { fields } = expectedCustomer(i);
  return { fields: { ...fields, email: `old${i}@example.com`, plan: 'legacy' }, tags: ['lead'] };
}

/** The platform before: customers 1..30; the file: 1..50 (30 updates, 20 creates). */
async function migrate(): Promise<{ ws: Workspace; runId: string }> {
  emulator.loadContacts(
    TOKEN,
    Array.from({ length: 30 }, (_unused, index) => {
      const { fields, tags } = beforeMigration(index + 1);
      return { custom_fields: fields, tags };
    }),
  );
  const ws = workspace();
  ws.write('customers.csv', customersCsv(50));
  ws.write('jobs.yaml', jobsYaml({ url: emulator.url, job: STATE_JOB }));
  const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'migration']);
  expect(run.exitCode).toBe(0);
  const summary = ws.summary('import', 'migration') as ReturnType<Workspace['summary']> & { runId: string | null };
  expect(summary.rows).toMatchObject({ updated: 30, created: 20 });
  expect(summary.runId).toMatch(/^\d+$/);
  return { ws, runId: summary.runId ?? '' };
}

function writes(): Record<string, number> {
  const counters = emulator.counters(TOKEN).byOperation as Record<string, { received: number } | undefined>;
  return Object.fromEntries(WRITES.map((operation) => [operation, counters[operation]?.received ?? 0]));
}

function undoCsv(ws: Workspace, dir: string): Array<Record<string, string>> {
  return parse<Record<string, string>>(readFileSync(join(ws.dir, dir, 'import.undo.csv'), 'utf8'), { columns: true });
}

function undoJson(ws: Workspace, dir: string): { runId: string | null; undoneRunId: string; lines: Record<string, number>; createdContacts: string[]; contacts: { total: number } } {
  return JSON.parse(readFileSync(join(ws.dir, dir, 'import.undo.json'), 'utf8')) as ReturnType<typeof undoJson>;
}

describe('undo of a migration', () => {
  it('puts back every field and tag the run changed, leaves a field changed since as a conflict, and tags the contacts it created', async () => {
    const { ws, runId } = await migrate();
    // An agent corrects customer 3's email after the migration.
    await editOnPlatform(emulator, 'PUT', `/v1/contact/${contactIdOf(emulator, 'C0003')}`, { custom_fields: [{ name: 'email', value: 'agent3@example.com' }] });
    emulator.resetCounters(TOKEN);

    const undo = await ws.run(['undo', 'jobs.yaml', '--job', 'import', '--run', runId, '--report-dir', 'undo']);

    expect(undo.exitCode).toBe(1);
    const byKey = contactsByKey(emulator);
    for (let i = 1; i <= 30; i++) {
      const expected = beforeMigration(i);
      if (i === 3) expected.fields.email = 'agent3@example.com';
      expect(asExpected(byKey.get(customerKey(i))?.[0])).toEqual(expected);
    }
    for (let i = 31; i <= 50; i++) {
      const contact = byKey.get(customerKey(i)) ?? [];
      expect(contact).toHaveLength(1);
      expect(contact[0]?.tags).toContain(UNDONE);
      expect(contact[0]?.custom_fields.email).toBe(`user${i}@example.com`);
    }
    // One read per updated contact (none for a created one); per updated contact one update and
    // its tag calls; one tag call per created contact.
    expect(emulator.counters(TOKEN).byOperation.getContact.received).toBe(30);
    expect(writes()).toEqual({ createContact: 0, updateContact: 30, addTags: 30 + 20, removeTags: 30 });
    const lines = undoCsv(ws, 'undo');
    expect(lines.filter((line) => line.outcome === 'conflict')).toEqual([
      expect.objectContaining({ key: 'C0003', action: 'field', field: 'email', from: 'agent3@example.com', to: 'old3@example.com', outcome: 'conflict' }),
    ]);
    expect(lines.filter((line) => line.outcome === 'tagged-for-deletion')).toHaveLength(20);
    const summary = undoJson(ws, 'undo');
    expect(summary).toMatchObject({ undoneRunId: runId, contacts: { total: 50 }, lines: { conflict: 1, failed: 0, 'tagged-for-deletion': 20 } });
    expect(summary.createdContacts).toHaveLength(20);
    expect(undo.stdout).toContain('20 contacts the run created carry the tag contact-sync-undone');
  });

  it('a second undo of the same run reads each updated contact and writes nothing', async () => {
    const { ws, runId } = await migrate();
    expect((await ws.run(['undo', 'jobs.yaml', '--job', 'import', '--run', runId, '--report-dir', 'first'])).exitCode).toBe(0);
    emulator.resetCounters(TOKEN);

    const again = await ws.run(['undo', 'jobs.yaml', '--job', 'import', '--run', runId, '--report-dir', 'second']);

    expect(again.exitCode).toBe(0);
    expect(writes()).toEqual({ createContact: 0, updateContact: 0, addTags: 0, removeTags: 0 });
    expect(new Set(undoCsv(ws, 'second').map((line) => line.outcome))).toEqual(new Set(['unchanged']));
  });

  it('a dry run reads and reports what it would put back, and writes nothing, not even to the state', async () => {
    const { ws, runId } = await migrate();
    emulator.resetCounters(TOKEN);

    const dry = await ws.run(['undo', 'jobs.yaml', '--job', 'import', '--run', runId, '--dry-run', '--report-dir', 'dry']);

    expect(dry.exitCode).toBe(0);
    expect(writes()).toEqual({ createContact: 0, updateContact: 0, addTags: 0, removeTags: 0 });
    expect(undoJson(ws, 'dry')).toMatchObject({ runId: null, lines: { 'tagged-for-deletion': 20, conflict: 0 } });
    // Said as what would be: a dry run tagged none (issue 41 item 18).
    expect(dry.stdout).toContain('20 contacts the run created would carry the tag contact-sync-undone once the undo runs (none is tagged yet)');
    expect(dry.stdout).not.toContain('created carry the tag');
    expect(undoCsv(ws, 'dry').filter((line) => line.outcome === 'restored').length).toBeGreaterThan(0);
    const state = await ws.run(['state', 'show', 'jobs.yaml', '--job', 'import']);
    expect(state.stdout).toContain('(run)');
    expect(state.stdout).not.toContain('(undo)');
  });

  it('an undo of the undo restores the migration\'s values', async () => {
    const { ws, runId } = await migrate();
    await ws.run(['undo', 'jobs.yaml', '--job', 'import', '--run', runId, '--report-dir', 'undo']);
    const undoRunId = undoJson(ws, 'undo').runId ?? '';
    expect(undoRunId).toMatch(/^\d+$/);

    const redo = await ws.run(['undo', 'jobs.yaml', '--job', 'import', '--run', undoRunId, '--report-dir', 'redo']);

    expect(redo.exitCode).toBe(0);
    const byKey = contactsByKey(emulator);
    for (let i = 1; i <= 50; i++) expect(asExpected(byKey.get(customerKey(i))?.[0])).toEqual(expectedCustomer(i));
  });

  it('history shows a key\'s changes run by run and exports a run as CSV; undo names a run that does not exist', async () => {
    const { ws, runId } = await migrate();
    await ws.run(['undo', 'jobs.yaml', '--job', 'import', '--run', runId, '--report-dir', 'undo']);

    const key = await ws.run(['history', 'jobs.yaml', '--job', 'import', '--key', 'C0002']);
    const csv = await ws.run(['history', 'jobs.yaml', '--job', 'import', '--run', runId, '--csv']);
    const missing = await ws.run(['undo', 'jobs.yaml', '--job', 'import', '--run', '999']);

    expect(key.exitCode).toBe(0);
    expect(key.stdout).toContain(`run ${runId} (run jobs.yaml`);
    expect(key.stdout).toContain('update: email "old2@example.com" -> "user2@example.com"; plan "legacy" -> "pro"');
    expect(key.stdout).toContain('update: email "user2@example.com" -> "old2@example.com"; plan "pro" -> "legacy"');
    const rows = parse<Record<string, string>>(csv.stdout, { columns: true });
    expect(rows.filter((row) => row.key === 'C0002' && row.field === 'email')).toEqual([
      expect.objectContaining({ run_id: runId, operation: 'update', before: 'old2@example.com', after: 'user2@example.com', before_read: 'yes' }),
    ]);
    expect(rows.filter((row) => row.operation === 'create')).toHaveLength(20 * 5);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain('job "import" has no run 999 in its state store');
  });
});

describe('state prune', () => {
  it('keeps a migration\'s journal unless asked; a pruned run cannot be undone and undo says so, exit 2; the kept one can', async () => {
    const { ws, runId } = await migrate();
    // A second run that changes one row: run 2, journalled.
    ws.write('customers.csv', customersCsv(50, (i, cells) => (i === 1 ? [...cells.slice(0, 1), 'Renamed', ...cells.slice(2)] : cells)));
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'second'])).exitCode).toBe(0);
    const secondRunId = (ws.summary('import', 'second') as { runId?: string | null }).runId ?? '';

    // The migration created 20 contacts: its journal stays.
    const kept = await ws.run(['state', 'prune', 'jobs.yaml', '--job', 'import', '--keep-runs', '1']);
    expect(kept.exitCode).toBe(0);
    expect(kept.stdout).toContain('dropped 0 change journal lines of 0 runs; the newest run keeps its');
    expect(kept.stdout).toContain(`kept the journal of run ${runId}: it created contacts, which only an undo can tag for deletion; --include-creating-runs drops it too`);

    const prune = await ws.run(['state', 'prune', 'jobs.yaml', '--job', 'import', '--keep-runs', '1', '--include-creating-runs']);
    emulator.resetCounters(TOKEN);
    const pruned = await ws.run(['undo', 'jobs.yaml', '--job', 'import', '--run', runId, '--report-dir', 'pruned']);
    const show = await ws.run(['state', 'show', 'jobs.yaml', '--job', 'import']);
    // Run 2 wrote by what the state store knew (its before is unverified): --force puts it back.
    const undoKept = await ws.run(['undo', 'jobs.yaml', '--job', 'import', '--run', secondRunId, '--force', '--report-dir', 'kept']);

    expect(prune.exitCode).toBe(0);
    expect(prune.stdout).toMatch(/dropped \d+ change journal lines of 1 run; the newest run keeps its/);
    expect(pruned.exitCode).toBe(2);
    expect(pruned.stderr).toMatch(new RegExp(`the change journal of run ${runId} was pruned by \`contact-sync state prune\` on \\d{4}-\\d\\d-\\d\\dT`));
    expect(pruned.stderr).toContain('cannot be undone');
    expect(show.stdout).toMatch(new RegExp(`run ${runId} \\(run\\).*change journal pruned \\d{4}-`));
    expect(undoKept.exitCode).toBe(0);
    expect(undoJson(ws, 'kept')).toMatchObject({ contacts: { total: 1 }, lines: { restored: 1 } });
    expect(contactsByKey(emulator).get('C0001')?.[0]?.custom_fields.firstName).toBe('First1');
  });
});

describe('an undo killed mid-way and run again', () => {
  const children = useCliChildren();

  it('finishes with every contact put back, and no field or tag of a contact journalled as put back twice', async () => {
    const { ws, runId } = await migrate();
    // Updates answered slowly, so the kill finds the undo among them.
    emulator.setFaults({ latency: { minMs: 20, maxMs: 40 }, operations: ['updateContact'] });
    emulator.resetCounters(TOKEN);
    const killed = children.track(startCli(['undo', 'jobs.yaml', '--job', 'import', '--run', runId, '--report-dir', 'killed', '--log-level', 'warn'], ws.dir));
    await waitUntil(() => emulator.counters(TOKEN).byOperation.updateContact.received >= 10, '10 updates reached the platform', 30_000, killed);
    killed.child.kill('SIGKILL');
    await killed.exited(10_000);
    // No wait for the killed undo's last requests: one still held by the latency writes the same
    // value back that the re-run writes (or finds already there), so the outcome is the same.
    emulator.setFaults({});
    expect(emulator.counters(TOKEN).byOperation.updateContact.received).toBeLessThan(30);

    const again = await ws.run(['undo', 'jobs.yaml', '--job', 'import', '--run', runId, '--report-dir', 'again']);

    expect(again.exitCode).toBe(0);
    const byKey = contactsByKey(emulator);
    for (let i = 1; i <= 30; i++) expect(asExpected(byKey.get(customerKey(i))?.[0])).toEqual(beforeMigration(i));
    for (let i = 31; i <= 50; i++) expect(byKey.get(customerKey(i))?.[0]?.tags).toContain(UNDONE);
    // The two undo runs' journals together: each field and tag of a contact put back at most once.
    const store = StateStore.open(join(ws.dir, STATE_FILE), { job: 'import', keyField: 'customerid' });
    try {
      const undoRuns = store.lastRuns(5).filter((run) => run.argv.startsWith('undo '));
      expect(undoRuns).toHaveLength(2);
      const restored = undoRuns.flatMap((run) => store.changesOfRun(run.id)).flatMap((line) => ('tags' in line ? line.tags.map((tag) => `${line.contactId} ${line.operation} ${tag}`) : 'fields' in line ? Object.keys(line.fields).map((field) => `${line.contactId} ${field}`) : []));
      expect(restored.length).toBeGreaterThan(0);
      expect(new Set(restored).size).toBe(restored.length);
    } finally {
      store.close();
    }
  });
});
