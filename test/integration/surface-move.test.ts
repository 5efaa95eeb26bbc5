/**
 * A connection moved from API v1 to v2 (docs/reliability.md, "Moving a connection from v1 to v2"):
 * the state store keeps the surface each contact id came from, and a run on the other surface
 * never trusts such an id: it matches each known key again by its key field, once, and records the
 * id and surface it found; the run after it is a re-run at zero calls again.
 *
 * The "v2" api here is the v1 client talking to the emulator with its `surface` said to be v2's:
 * the emulator's v1 ids stay valid, so only the store's record of the surface can make the run
 * search (the planner reads nothing else of the surface for a key in a custom field).
 */
import { join } from 'node:path';
import type { ContactsApi } from '../../src/api/contacts-api.js';
import { type PlatformSurface } from '../../src/api/platform-surface.js';
import { V1_SURFACE } from '../../src/api/v1/surface.js';
import { V2_SURFACE } from '../../src/api/v2/surface.js';
import type { Job } from '../../src/config/job-types.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { runSync, type SyncRun } from '../../src/pipeline/run-job.js';
import { StateStore } from '../../src/state/state-store.js';
import { testClient } from '../api/support/test-client.js';
import { customersCsv, fastEmulator, TOKEN, workspace, type Workspace } from '../helpers/cli-harness.js';
import { callsByOperation, contactsWithKey, sortedTags } from '../helpers/integration-fixtures.js';
import { columnField, makeJob } from '../helpers/job-factory.js';

const ROWS = 30;

