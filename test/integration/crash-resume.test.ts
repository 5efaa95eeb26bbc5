/**
 * Crash-safe resume: `contact-sync run` in a child process is SIGKILLed at seeded points of a run
 * against an emulator in this process (latency on every call, so each kill lands with requests in
 * flight), then the same command is run again to the end. The platform must end as if the first
 * run had finished: one contact per key with its fields and tags, no create ever sent twice for a
 * key, and a second report that covers every row of the file.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import type { CallCounters, FaultOptions, RunningEmulator } from '../../src/emulator/index.js';
import { StateStore } from '../../src/state/state-store.js';
import { TOKEN, customersCsv, fastEmulator, jobsYaml, workspace, type Workspace } from '../helpers/cli-harness.js';
import { type CliProcess, startCli, useCliChildren, waitForQuiet, waitUntil } from '../helpers/cli-process.js';
import { STATE_FILE, STATE_JOB, asExpected, contactsByKey, customerKey, expectedCustomer } from '../helpers/state-fixtures.js';

const ROWS = 30;
const COMMAND = ['run', 'jobs.yaml', '--report-dir', 'reports', '--log-level', 'warn'];
/** Every call waits 5 to 20 ms before the emulator acts on it: a kill finds calls in flight. */
const SLOW: FaultOptions = { latency: { minMs: 5, maxMs: 20 } };
const WAIT_MS = 15_000;

interface KillPoint {
  name: string;
  /** Seed of the emulator's latency draws (and faults). */
  seed: number;
  faults: FaultOptions;
  /** Kill the run when this holds; one condition per killed run, in order (counters are cumulative). */
  killWhen: Array<(counters: CallCounters) => boolean>;
  /** The kill must find a create received and not answered (the emulator commits it afterwards). */
  createInFlight?: boolean;
  /** The job's mode. @default 'upsert' */
  mode?: 'create';
}

const KILL_POINTS: KillPoint[] = [
  { name: 'at its first call (a search in flight)', seed: 11, faults: SLOW, killWhen: [(c) => c.total.received >= 1] },
  {
    name: 'between the 12th create being received and its answer (committed after the kill), other rows half done',
    seed: 12,
    faults: SLOW,
    killWhen: [(c) => c.byOperation.createContact.received >= 12],
    createInFlight: true,
  },
  { name: 'while a tag call is in flight (contact created, tags not yet)', seed: 13, faults: SLOW, killWhen: [(c) => c.byOperation.addTags.received >= 7] },
  {
    name: 'twice: after 47 calls, then again 12 calls into the re-run',
    seed: 14,
    faults: SLOW,
    killWhen: [(c) => c.total.received >= 47, (c) => c.total.received >= 47 + 12],
  },
  // mode: create sends a create with no search first: only the "create pending" journal tells the
  // re-run that a create may have reached the platform.
  {
    name: 'in mode create, between the first create being received and its answer',
    seed: 15,
    faults: SLOW,
    mode: 'create',
    killWhen: [(c) => c.byOperation.createContact.received >= 1],
    createInFlight: true,
  },
  {
    name: 'in mode create, between the 9th create being received and its answer, tag calls in flight',
    seed: 16,
    faults: SLOW,
    mode: 'create',
    killWhen: [(c) => c.byOperation.createContact.received >= 9],
    createInFlight: true,
  },
  {
    name: 'in mode create, after a create was committed and its answer dropped, while the run searches for it',
    seed: 17,
    faults: { ...SLOW, createCommitThenDrop: 1, operations: ['createContact', 'searchContacts'] },
    mode: 'create',
    killWhen: [(c) => c.byOperation.createContact.faulted >= 2],
  },
];

/** The rows of a report CSV; throws if it is not valid CSV. */
function readReport(ws: Workspace, file: string): Array<Record<string, string>> {
  return parse<Record<string, string>>(readFileSync(join(ws.dir, 'reports', file), 'utf8'), { columns: true, bom: true });
}

