/**
 * The undo traps of issue 34 against the emulator (docs/undo.md): an undo never claims to restore
 * a value its run did not read (point 5); a contact an undo tagged for deletion loses the tag when
 * a run takes it back (6); the state follows undo, so the next run repairs a conflict (7); created
 * contacts are tagged with no read (9); `--key` and `--keep-created` undo a part, and every run
 * names its id (13); history quotes tags.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import Database from 'better-sqlite3';
import { parse as parseHtml } from 'node-html-parser';
import { StateStore } from '../../src/state/state-store.js';
import { TOKEN, customersCsv, jobsYaml, workspace, type Workspace } from '../helpers/cli-harness.js';
import { STATE_FILE, STATE_JOB, asExpected, contactIdOf, contactsByKey, customerKey, editOnPlatform, expectedCustomer } from '../helpers/state-fixtures.js';
import { emulatorPerTest } from '../helpers/integration-fixtures.js';

const UNDONE = 'contact-sync-undone';
const WRITES = ['createContact', 'updateContact', 'addTags', 'removeTags'] as const;

const emulator = emulatorPerTest();

function calls(): Record<string, number> {
  const counters = emulator().counters(TOKEN).byOperation as Record<string, { received: number } | undefined>;
  return Object.fromEntries(['getContact', 'searchContacts', ...WRITES].map((operation) => [operation, counters[operation]?.received ?? 0]));
}

function undoCsv(ws: Workspace, dir: string): Array<Record<string, string>> {
  return parse<Record<string, string>>(readFileSync(join(ws.dir, dir, 'import.undo.csv'), 'utf8'), { columns: true });
}

interface UndoJson {
  runId: string | null;
  lines: Record<string, number>;
  contacts: { total: number; notReached: number; keptCreated: number };
  keys?: string[];
  keepCreated: boolean;
  createdContacts: string[];
}

function undoJson(ws: Workspace, dir: string): UndoJson {
  return JSON.parse(readFileSync(join(ws.dir, dir, 'import.undo.json'), 'utf8')) as UndoJson;
}

function runIdOf(ws: Workspace, dir: string): string {
  return (ws.summary('import', dir) as { runId?: string | null }).runId ?? '';
}

/** A workspace whose job keeps a state store, and a first run of `rows` customers into it. */
async function firstRun(rows: number, job: string = STATE_JOB): Promise<{ ws: Workspace; runId: string; stdout: string }> {
  const ws = workspace();
  ws.write('customers.csv', customersCsv(rows));
  ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job }));
  const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'first']);
  expect(run.exitCode).toBe(0);
  return { ws, runId: runIdOf(ws, 'first'), stdout: run.stdout };
}

/** The platform holds customers 1..n as the file has them, but with an old email. */
function loadWithOldEmails(n: number): void {
  emulator().loadContacts(
    TOKEN,
    Array.from({ length: n }, (_unused, index) => {
      const { fields, tags } = expectedCustomer(index + 1);
      return { custom_fields: { ...fields, email: `old${index + 1}@example.com` }, tags };
    }),
  );
}

