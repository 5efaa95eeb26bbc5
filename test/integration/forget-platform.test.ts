/**
 * `forget --platform` (issue 46 item 4; docs/personal-data.md, "Erasure reaches the platform"),
 * through the real CLI against the emulator: on v2 each key's contacts are deleted on the platform
 * first (the store's, and each the lookup of the key finds when the store forgot it), then the key
 * leaves the store with no byte left; a key unknown everywhere exits 1; a dry run changes nothing;
 * a delete that fails leaves the store knowing the key (a re-run finishes); on v1 nothing is
 * deleted, the contact ids are listed to delete by hand, exit 1. The emulator's requests are
 * counted by endpoint.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { acquireJobLock } from '../../src/lock/job-lock.js';
import { stateLockTarget } from '../../src/lock/lock-target.js';
import { StateStore } from '../../src/state/state-store.js';
import { TOKEN, customersCsv, fastEmulator, jobsYaml, workspace, type Workspace } from '../helpers/cli-harness.js';
import { STATE_FILE, STATE_JOB, contactIdOf, contactsByKey } from '../helpers/state-fixtures.js';

const WORKSPACE_TOKEN = 'workspace-token-46f0a2';
const DELETE = 'DELETE /contact/{identifier}';

function v2Jobs(url: string, extra = ''): string {
  return jobsYaml({ url, token: WORKSPACE_TOKEN, job: STATE_JOB, connectionExtra: `    api: v2${extra}` });
}

/** Whether the state file or its -wal holds `value`'s bytes (as the personal-data tests read them). */
function inState(ws: Workspace, value: string): boolean {
  const path = join(ws.dir, STATE_FILE);
  const bytes = Buffer.from(value, 'utf8');
  return [path, `${path}-wal`].some((file) => existsSync(file) && readFileSync(file).includes(bytes));
}

function deletes(emulator: RunningEmulator): number {
  return emulator.v2Counters().byEndpoint[DELETE]?.received ?? 0;
}

function lastRun(ws: Workspace): ReturnType<StateStore['lastRuns']>[number] | undefined {
  const store = StateStore.open(join(ws.dir, STATE_FILE), { job: 'import', keyField: 'customerid' });
  try {
    return store.lastRuns(1)[0];
  } finally {
    store.close();
  }
}

