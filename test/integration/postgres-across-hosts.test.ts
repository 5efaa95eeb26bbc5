/**
 * A job's memory in PostgreSQL outlives the machine (issue 44, items 2 and 3): `contact-sync run`
 * on "host A" (a workspace of its own: its own folder, jobs file path, home and host lock folder)
 * is SIGKILLed while a create is in flight, and the same job run on "host B" (another workspace,
 * the same database, token and job) finishes it: no create sent twice, every create journalled,
 * nothing left pending. A run whose database connection is lost mid-run stops (exit 3) with its
 * reports complete, and the next run resumes with no duplicate. A v2 greeting left "maybe sent" by
 * host A's killed run is settled by host B from the contact's messages: every contact greeted
 * exactly once.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import type { FaultOptions, RunningEmulator } from '../../src/emulator/index.js';
import { CUSTOMERS_JOB, TOKEN, customersCsv, fastEmulator, jobsYaml, workspace, type Workspace } from '../helpers/cli-harness.js';
import { startCli, useCliChildren, waitForQuiet, waitUntil } from '../helpers/cli-process.js';
import { useTestDatabase } from '../helpers/postgres-support.js';
import { startRecordingProxy, type RecordingProxy } from '../helpers/recording-proxy.js';
import { asExpected, contactsByKey, customerKey, expectedCustomer } from '../helpers/state-fixtures.js';

const ROWS = 30;
const WAIT_MS = 20_000;
const COMMAND = ['run', 'jobs.yaml', '--report-dir', 'reports', '--log-level', 'warn'];
/** Every call waits 5 to 20 ms before the emulator acts on it: a kill finds calls in flight. */
const SLOW: FaultOptions = { latency: { minMs: 5, maxMs: 20 } };

const database = useTestDatabase();

/** A host: a workspace of its own with the customers file and a jobs file naming the shared database (schema `schema`). */
function host(url: string, schema: string, extra = ''): Workspace {
  const ws = workspace();
  ws.write('customers.csv', customersCsv(ROWS));
  ws.write('jobs.yaml', jobsYaml({ url, job: `${CUSTOMERS_JOB.replace('state: false', `state: { url: "${database.url}", schema: ${schema} }`)}\nconcurrency: 4${extra}` }));
  return ws;
}

function readReport(ws: Workspace, file: string): Array<Record<string, string>> {
  return parse<Record<string, string>>(readFileSync(join(ws.dir, 'reports', file), 'utf8'), { columns: true, bom: true });
}

/** One contact per key, with the file's fields and tags, and exactly ROWS creates received. */
function expectPlatformAsFile(platform: RunningEmulator): void {
  const byKey = contactsByKey(platform);
  expect(byKey.size).toBe(ROWS);
  for (let i = 1; i <= ROWS; i++) expect(byKey.get(customerKey(i))?.map(asExpected)).toEqual([expectedCustomer(i)]);
  expect(platform.counters(TOKEN).byOperation.createContact.received).toBe(ROWS);
}