describe('point 5: a run that wrote by the state store\'s knowledge', () => {
  it('is undone as unverified: nothing written, exit 1; --force puts the state\'s values back', async () => {
    const { ws } = await firstRun(3);
    // Between the runs an agent changes customer 2's plan and gives customer 1 the tag vip.
    await editOnPlatform(emulator(), 'PUT', `/v1/contact/${contactIdOf(emulator(), 'C0002')}`, { custom_fields: [{ name: 'plan', value: 'agent-plan' }] });
    await editOnPlatform(emulator(), 'POST', `/v1/contact/${contactIdOf(emulator(), 'C0001')}/tags`, { tags: ['vip'] });
    // The next file: customer 2 on plan enterprise, customer 1 in segment vip. The run writes by
    // what the state knows (plan "pro", no vip), reading nothing.
    ws.write('customers.csv', customersCsv(3, (i, cells) => (i === 2 ? [...cells.slice(0, 4), 'enterprise', cells[5] ?? ''] : i === 1 ? [...cells.slice(0, 5), 'vip;newsletter'] : cells)));
    emulator().resetCounters(TOKEN);
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'nightly'])).exitCode).toBe(0);
    expect(calls()).toMatchObject({ getContact: 0, searchContacts: 0, updateContact: 1, addTags: 1 });
    const nightly = runIdOf(ws, 'nightly');

    const undo = await ws.run(['undo', 'jobs.yaml', '--job', 'import', '--run', nightly, '--report-dir', 'undo']);

    expect(undo.exitCode).toBe(1);
    // Nothing was claimed restored: the plan the run wrote stays, and so does the agent's vip.
    const byKey = contactsByKey(emulator());
    expect(byKey.get('C0002')?.[0]?.custom_fields.plan).toBe('enterprise');
    expect(byKey.get('C0001')?.[0]?.tags).toContain('vip');
    const lines = undoCsv(ws, 'undo');
    // Contacts finish in any order: the lines are compared as a set.
    const changed = lines.filter((line) => line.outcome !== 'unchanged');
    expect(changed).toHaveLength(2);
    expect(changed).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ key: 'C0001', action: 'remove-tag', field: 'vip', outcome: 'unverified' }),
        expect.objectContaining({ key: 'C0002', action: 'field', field: 'plan', from: 'enterprise', to: 'pro', outcome: 'unverified' }),
      ]),
    );
    expect(lines.every((line) => line.outcome !== 'restored')).toBe(true);
    expect(undoJson(ws, 'undo').lines).toMatchObject({ unverified: 2, restored: 0 });
    expect(undo.stdout).toContain('2 unverified');
    expect(undo.stdout).toContain('wrote by what the state store knew');
    // history says which lines' befores were not read, in the text and in --csv.
    const history = await ws.run(['history', 'jobs.yaml', '--job', 'import', '--key', 'C0002']);
    expect(history.stdout).toContain('update (before not read: the state store\'s): plan "pro" -> "enterprise"');
    const csv = parse<Record<string, string>>((await ws.run(['history', 'jobs.yaml', '--job', 'import', '--run', nightly, '--csv'])).stdout, { columns: true });
    expect(csv.map((row) => [row.key, row.field, row.before_read])).toEqual(expect.arrayContaining([['C0002', 'plan', 'no'], ['C0001', 'vip', 'no']]));

    const forced = await ws.run(['undo', 'jobs.yaml', '--job', 'import', '--run', nightly, '--force', '--report-dir', 'forced']);

    expect(forced.exitCode).toBe(0);
    const after = contactsByKey(emulator());
    expect(after.get('C0002')?.[0]?.custom_fields.plan).toBe('pro');
    expect(after.get('C0001')?.[0]?.tags).not.toContain('vip');
    expect(undoCsv(ws, 'forced').filter((line) => line.outcome === 'restored').map((line) => line.error_message)).toEqual([
      expect.stringContaining('without reading'),
      expect.stringContaining('without reading'),
    ]);
  });

  it('a run that read the platform (a search) is undone as before: restored, exit 0', async () => {
    loadWithOldEmails(2);
    const { ws, runId } = await firstRun(2);

    const undo = await ws.run(['undo', 'jobs.yaml', '--job', 'import', '--run', runId, '--report-dir', 'undo']);

    expect(undo.exitCode).toBe(0);
    expect(undoJson(ws, 'undo').lines).toMatchObject({ restored: 2, unverified: 0 });
    expect(contactsByKey(emulator()).get('C0001')?.[0]?.custom_fields.email).toBe('old1@example.com');
  });
});