/** `api` with its surface said to be `surface`: every call still goes to `api`. */
function onSurface(api: ContactsApi, surface: PlatformSurface): ContactsApi {
  return new Proxy(api, {
    get: (target, name) => {
      if (name === 'surface') return surface;
      const value: unknown = Reflect.get(target, name, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

describe('a connection moved from API v1 to v2', () => {
  let emulator: RunningEmulator;
  let ws: Workspace;
  let runs = 0;

  beforeEach(async () => {
    emulator = await fastEmulator();
    ws = workspace();
    ws.write('customers.csv', customersCsv(ROWS));
  });
  afterEach(() => emulator.close());

  function importJob(overrides: Partial<Job> = {}): Job {
    return makeJob({
      name: 'import',
      connection: { ...makeJob().connection, baseUrl: emulator.url, token: TOKEN },
      input: { path: join(ws.dir, 'customers.csv'), delimiter: 'auto', encoding: 'utf-8' },
      fields: [columnField('firstName', 'first_name'), columnField('plan', 'plan')],
      tags: { column: 'segments', separator: ';', static: ['crm'], remove: [], prune: false },
      state: join(ws.dir, 'state.db'),
      concurrency: 4,
      ...overrides,
    });
  }

  /** The job's state file (these jobs keep one). */
  function stateFile(job: Job): string {
    if (typeof job.state !== 'string') throw new Error(`job "${job.name}" keeps no state file`);
    return job.state;
  }

  /** One run of `job` through an api on `surface`, with the calls the emulator received by operation. */
  async function run(job: Job, surface: PlatformSurface): Promise<{ run: SyncRun; calls: ReturnType<typeof callsByOperation>; results: Record<string, string>[] }> {
    emulator.resetCounters(TOKEN);
    const reportDir = `reports-${++runs}`;
    const store = StateStore.open(stateFile(job), { job: job.name, keyField: job.key.field });
    try {
      const done = await runSync({ job, api: onSurface(testClient({ baseUrl: emulator.url, token: TOKEN }), surface), reportDir: join(ws.dir, reportDir), dryRun: false, productVersion: '1.0.0', state: store });
      return { run: done, calls: callsByOperation(emulator), results: ws.results(job.name, reportDir) };
    } finally {
      store.close();
    }
  }

  function storedSurfaces(job: Job): Map<string, string> {
    const store = StateStore.open(stateFile(job), { job: job.name, keyField: job.key.field });
    try {
      return new Map(store.listKeys(Infinity).map((known) => [known.key, `${known.surface}:${known.contact.id}`]));
    } finally {
      store.close();
    }
  }

  it('re-matches every known key once by a search, records the v2 ids, and the next run makes no call', async () => {
    const job = importJob();
    const first = await run(job, V1_SURFACE);
    expect(first.run.summary.rows).toMatchObject({ created: ROWS, failed: 0 });
    const v1Ids = new Map(first.results.map((row) => [row.key ?? '', row.contact_id ?? '']));
    expect([...storedSurfaces(job).values()].every((entry) => entry.startsWith('v1:'))).toBe(true);
    // On its own surface, a re-run trusts the ids: no call.
    expect((await run(job, V1_SURFACE)).calls.total).toBe(0);

    const moved = await run(job, V2_SURFACE);
    // One search per known key, and nothing else: the rows are unchanged, no contact is created twice.
    expect(moved.calls).toMatchObject({ total: ROWS, searchContacts: ROWS, createContact: 0, updateContact: 0, addTags: 0 });
    expect(moved.run.summary.rows).toMatchObject({ total: ROWS, unchanged: ROWS, failed: 0 });
    expect(moved.results.filter((row) => row.api_calls !== '1' || row.contact_id !== v1Ids.get(row.key ?? ''))).toEqual([]);
    for (const key of v1Ids.keys()) expect(contactsWithKey(emulator, key)).toHaveLength(1);
    // The store now holds each key's id as the v2 search gave it.
    expect([...storedSurfaces(job).entries()].filter(([key, entry]) => entry !== `v2:${v1Ids.get(key)}`)).toEqual([]);

    const again = await run(job, V2_SURFACE);
    expect(again.calls.total).toBe(0);
    expect(again.run.summary.rows).toMatchObject({ total: ROWS, unchanged: ROWS });
    // Back on v1, the v2 ids are not trusted either: one search per key again, once.
    expect((await run(job, V1_SURFACE)).calls).toMatchObject({ total: ROWS, searchContacts: ROWS });
    expect((await run(job, V1_SURFACE)).calls.total).toBe(0);
  });

  it('writes a changed row to the contact the v2 search found, never by the v1 id without a search', async () => {
    const job = importJob();
    await run(job, V1_SURFACE);
    ws.write('customers.csv', customersCsv(ROWS, (i, cells) => (i % 10 === 0 ? [cells[0]!, `Renamed${i}`, ...cells.slice(2)] : cells)));
    const moved = await run(job, V2_SURFACE);
    expect(moved.calls).toMatchObject({ searchContacts: ROWS, updateContact: ROWS / 10, createContact: 0 });
    expect(moved.run.summary.rows).toMatchObject({ updated: ROWS / 10, unchanged: ROWS - ROWS / 10 });
    expect(contactsWithKey(emulator, 'C0010')[0]?.custom_fields.firstName).toBe('Renamed10');
    expect((await run(job, V2_SURFACE)).calls.total).toBe(0);
  });

  it('mode create searches a key known only by a v1 id instead of taking it as new: no duplicate', async () => {
    const job = importJob({ mode: 'create' });
    await run(job, V1_SURFACE);
    const moved = await run(job, V2_SURFACE);
    expect(moved.calls).toMatchObject({ searchContacts: ROWS, createContact: 0 });
    expect(emulator.contacts(TOKEN)).toHaveLength(ROWS);
  });

  it('the departed step searches a key known by a v1 id, acts on the contact found, and records its v2 id', async () => {
    const job = importJob({ onMissing: { action: 'tag', tags: ['left'], fields: {}, maxSharePercent: 100 } });
    await run(job, V1_SURFACE);
    // C0001 and C0002 leave the file.
    ws.write('customers.csv', customersCsv(ROWS).split('\n').filter((line) => !/^C000[12],/.test(line)).join('\n'));
    const moved = await run(job, V2_SURFACE);
    expect(moved.run.summary.departed).toMatchObject({ missing: 2, updated: 2, failed: 0 });
    // The rows left re-matched (a search each), the departed keys a search and a tag call each.
    expect(moved.calls).toMatchObject({ searchContacts: ROWS, addTags: 2, createContact: 0 });
    for (const key of ['C0001', 'C0002']) expect(sortedTags(contactsWithKey(emulator, key)[0])).toContain('left');
    expect(storedSurfaces(job).get('C0001')).toMatch(/^v2:/);
    const again = await run(job, V2_SURFACE);
    expect(again.calls.total).toBe(0);
  });
});