describe('the state in PostgreSQL, across hosts', () => {
  const children = useCliChildren();
  let emulator: RunningEmulator | undefined;
  afterEach(async () => {
    await emulator?.close();
    emulator = undefined;
  });

  it.each([
    { name: 'upsert', schema: 'hosts_upsert', extra: '' },
    { name: 'mode create (no search: only the pending mark tells host B)', schema: 'hosts_create', extra: '\nmode: create' },
  ])('a run killed on host A while a create is in flight is finished on host B: $name', async ({ schema, extra }) => {
    const platform = await fastEmulator({ faults: SLOW, seed: 44 });
    emulator = platform;
    const hostA = host(platform.url, schema, extra);
    const hostB = host(platform.url, schema, extra);

    const killed = children.track(startCli(COMMAND, hostA.dir));
    await waitUntil(() => platform.counters(TOKEN).byOperation.createContact.received >= 9, 'the 9th create received', WAIT_MS, killed);
    killed.child.kill('SIGKILL');
    const committedAtKill = platform.contacts(TOKEN).length;
    expect(await killed.exited(WAIT_MS)).toEqual({ code: null, signal: 'SIGKILL' });
    expect(committedAtKill).toBeLessThan(platform.counters(TOKEN).byOperation.createContact.received);
    await waitUntil(() => platform.contacts(TOKEN).length === platform.counters(TOKEN).byOperation.createContact.received, 'the creates in flight landed', WAIT_MS);
    await waitForQuiet(() => platform.counters(TOKEN).total.received, 50, WAIT_MS);

    platform.setFaults({});
    const resumed = children.track(startCli(COMMAND, hostB.dir));
    const exit = await resumed.exited(WAIT_MS);
    expect({ ...exit, output: exit.code === 0 ? '' : resumed.output() }).toEqual({ code: 0, signal: null, output: '' });

    expectPlatformAsFile(platform);
    // Every create journalled once, under the run that sent it or the run that settled it; none pending.
    const creates = await database.query<{ key: string }>(`SELECT key FROM ${schema}.changes WHERE job = 'import' AND operation = 'create' ORDER BY key`);
    expect(creates.map((line) => line.key)).toEqual(Array.from({ length: ROWS }, (_, i) => customerKey(i + 1)).sort());
    expect(await database.query(`SELECT key FROM ${schema}.pending_creates`)).toEqual([]);

    // Host A's next night knows everything host B did: no call.
    platform.resetCounters(TOKEN);
    expect((await hostA.run(['run', 'jobs.yaml', '--report-dir', 'after'])).exitCode).toBe(0);
    expect(platform.counters(TOKEN).total.received).toBe(0);
  }, 60_000);

  it('a run whose database connection is lost stops with exit 3 and complete reports; the next run resumes with no duplicate', async () => {
    const platform = await fastEmulator({ faults: SLOW, seed: 45 });
    emulator = platform;
    const schema = 'hosts_lost';
    const ws = host(platform.url, schema);

    const run = children.track(startCli(COMMAND, ws.dir));
    await waitUntil(() => platform.counters(TOKEN).byOperation.createContact.received >= 6, 'the 6th create received', WAIT_MS, run);
    // The database ends every connection of the run (a failover, an administrator, a network cut).
    const ended = await database.query<{ ended: boolean }>("SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'contact-sync'");
    expect(ended.length).toBeGreaterThan(0);
    const exit = await run.exited(WAIT_MS);
    expect({ code: exit.code, said: /state store|database/i.test(run.output()) }).toEqual({ code: 3, said: true });

    // The reports are whole: valid CSV, each row at most once, the summary says the run aborted.
    const lines = readReport(ws, 'import.results.csv').map((row) => row.line);
    expect(new Set(lines).size).toBe(lines.length);
    const summary = JSON.parse(readFileSync(join(ws.dir, 'reports', 'import.summary.json'), 'utf8')) as { status: string; aborted?: { code: string } };
    expect(summary).toMatchObject({ status: 'aborted', aborted: { code: 'STATE_WRITE_FAILED' } });
    expect(run.output()).not.toMatch(/\n\s+at .+\(.+:\d+:\d+\)/);

    await waitUntil(() => platform.contacts(TOKEN).length === platform.counters(TOKEN).byOperation.createContact.received, 'the creates in flight landed', WAIT_MS);
    await waitForQuiet(() => platform.counters(TOKEN).total.received, 50, WAIT_MS);
    platform.setFaults({});
    const next = await ws.run(['run', 'jobs.yaml', '--report-dir', 'next']);
    expect(next.exitCode).toBe(0);
    expectPlatformAsFile(platform);
  }, 60_000);

  it('a v2 greeting left maybe sent by a run killed on host A is found by host B: every contact greeted exactly once', async () => {
    const workspaceToken = 'workspace-token-hosts';
    const platform = await fastEmulator({
      workspaceTokens: [workspaceToken],
      rateLimits: { contacts: { limit: 60_000, periodMs: 60_000 }, messages: { limit: 1000, periodMs: 1000 }, v2: { limit: 1000, periodMs: 1000 } },
    });
    emulator = platform;
    const isSend = (method: string, path: string): boolean => method === 'POST' && /\/message$/.test(path.split('?')[0] ?? '');
    let holding = true;
    let held = 0;
    const recording: RecordingProxy = await startRecordingProxy(platform.v2Url, {
      holdAnswer: (method, path) => {
        if (!holding || !isSend(method, path)) return false;
        held += 1;
        return true;
      },
    });
    try {
      const rows = 4;
      const schema = 'hosts_greetings';
      const job = `${CUSTOMERS_JOB.replace('state: false', `state: { url: "${database.url}", schema: ${schema} }`)}\nmessage: { when: created, text: "Hi {{first_name}}" }`;
      const onHost = (): Workspace => {
        const ws = workspace();
        ws.write('customers.csv', customersCsv(rows));
        ws.write('jobs.yaml', jobsYaml({ url: recording.url, token: workspaceToken, job, connectionExtra: '    api: v2\n    channelId: 1' }));
        return ws;
      };
      const hostA = onHost();
      const hostB = onHost();

      const killed = children.track(startCli(COMMAND, hostA.dir));
      await waitUntil(() => held >= 1, 'a greeting was stored by the platform and its answer held', WAIT_MS, killed);
      killed.child.kill('SIGKILL');
      expect(await killed.exited(WAIT_MS)).toEqual({ code: null, signal: 'SIGKILL' });
      await waitForQuiet(() => platform.v2Counters().total.received, 50, WAIT_MS);
      holding = false;
      const greetedAtKill = platform.v2Messages().length;
      const maybeSent = await database.query(`SELECT contact_id FROM ${schema}.messages WHERE job = 'import' AND status = 'unknown'`);
      expect(maybeSent.length).toBeGreaterThanOrEqual(1);

      const resumed = await hostB.run(COMMAND);
      expect({ exitCode: resumed.exitCode, stderr: resumed.exitCode === 0 ? '' : resumed.stderr }).toEqual({ exitCode: 0, stderr: '' });
      expect(platform.contacts(TOKEN)).toHaveLength(rows);
      const greetings = platform.v2Messages();
      expect(greetings).toHaveLength(rows);
      expect(new Set(greetings.map((message) => String(message.contactId))).size).toBe(rows);
      expect(greetedAtKill).toBeLessThanOrEqual(rows);
      expect(await database.query(`SELECT contact_id FROM ${schema}.messages WHERE job = 'import' AND status <> 'sent'`)).toEqual([]);
    } finally {
      await recording.close();
    }
  }, 60_000);
});