describe('point 6 and 9: the contacts an undone migration created', () => {
  it('are tagged with one call each and no read; a run that takes them back removes the tag, one call each', async () => {
    const { ws, runId } = await firstRun(5);
    // Customer 5 was deleted on the platform since the migration.
    expect(emulator().deleteContact(TOKEN, contactIdOf(emulator(), 'C0005'))).toBe(true);
    emulator().resetCounters(TOKEN);

    const undo = await ws.run(['undo', 'jobs.yaml', '--job', 'import', '--run', runId, '--report-dir', 'undo']);

    expect(undo.exitCode).toBe(0);
    expect(calls()).toEqual({ getContact: 0, searchContacts: 0, createContact: 0, updateContact: 0, addTags: 5, removeTags: 0 });
    expect(undoCsv(ws, 'undo').map((line) => [line.key, line.outcome])).toEqual(
      expect.arrayContaining([['C0001', 'tagged-for-deletion'], ['C0005', 'unchanged']]),
    );
    expect(undoJson(ws, 'undo').createdContacts).toHaveLength(4);
    for (let i = 1; i <= 4; i++) expect(contactsByKey(emulator()).get(customerKey(i))?.[0]?.tags).toContain(UNDONE);

    // The user fixes the file (customer 1 renamed) and runs again.
    ws.write('customers.csv', customersCsv(5, (i, cells) => (i === 1 ? [cells[0] ?? '', 'Fixed', ...cells.slice(2)] : cells)));
    emulator().resetCounters(TOKEN);
    const again = await ws.run(['run', 'jobs.yaml', '--report-dir', 'again']);

    expect(again.exitCode).toBe(0);
    const byKey = contactsByKey(emulator());
    for (let i = 1; i <= 4; i++) expect(byKey.get(customerKey(i))?.[0]?.tags).not.toContain(UNDONE);
    expect(byKey.get('C0001')?.[0]?.custom_fields.firstName).toBe('Fixed');
    // Customer 5 was deleted: created again. The tag goes in one remove call per contact taken back.
    expect(byKey.get('C0005')).toHaveLength(1);
    expect(calls()).toMatchObject({ updateContact: 1, removeTags: 4, createContact: 1 });

    // A nightly re-run of the same file settles every row: no tag left to remove.
    emulator().resetCounters(TOKEN);
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'nightly'])).exitCode).toBe(0);
    expect(calls()).toMatchObject({ updateContact: 0, addTags: 0, removeTags: 0, createContact: 0 });
  });

  it('a second undo writes nothing: the state store knows they carry the tag', async () => {
    const { ws, runId } = await firstRun(3);
    expect((await ws.run(['undo', 'jobs.yaml', '--job', 'import', '--run', runId, '--report-dir', 'undo'])).exitCode).toBe(0);
    emulator().resetCounters(TOKEN);

    const again = await ws.run(['undo', 'jobs.yaml', '--job', 'import', '--run', runId, '--report-dir', 'again']);

    expect(again.exitCode).toBe(0);
    expect(calls()).toEqual({ getContact: 0, searchContacts: 0, createContact: 0, updateContact: 0, addTags: 0, removeTags: 0 });
    expect(new Set(undoCsv(ws, 'again').map((line) => line.outcome))).toEqual(new Set(['unchanged']));
  });

  it('under mode create, which skips existing contacts, a run taking them back still removes the tag', async () => {
    const { ws, runId } = await firstRun(3, `${STATE_JOB}\nmode: create`);
    expect((await ws.run(['undo', 'jobs.yaml', '--job', 'import', '--run', runId, '--report-dir', 'undo'])).exitCode).toBe(0);
    emulator().resetCounters(TOKEN);

    const again = await ws.run(['run', 'jobs.yaml', '--report-dir', 'again']);

    expect(again.exitCode).toBe(0);
    for (let i = 1; i <= 3; i++) expect(contactsByKey(emulator()).get(customerKey(i))?.[0]?.tags).not.toContain(UNDONE);
    expect(calls()).toMatchObject({ createContact: 0, updateContact: 0, removeTags: 3 });
  });
});

describe('point 7: the state after an undo', () => {
  it('after an undo with a conflict, the next run of the same file writes the file\'s values again, and a reconcile finds no difference', async () => {
    loadWithOldEmails(3);
    const { ws, runId } = await firstRun(3);
    // An agent changes customer 1's email after the migration: undo leaves it (a conflict).
    await editOnPlatform(emulator(), 'PUT', `/v1/contact/${contactIdOf(emulator(), 'C0001')}`, { custom_fields: [{ name: 'email', value: 'agent1@example.com' }] });
    const undo = await ws.run(['undo', 'jobs.yaml', '--job', 'import', '--run', runId, '--report-dir', 'undo']);
    expect(undo.exitCode).toBe(1);
    expect(undoJson(ws, 'undo').lines).toMatchObject({ conflict: 1, restored: 2 });
    emulator().resetCounters(TOKEN);

    const again = await ws.run(['run', 'jobs.yaml', '--report-dir', 'again']);

    expect(again.exitCode).toBe(0);
    // Every contact compared with the state undo left: the conflict's and the restored ones written.
    expect(calls()).toMatchObject({ updateContact: 3, searchContacts: 0, getContact: 0 });
    const byKey = contactsByKey(emulator());
    for (let i = 1; i <= 3; i++) expect(asExpected(byKey.get(customerKey(i))?.[0])).toEqual(expectedCustomer(i));

    const reconcile = await ws.run(['reconcile', 'jobs.yaml', '--report-dir', 'reconcile']);
    expect(reconcile.exitCode).toBe(0);
    const json = JSON.parse(readFileSync(join(ws.dir, 'reconcile', 'import.reconcile.json'), 'utf8')) as { keys: Record<string, number> };
    expect(json.keys).toMatchObject({ same: 3, differs: 0 });
  });
});

