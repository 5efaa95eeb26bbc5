/**
 * Creates whose answer the run never journalled (issue 33, docs/undo.md "Creates whose answer was
 * lost"): a run is stopped at the moment the platform committed its 20th create and the answer is
 * still on its way, by a kill -9, a state store disk that fills up, or a state store another
 * process locks. The next run adopts the contact through its pending-create search; after it,
 * every contact on the platform is journalled as created, the ones the stopped run made under the
 * stopped run, and `undo --run <stopped run>` tags each of them contact-sync-undone. The failing
 * store also stops the run from taking rows: no create leaves once the store cannot be written,
 * and only the rows in flight meet the failure, the others are not sent.
 */
import { writeSync, openSync, closeSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { StateStore } from '../../src/state/state-store.js';
import { UNDONE_TAG } from '../../src/pipeline/undo/undo-plan.js';
import { CUSTOMERS_JOB, TOKEN, customersCsv, fastEmulator, jobsYaml, workspace, type Workspace } from '../helpers/cli-harness.js';
import { type CliProcess, startCli, useCliChildren } from '../helpers/cli-process.js';
import { startHeldCreateProxy, type HeldAnswer, type HeldCreateProxy } from './support/held-create-proxy.js';
import { platformQuiet } from './support/quiet-platform.js';
import { CAN_MOUNT_SMALL_DISK, SMALL_DISK_SKIP_REASON, smallDisk, type SmallDisk } from './support/small-disk.js';

const ROWS = 60;
/** The committed create whose answer is held while the run is stopped. */
const AT_CREATE = 20;
const CONCURRENCY = 2;
const WAIT_MS = 60_000;

const withSmallDisk = CAN_MOUNT_SMALL_DISK ? it : it.skip;
if (!CAN_MOUNT_SMALL_DISK) console.warn(`lost-create-answers: the full-disk test is skipped: ${SMALL_DISK_SKIP_REASON}`);

let emulator: RunningEmulator | undefined;
let proxy: HeldCreateProxy | undefined;
let disk: SmallDisk | undefined;
const children = useCliChildren();

afterEach(async () => {
  await proxy?.close();
  await emulator?.close();
  disk?.unmount();
  proxy = undefined;
  emulator = undefined;
  disk = undefined;
});

interface Stopped {
  ws: Workspace;
  statePath: string;
  /** The run that was stopped, as its state store journalled it. */
  runId: number;
  /** The contacts on the platform once it was stopped. */
  madeIds: string[];
  /** Creates the platform had received when the answer was held, and in all. */
  createsAtHold: number;
  createsInAll: number;
}

/**
 * Runs the import in a child process through the proxy; `act` runs while the 20th committed
 * create's answer is held, and says what becomes of it. Once the child ended with `exit`,
 * `recover` undoes what `act` did to the machine (frees the disk, lets go of the lock).
 */
async function stopAtTheTwentiethCreate(
  statePath: (ws: Workspace) => string,
  act: (cli: CliProcess, statePath: string) => HeldAnswer | Promise<HeldAnswer>,
  exit: { code: number | null; signal: NodeJS.Signals | null },
  recover: () => void = () => undefined,
): Promise<Stopped> {
  const platform = await fastEmulator();
  emulator = platform;
  const ws = workspace();
  const state = statePath(ws);
  let createsAtHold = 0;
  // The run is started once the proxy is there: the act finds it here.
  const started: { cli?: CliProcess } = {};
  proxy = await startHeldCreateProxy(platform.url, AT_CREATE, () => {
    createsAtHold = platform.counters(TOKEN).byOperation.createContact.received;
    return act(started.cli!, state);
  });
  ws.write('customers.csv', customersCsv(ROWS));
  ws.write('jobs.yaml', jobsYaml({ url: proxy.url, job: `${CUSTOMERS_JOB.replace('state: false', `state: ${state}`)}\nconcurrency: ${CONCURRENCY}` }));
  const cli = children.track(startCli(['run', 'jobs.yaml', '--report-dir', 'stopped', '--log-level', 'warn'], ws.dir));
  started.cli = cli;
  const ended = await cli.exited(WAIT_MS);
  expect({ ...ended, output: ended.code === exit.code && ended.signal === exit.signal ? '' : cli.output() }).toEqual({ ...exit, output: '' });
  await proxy.released;
  recover();
  // A request of the stopped run still on its way lands before the next run starts.
  await platformQuiet(platform, 100);
  const store = StateStore.open(state, { job: 'import', keyField: 'customerid' });
  const [run] = store.lastRuns(1);
  store.close();
  return { ws, statePath: state, runId: run!.id, madeIds: platform.contacts(TOKEN).map((contact) => contact.id).sort(), createsAtHold, createsInAll: platform.counters(TOKEN).byOperation.createContact.received };
}

/** The contact ids each run journalled as created, sorted. */
function journalledCreates(statePath: string, runIds: readonly number[]): string[][] {
  const store = StateStore.open(statePath, { job: 'import', keyField: 'customerid' });
  try {
    return runIds.map((runId) => store.changesOfRun(runId).filter((line) => line.operation === 'create').map((line) => line.contactId).sort());
  } finally {
    store.close();
  }
}

/**
 * The proof: the stopped run journalled fewer creates than it made (the gap is there), the next
 * run finishes the file and journals each contact the stopped run made as the stopped run's
 * create, once, and its own creates as its own; undo of the stopped run tags exactly its contacts.
 */
async function expectEveryCreateJournalledAndUndone(stopped: Stopped): Promise<void> {
  const platform = emulator!;
  const { ws, statePath, runId, madeIds } = stopped;
  const [beforeAdoption = []] = journalledCreates(statePath, [runId]);
  expect(beforeAdoption.length).toBeLessThan(madeIds.length);

  const next = await ws.run(['run', 'jobs.yaml', '--report-dir', 'next']);
  expect({ exitCode: next.exitCode, output: next.exitCode === 0 ? '' : next.stdout + next.stderr }).toEqual({ exitCode: 0, output: '' });
  const nextRunId = Number(ws.summary('import', 'next').runId);
  const contacts = platform.contacts(TOKEN);
  expect(new Set(contacts.map((contact) => contact.custom_fields.customerid)).size).toBe(ROWS);
  expect(contacts).toHaveLength(ROWS);

  const [byStopped, byNext] = journalledCreates(statePath, [runId, nextRunId]);
  expect(byStopped).toEqual(madeIds);
  const made = new Set(madeIds);
  expect(byNext).toEqual(contacts.map((contact) => contact.id).filter((id) => !made.has(id)).sort());
  const summary = StateStore.open(statePath, { job: 'import', keyField: 'customerid' });
  expect(summary.summary().pendingCreates).toBe(0);
  summary.close();

  const undo = await ws.run(['undo', 'jobs.yaml', '--job', 'import', '--run', String(runId), '--report-dir', 'undo']);
  expect({ exitCode: undo.exitCode, output: undo.exitCode === 0 ? '' : undo.stdout + undo.stderr }).toEqual({ exitCode: 0, output: '' });
  const tagged = platform.contacts(TOKEN).filter((contact) => contact.tags.includes(UNDONE_TAG)).map((contact) => contact.id).sort();
  expect(tagged).toEqual(madeIds);
}

/** The stopped run's reports: only the rows in flight met the failure, the rows after them were not sent. */
function expectNoRowTakenAfterTheFailure(stopped: Stopped): void {
  const { ws } = stopped;
  const summary = ws.summary('import', 'stopped');
  expect(summary.aborted).toMatchObject({ code: 'STATE_WRITE_FAILED' });
  const results = ws.results('import', 'stopped');
  const failedOnTheStore = results.filter((row) => row.error_code === 'STATE_WRITE_FAILED');
  expect(failedOnTheStore.length).toBeGreaterThan(0);
  expect(failedOnTheStore.length).toBeLessThanOrEqual(CONCURRENCY);
  expect(results.filter((row) => row.error_code !== 'STATE_WRITE_FAILED' && row.outcome !== 'created').map((row) => row.error_code)).toEqual(
    results.filter((row) => row.error_code !== 'STATE_WRITE_FAILED' && row.outcome !== 'created').map(() => 'ABORTED'),
  );
  expect(summary.rows.notReached).toBeGreaterThan(0);
  // A create leaves only once its key is marked pending: after the store failed, none but those
  // the other rows in flight had sent before it (on their way when the answer was held).
  expect(stopped.createsInAll).toBeLessThanOrEqual(stopped.createsAtHold + CONCURRENCY - 1);
}

describe('a create committed on the platform whose answer the run never journalled', () => {
  it('killed with SIGKILL: the next run journals it as the killed run\'s create, and undo of the killed run tags it', async () => {
    const stopped = await stopAtTheTwentiethCreate(
      (ws) => join(ws.dir, 'state', 'import.db'),
      async (cli): Promise<HeldAnswer> => {
        cli.child.kill('SIGKILL');
        await cli.exited(WAIT_MS);
        return 'drop';
      },
      { code: null, signal: 'SIGKILL' },
    );
    await expectEveryCreateJournalledAndUndone(stopped);
  }, 120_000);

  withSmallDisk('its state store\'s disk full: the run stops with STATE_WRITE_FAILED taking no more rows; the next run journals the create under it, and undo tags it', async () => {
    disk = smallDisk(16 * 1024)!;
    const filler = join(disk.dir, 'filler');
    const stopped = await stopAtTheTwentiethCreate(
      () => join(disk!.dir, 'import.db'),
      () => {
        fill(filler);
        return 'pass';
      },
      { code: 3, signal: null },
      () => rmSync(filler),
    );
    expectNoRowTakenAfterTheFailure(stopped);
    await expectEveryCreateJournalledAndUndone(stopped);
  }, 120_000);

  it('its state store locked by another process: the run stops with STATE_WRITE_FAILED taking no more rows; the next run journals the create under it, and undo tags it', async () => {
    let holder: Database.Database | undefined;
    const stopped = await stopAtTheTwentiethCreate(
      (ws) => join(ws.dir, 'state', 'import.db'),
      (_cli, statePath) => {
        // A writer's lock held until the run ended: each of its writes waits out SQLite's busy timeout, then fails.
        holder = new Database(statePath);
        holder.exec('BEGIN IMMEDIATE');
        return 'pass';
      },
      { code: 3, signal: null },
      () => {
        holder?.exec('ROLLBACK');
        holder?.close();
      },
    );
    expectNoRowTakenAfterTheFailure(stopped);
    await expectEveryCreateJournalledAndUndone(stopped);
  }, 120_000);
});

/** Fills the disk `path` is on, to the last byte. */
function fill(path: string): void {
  const fd = openSync(path, 'w');
  const block = Buffer.alloc(64 * 1024, 1);
  try {
    for (let size = block.length; size > 0; ) {
      try {
        writeSync(fd, block, 0, size);
      } catch {
        size = size > 1 ? Math.floor(size / 2) : 0;
      }
    }
  } finally {
    closeSync(fd);
  }
}