describe('forget --platform', () => {
  let emulator: RunningEmulator;
  beforeEach(async () => {
    emulator = await fastEmulator({ workspaceTokens: [WORKSPACE_TOKEN], rateLimits: { contacts: { limit: 60_000, periodMs: 60_000 }, messages: { limit: 1000, periodMs: 1000 }, v2: { limit: 1000, periodMs: 1000 } } });
  });
  afterEach(async () => {
    await emulator.close();
  });

  async function synced(jobs: string, rows = 3): Promise<Workspace> {
    const ws = workspace();
    ws.write('customers.csv', customersCsv(rows));
    ws.write('jobs.yaml', jobs);
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'first'])).exitCode).toBe(0);
    expect(emulator.contacts(TOKEN)).toHaveLength(rows);
    return ws;
  }

  it('on v2 deletes the key\'s contact on the platform, then erases it from the store (no byte left), journals counts only; the other contacts stay', async () => {
    const ws = await synced(v2Jobs(emulator.v2Url));
    const id = contactIdOf(emulator, 'C0001');
    expect([inState(ws, 'C0001'), inState(ws, 'user1@example.com')]).toEqual([true, true]);

    const forget = await ws.run(['forget', 'jobs.yaml', '--job', 'import', '--key', 'C0001', '--platform', '--report-dir', 'first']);

    expect(forget.exitCode).toBe(0);
    const [line, ...rest] = forget.stdout.trimEnd().split('\n');
    expect(rest).toEqual([]);
    expect(line).toMatch(new RegExp(`^C0001: deleted on the platform: contact ${id}; erased from the state store: 1 record, 2 change journal lines \\(of run 1\\); still in \\d+ report files \\(yours to delete or edit\\): `));
    expect(line).toContain(join('first', 'import.results.csv'));
    expect(deletes(emulator)).toBe(1);
    expect([...contactsByKey(emulator).keys()].sort()).toEqual(['C0002', 'C0003']);
    expect([inState(ws, 'C0001'), inState(ws, 'user1@example.com'), inState(ws, 'First1')]).toEqual([false, false, false]);
    expect(inState(ws, 'C0002')).toBe(true);
    const run = lastRun(ws);
    expect(run).toMatchObject({ argv: 'forget jobs.yaml --platform --keys 1', rows: { total: 1, erased: 1, deleted: 1, unknown: 0, failed: 0 }, exitCode: 0 });
    // The deletion is not journalled: an erasure keeps no value.
    const store = StateStore.open(join(ws.dir, STATE_FILE), { job: 'import', keyField: 'customerid' });
    expect(store.changesOfRun(run?.id ?? 0)).toEqual([]);
    store.close();
  });

  it('finds by lookup a contact the store does not know (state wiped) and deletes it; a key unknown everywhere exits 1', async () => {
    const ws = await synced(v2Jobs(emulator.v2Url));
    const id = contactIdOf(emulator, 'C0002');
    rmSync(join(ws.dir, 'state'), { recursive: true, force: true });

    const forget = await ws.run(['forget', 'jobs.yaml', '--job', 'import', '--key', 'C0002', '--key', 'NOPE-4242', '--platform']);

    expect(forget.exitCode).toBe(1);
    const lines = forget.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(`job "import": no state yet (no file at ${join(ws.dir, STATE_FILE)}): no state store holds the keys; their contacts are found by the platform's lookup of customerid`);
    expect(lines[1]).toMatch(new RegExp(`^C0002: deleted on the platform: contact ${id}; no state store; `));
    expect(lines[2]).toBe('NOPE-4242: no contact on the platform holds customerid "NOPE-4242", and no state store: nothing erased; no report file found holds it');
    expect(deletes(emulator)).toBe(1);
    expect([...contactsByKey(emulator).keys()].sort()).toEqual(['C0001', 'C0003']);
    // No store was made for the erasure.
    expect(existsSync(join(ws.dir, STATE_FILE))).toBe(false);
  });

  it('a key the store knows, duplicated on the platform: each contact holding it is deleted', async () => {
    const ws = await synced(v2Jobs(emulator.v2Url), 2);
    const known = contactIdOf(emulator, 'C0002');
    const response = await fetch(`${emulator.url}/v1/contact`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ custom_fields: [{ name: 'customerid', value: 'C0002' }] }),
    });
    expect(response.ok).toBe(true);
    const ids = (contactsByKey(emulator).get('C0002') ?? []).map((contact) => contact.id);
    expect(ids).toHaveLength(2);

    const forget = await ws.run(['forget', 'jobs.yaml', '--job', 'import', '--key', 'C0002', '--platform']);

    expect(forget.exitCode).toBe(0);
    expect(forget.stdout).toContain(`C0002: deleted on the platform: contacts ${known}, ${ids.find((id) => id !== known)}; erased from the state store`);
    expect(deletes(emulator)).toBe(2);
    expect([...contactsByKey(emulator).keys()]).toEqual(['C0001']);
  });

  it('--dry-run lists what it would delete and erase, and changes nothing: no DELETE, the store untouched', async () => {
    const ws = await synced(v2Jobs(emulator.v2Url));
    const id = contactIdOf(emulator, 'C0003');

    const dry = await ws.run(['forget', 'jobs.yaml', '--job', 'import', '--key', 'C0003', '--platform', '--dry-run']);

    expect(dry.exitCode).toBe(0);
    const lines = dry.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(new RegExp(`^C0003: would delete on the platform: contact ${id}; would erase from the state store: 1 record, 2 change journal lines \\(of run 1\\); `));
    expect(lines.at(-1)).toBe('dry run: nothing was deleted on the platform or erased from the state store');
    expect(deletes(emulator)).toBe(0);
    expect(emulator.contacts(TOKEN)).toHaveLength(3);
    expect([inState(ws, 'C0003'), inState(ws, 'user3@example.com')]).toEqual([true, true]);
    const store = StateStore.open(join(ws.dir, STATE_FILE), { job: 'import', keyField: 'customerid' });
    expect(store.get('C0003')?.contact.id).toBe(id);
    expect(store.lastRuns(5).map((run) => run.argv)).toEqual(['run jobs.yaml']);
    store.close();
  });

  it('a delete that fails leaves the key in the store (exit 3); forget run again finishes the job', async () => {
    const ws = await synced(v2Jobs(emulator.v2Url, '\n    timeouts: { unavailableAfterAttempts: 2 }'));
    const id = contactIdOf(emulator, 'C0001');
    emulator.setFaults({ serverError: 1, operations: ['updateContact'] });

    const failed = await ws.run(['forget', 'jobs.yaml', '--job', 'import', '--key', 'C0001', '--platform']);

    expect(failed.exitCode).toBe(3);
    expect(failed.stdout).toContain('C0001: API_UNAVAILABLE: ');
    expect(failed.stdout).toContain('nothing erased from the state store, which still knows what to delete: run forget again to finish');
    expect(contactIdOf(emulator, 'C0001')).toBe(id);
    expect(inState(ws, 'C0001')).toBe(true);

    emulator.setFaults({});
    const again = await ws.run(['forget', 'jobs.yaml', '--job', 'import', '--key', 'C0001', '--platform']);
    expect(again.exitCode).toBe(0);
    expect(again.stdout).toMatch(new RegExp(`^C0001: deleted on the platform: contact ${id}; erased from the state store`));
    expect(contactsByKey(emulator).has('C0001')).toBe(false);
    expect(inState(ws, 'C0001')).toBe(false);
  });

  it('without --platform, --dry-run counts what would leave the store and changes nothing, with no call; --max-duration needs --platform (exit 2)', async () => {
    const ws = await synced(v2Jobs(emulator.v2Url), 2);
    const before = emulator.v2Counters().total.received;

    const dry = await ws.run(['forget', 'jobs.yaml', '--job', 'import', '--key', 'C0001', '--dry-run']);

    expect(dry.exitCode).toBe(0);
    expect(dry.stdout).toMatch(/^C0001: would erase from the state store: 1 record, 2 change journal lines \(of run 1\); .*\ndry run: nothing was erased\n$/);
    expect(emulator.v2Counters().total.received).toBe(before);
    expect(inState(ws, 'C0001')).toBe(true);
    const refused = await ws.run(['forget', 'jobs.yaml', '--job', 'import', '--key', 'C0001', '--max-duration', '5m']);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain('--max-duration: only with --platform');
    expect(inState(ws, 'C0001')).toBe(true);
  });

  it('privacy.mask masks the logs of a v2 job keyed by email; the operator\'s stdout line names the key given', async () => {
    const email = 'josephine.doe@example.com';
    const ws = workspace();
    ws.write('people.csv', `email,first_name\n${email},Josephine\nmax.roe@example.org,Max\n`);
    const job = ['input: people.csv', 'key: { column: email, field: email }', 'fields:', '  firstName: first_name', 'state: state/people.db', 'privacy: { mask: [email, firstName] }'].join('\n');
    ws.write('jobs.yaml', jobsYaml({ url: emulator.v2Url, name: 'people', token: WORKSPACE_TOKEN, job, connectionExtra: '    api: v2\n    channelId: 1' }));
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'first'])).exitCode).toBe(0);
    expect(emulator.contacts(TOKEN)).toHaveLength(2);

    const forget = await ws.run(['forget', 'jobs.yaml', '--job', 'people', '--key', email, '--platform', '--log-level', 'debug']);

    expect(forget.exitCode).toBe(0);
    expect(forget.stdout).toMatch(new RegExp(`^${email.replace(/\./g, '\\.')}: deleted on the platform: contact \\d+; erased from the state store`));
    expect(deletes(emulator)).toBe(1);
    expect(emulator.contacts(TOKEN)).toHaveLength(1);
    expect(forget.stderr).toContain('j•••@example.com');
    expect([email, encodeURIComponent(email)].filter((form) => forget.stderr.includes(form))).toEqual([]);
  });

  it('refuses (75) while a run holds the job\'s state: no call, nothing deleted or erased', async () => {
    const ws = await synced(v2Jobs(emulator.v2Url), 1);
    const before = emulator.v2Counters().total.received;
    const held = acquireJobLock({ jobsFile: 'jobs.yaml', job: 'import', target: stateLockTarget(join(ws.dir, STATE_FILE)) }, { command: 'run jobs.yaml', pid: 4242, host: 'cron-1' });
    try {
      const forget = await ws.run(['forget', 'jobs.yaml', '--job', 'import', '--key', 'C0001', '--platform']);
      expect(forget.exitCode).toBe(75);
    } finally {
      held.release();
    }
    expect(emulator.v2Counters().total.received).toBe(before);
    expect(emulator.contacts(TOKEN)).toHaveLength(1);
    expect(inState(ws, 'C0001')).toBe(true);
  });

  it('on v1 deletes nothing, erases the store and lists the contact id to delete by hand: exit 1', async () => {
    const ws = await synced(jobsYaml({ url: emulator.url, job: STATE_JOB }), 2);
    const id = contactIdOf(emulator, 'C0001');
    emulator.resetCounters(TOKEN);

    const forget = await ws.run(['forget', 'jobs.yaml', '--job', 'import', '--key', 'C0001', '--platform']);

    expect(forget.exitCode).toBe(1);
    const lines = forget.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(new RegExp(`^C0001: API v1 cannot delete a contact: delete contact ${id} in the platform's interface \\(nothing was deleted there\\); erased from the state store: 1 record`));
    expect(lines.at(-1)).toBe('API v1 cannot delete a contact: the erasure is not complete until the contacts listed are deleted in the platform\'s interface (exit 1)');
    // One search, nothing else: no write of any kind.
    const counters = emulator.counters(TOKEN);
    expect(counters.total.received).toBe(1);
    expect(counters.byOperation.searchContacts?.received).toBe(1);
    expect(deletes(emulator)).toBe(0);
    expect(emulator.contacts(TOKEN)).toHaveLength(2);
    expect(inState(ws, 'C0001')).toBe(false);
  });
});