describe('point 13: undo of a part, and the run id', () => {
  it('--key undoes only those keys; an unknown key is refused, exit 2, nothing done', async () => {
    loadWithOldEmails(3);
    const { ws, runId } = await firstRun(5);

    const refused = await ws.run(['undo', 'jobs.yaml', '--job', 'import', '--run', runId, '--key', 'C0001', '--key', 'C9999', '--report-dir', 'refused']);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain(`--key: run ${runId} of job "import" changed no contact of "C9999"`);
    expect(contactsByKey(emulator()).get('C0001')?.[0]?.custom_fields.email).toBe('user1@example.com');
    emulator().resetCounters(TOKEN);

    const part = await ws.run(['undo', 'jobs.yaml', '--job', 'import', '--run', runId, '--key', 'C0001', '--key', 'C0004', '--report-dir', 'part']);

    expect(part.exitCode).toBe(0);
    const byKey = contactsByKey(emulator());
    expect(byKey.get('C0001')?.[0]?.custom_fields.email).toBe('old1@example.com');
    expect(byKey.get('C0002')?.[0]?.custom_fields.email).toBe('user2@example.com');
    expect(byKey.get('C0004')?.[0]?.tags).toContain(UNDONE);
    expect(byKey.get('C0005')?.[0]?.tags).not.toContain(UNDONE);
    expect(new Set(undoCsv(ws, 'part').map((line) => line.key))).toEqual(new Set(['C0001', 'C0004']));
    expect(undoJson(ws, 'part')).toMatchObject({ keys: ['C0001', 'C0004'], contacts: { total: 2 } });
    expect(calls()).toMatchObject({ getContact: 1, updateContact: 1, addTags: 1 });
    expect(part.stdout).toContain('only the contacts of 2 keys (--key) were undone');
  });

  it('--keep-created leaves the created contacts alone; the run id closes the console of a run and an undo, and heads report.html', async () => {
    loadWithOldEmails(2);
    const { ws, runId, stdout } = await firstRun(4);
    expect(stdout).toMatch(new RegExp(`run id\\s+${runId}\\n`));
    const html = parseHtml(readFileSync(join(ws.dir, 'first', 'import.report.html'), 'utf8'));
    expect(html.querySelector('.meta .run-id')?.text).toBe(runId);

    const undo = await ws.run(['undo', 'jobs.yaml', '--job', 'import', '--run', runId, '--keep-created', '--report-dir', 'undo']);

    expect(undo.exitCode).toBe(0);
    const byKey = contactsByKey(emulator());
    expect(byKey.get('C0001')?.[0]?.custom_fields.email).toBe('old1@example.com');
    for (const key of ['C0003', 'C0004']) expect(byKey.get(key)?.[0]?.tags).not.toContain(UNDONE);
    expect(undoJson(ws, 'undo')).toMatchObject({ keepCreated: true, contacts: { total: 2, keptCreated: 2 }, createdContacts: [] });
    expect(undo.stdout).toContain('2 contacts the run created were left alone (--keep-created)');
    const undoRunId = undoJson(ws, 'undo').runId ?? '';
    expect(undo.stdout).toContain(`run id: ${undoRunId} (this undo`);
  });
});

describe('point 8: a run whose journal is gone', () => {
  it('a run whose record says it wrote but whose journal holds no line (pruned by an earlier version) exits 2 and says so', async () => {
    const { ws, runId } = await firstRun(3);
    // What an earlier contact-sync's prune left: the lines gone, the run not marked.
    const store = StateStore.open(join(ws.dir, STATE_FILE), { job: 'import', keyField: 'customerid' });
    try {
      expect(store.pruneChanges(0, { includeCreating: true }).lines).toBeGreaterThan(0);
    } finally {
      store.close();
    }
    const raw = new Database(join(ws.dir, STATE_FILE));
    raw.exec('UPDATE runs SET pruned_at = NULL');
    raw.close();
    emulator().resetCounters(TOKEN);

    const undo = await ws.run(['undo', 'jobs.yaml', '--job', 'import', '--run', runId, '--report-dir', 'undo']);

    expect(undo.exitCode).toBe(2);
    expect(undo.stderr).toContain(`run ${runId} created or updated 3 rows`);
    expect(undo.stderr).toContain('its change journal holds no line');
    expect(emulator().counters(TOKEN).total.received).toBe(0);
  });
});

describe('history', () => {
  it('quotes each tag, so a tag with a comma reads as one', async () => {
    const ws = workspace();
    ws.write('customers.csv', customersCsv(1, (_i, cells) => [...cells.slice(0, 5), '"Wholesale, EU;vip"']));
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: STATE_JOB }));
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'first'])).exitCode).toBe(0);

    const history = await ws.run(['history', 'jobs.yaml', '--job', 'import', '--key', 'C0001']);

    expect(history.exitCode).toBe(0);
    expect(history.stdout).toMatch(/add-tags: "[^"]+"(, "[^"]+")*\n/);
    expect(history.stdout).toContain('"Wholesale, EU"');
    expect(history.stdout).not.toMatch(/add-tags: [^"]/);
  });
});