describe('run killed with SIGKILL, then run again: the platform ends as if the first run had finished', () => {
  let emulator: RunningEmulator | undefined;
  const children = useCliChildren();

  afterEach(async () => {
    await emulator?.close();
    emulator = undefined;
  });

  const start = (ws: Workspace): CliProcess => {
    return children.track(startCli(COMMAND, ws.dir));
  };

  it.each(KILL_POINTS)('killed $name', async (point) => {
    const platform = await fastEmulator({ faults: point.faults, seed: point.seed });
    emulator = platform;
    const ws = workspace();
    ws.write('customers.csv', customersCsv(ROWS));
    ws.write('jobs.yaml', jobsYaml({ url: platform.url, job: `${STATE_JOB}\nconcurrency: 4${point.mode === undefined ? '' : `\nmode: ${point.mode}`}` }));

    for (const [index, killWhen] of point.killWhen.entries()) {
      const cli = start(ws);
      await waitUntil(() => killWhen(platform.counters(TOKEN)), `kill point ${index + 1} of "${point.name}"`, WAIT_MS, cli);
      cli.child.kill('SIGKILL');
      const committedAtKill = platform.contacts(TOKEN).length;
      const createsAtKill = platform.counters(TOKEN).byOperation.createContact.received;
      expect(await cli.exited(WAIT_MS)).toEqual({ code: null, signal: 'SIGKILL' });
      if (point.createInFlight === true) expect(committedAtKill).toBeLessThan(createsAtKill);
      // Requests the dead process sent land now, as they would on the platform; the re-run must
      // not race them (no client could): wait until every create received is stored and no
      // request arrived for 50 ms.
      await waitUntil(() => platform.contacts(TOKEN).length === platform.counters(TOKEN).byOperation.createContact.received, 'the creates in flight landed', WAIT_MS);
      await waitForQuiet(() => platform.counters(TOKEN).total.received, 50, WAIT_MS);

      // The killed run's reports are valid CSV, each row reported at most once.
      const lines = readReport(ws, 'import.results.csv').map((row) => row.line);
      expect(new Set(lines).size).toBe(lines.length);
      readReport(ws, 'import.rejected.csv');
    }

    platform.setFaults({});
    const rerun = start(ws);
    const exit = await rerun.exited(WAIT_MS);
    expect({ ...exit, output: exit.code === 0 ? '' : rerun.output() }).toEqual({ code: 0, signal: null, output: '' });

    // Every row of the file is reported exactly once, none failed.
    const results = readReport(ws, 'import.results.csv');
    expect(results.map((row) => Number(row.line)).sort((a, b) => a - b)).toEqual(Array.from({ length: ROWS }, (_, i) => i + 2));
    expect(results.filter((row) => row.outcome === 'failed')).toEqual([]);
    expect(readReport(ws, 'import.rejected.csv')).toEqual([]);

    // One contact per key with its fields and tags, and no create was ever sent twice for a key.
    const byKey = contactsByKey(platform);
    expect(byKey.size).toBe(ROWS);
    for (let i = 1; i <= ROWS; i++) {
      expect(byKey.get(customerKey(i))?.map(asExpected)).toEqual([expectedCustomer(i)]);
    }
    expect(platform.counters(TOKEN).byOperation.createContact.received).toBe(ROWS);
    const idByKey = new Map([...byKey].map(([key, contacts]) => [key, contacts[0]?.id]));
    expect(results.filter((row) => row.contact_id !== idByKey.get(row.key ?? ''))).toEqual([]);

    // The state agrees: no create left pending, every key known, and the next run costs nothing.
    const store = StateStore.open(join(ws.dir, STATE_FILE), { job: 'import', keyField: 'customerid' });
    try {
      expect(store.pendingCreates()).toEqual([]);
      expect(store.summary().keys).toBe(ROWS);
      expect(store.lastRun()).toMatchObject({ finished: true, exitCode: 0 });
    } finally {
      store.close();
    }
    platform.resetCounters(TOKEN);
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'after'])).exitCode).toBe(0);
    expect(platform.counters(TOKEN).total.received).toBe(0);
  }, 40_000);
});
