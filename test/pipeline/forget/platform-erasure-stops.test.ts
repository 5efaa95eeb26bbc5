/**
 * `forget --platform` under the engine's stop rules (issue 46 item 4): the deadline of
 * `--max-duration`, a signal and a key taken after either. A key not reached is neither looked up
 * nor erased: the store still knows it, so forget run again finishes the job. Against the
 * emulator (port 0) on v1, whose contacts are a person's to delete: the lookups are the calls.
 * The clock is the test's, and the signal lands after the first key's lookup by construction.
 */
import { join } from 'node:path';
import type { ContactsApi } from '../../../src/api/contacts-api.js';
import type { RunningEmulator } from '../../../src/emulator/index.js';
import { erasePlatformContacts } from '../../../src/pipeline/forget/platform-erasure.js';
import { runSync } from '../../../src/pipeline/run-job.js';
import { StateStore } from '../../../src/state/state-store.js';
import { testClient } from '../../api/support/test-client.js';
import { customersCsv, fastEmulator, TOKEN, workspace, type Workspace } from '../../helpers/cli-harness.js';
import { emulatorJob } from '../../helpers/job-factory.js';
import type { Job } from '../../../src/config/job-types.js';

const KEYS = ['C0001', 'C0002', 'C0003'];

describe('erasePlatformContacts under the stop rules', () => {
  let emulator: RunningEmulator;
  let ws: Workspace;
  let state: StateStore;
  let job: Job;

  beforeEach(async () => {
    emulator = await fastEmulator();
    ws = workspace();
    job = emulatorJob(emulator.url, TOKEN, ws.dir);
    state = StateStore.open(job.state as string, { job: job.name, keyField: job.key.field });
    ws.write('customers.csv', customersCsv(KEYS.length));
    const first = await runSync({ job, api: testClient({ baseUrl: emulator.url, token: TOKEN }), reportDir: join(ws.dir, 'first'), dryRun: false, state });
    expect(first.summary.rows.created).toBe(KEYS.length);
    emulator.resetCounters(TOKEN);
  });

  afterEach(async () => {
    state.close();
    await emulator.close();
  });

  const known = (): string[] => KEYS.filter((key) => state.get(key) !== undefined);
  const outcomes = (erasure: Awaited<ReturnType<typeof erasePlatformContacts>>): string[] => erasure.keys.map((key) => `${key.key}: ${key.outcome}`);

  it('--max-duration already past: no key taken, each not reached and still known, status deadline, exit 4, no call', async () => {
    const api = testClient({ baseUrl: emulator.url, token: TOKEN });

    const erasure = await erasePlatformContacts({ job, api, state, keys: KEYS, dryRun: false, deadline: 1_000, now: () => new Date(2_000), argv: 'forget jobs.yaml --platform --keys 3' });

    expect([erasure.status, erasure.exitCode]).toEqual(['deadline', 4]);
    expect(outcomes(erasure)).toEqual(['C0001: not-reached', 'C0002: not-reached', 'C0003: not-reached']);
    expect(emulator.counters(TOKEN).total.received).toBe(0);
    expect(known()).toEqual(KEYS);
  });

  it('a signal after the first key\'s lookup: that key ends, no other is taken or erased, exit 130; forget again finishes the rest', async () => {
    const controller = new AbortController();
    const client = testClient({ baseUrl: emulator.url, token: TOKEN });
    // The first lookup's answer comes back with SIGINT already received.
    const api = new Proxy(client, {
      get(target, property) {
        const value = Reflect.get(target, property, target) as unknown;
        if (property !== 'searchContacts') return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
        return async function* (...args: Parameters<ContactsApi['searchContacts']>) {
          yield* target.searchContacts(...args);
          controller.abort('SIGINT');
        };
      },
    }) as ContactsApi;

    const erasure = await erasePlatformContacts({ job, api, state, keys: KEYS, dryRun: false, signal: controller.signal, argv: 'forget jobs.yaml --platform --keys 3' });

    expect([erasure.status, erasure.exitCode]).toEqual(['interrupted', 130]);
    // v1 cannot delete: the first key's contact is listed for a person, and the key leaves the store.
    expect(outcomes(erasure)).toEqual(['C0001: by-hand', 'C0002: not-reached', 'C0003: not-reached']);
    expect(emulator.counters(TOKEN).total.received).toBe(1);
    expect(known()).toEqual(['C0002', 'C0003']);

    const again = await erasePlatformContacts({ job, api: client, state, keys: ['C0002', 'C0003'], dryRun: false, argv: 'forget jobs.yaml --platform --keys 2' });
    expect(outcomes(again)).toEqual(['C0002: by-hand', 'C0003: by-hand']);
    expect(known()).toEqual([]);
  });
});
