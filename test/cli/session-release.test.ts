/**
 * What a run session takes it gives back (src/cli/run-session.ts): after `run`, `reconcile` and
 * `undo`, however each ended (a success, a failure after the locks were taken, a SIGINT through
 * the harness's signals emitter), no job lock is held, no holder file is left, and the emulator
 * `--emulator` started no longer answers.
 */
import { EventEmitter } from 'node:events';
import { readdirSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { acquireJobLock, runningHolder, type LockIdentity } from '../../src/lock/job-lock.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { CUSTOMERS_JOB, TOKEN, customersCsv, fastEmulator, jobsYaml, workspace, type CliRun, type Workspace } from '../helpers/cli-harness.js';
import { tempDir } from '../helpers/temp-dir.js';

const STATE_JOB = CUSTOMERS_JOB.replace('state: false', 'state: state/import.db');

/** Every file under `dir` whose name ends with `suffix`. */
function filesEndingWith(dir: string, suffix: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith(suffix))
    .map((name) => join(dir, name));
}

function lockIdentity(file: string): LockIdentity {
  return { jobsFile: 'jobs.yaml', job: 'import', target: { kind: 'channel', what: 'the lock under test', file } };
}

/** The job locks the workspace holds: its lock folder (in the workspace) and beside the state. */
function heldLocks(ws: Workspace): { lockFiles: string[]; held: string[]; holderFiles: string[] } {
  const lockFiles = filesEndingWith(ws.dir, '.lock');
  return {
    lockFiles,
    held: lockFiles.filter((file) => runningHolder(lockIdentity(file)) !== undefined),
    holderFiles: filesEndingWith(ws.dir, '.holder.json'),
  };
}

/** The locks were taken (the files are there) and none is held now, nor named as held. */
function expectLocksReleased(ws: Workspace, lockFiles: number): void {
  const locks = heldLocks(ws);
  expect(locks.lockFiles).toHaveLength(lockFiles);
  expect(locks.held).toEqual([]);
  expect(locks.holderFiles).toEqual([]);
}

/** The embedded emulator's URL, as the run logged it; it must not answer any more. */
async function expectEmulatorClosed(run: CliRun): Promise<void> {
  const url = /embedded emulator started url=(\S+)/.exec(run.stderr)?.[1];
  expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+/);
  await expect(fetch(`${url}/`)).rejects.toThrow();
}

/** Signals that deliver `signal` just after the command listens for it: the run is interrupted as it starts its jobs. */
function signalOnceListened(signal: 'SIGINT'): EventEmitter {
  const signals = new EventEmitter();
  signals.on('newListener', (event) => {
    if (event === signal) setImmediate(() => signals.emit(signal));
  });
  return signals;
}

function embeddedWorkspace(job: string): Workspace {
  const ws = workspace();
  ws.write('customers.csv', customersCsv(5));
  // The URL is replaced by the embedded emulator's.
  ws.write('jobs.yaml', jobsYaml({ url: 'http://127.0.0.1:9', job }));
  return ws;
}

/** A state file that cannot be a store: the job fails once its locks are held and the emulator runs. */
function emptyStateFile(ws: Workspace): void {
  mkdirSync(join(ws.dir, 'state'), { recursive: true });
  writeFileSync(join(ws.dir, 'state', 'import.db'), '');
}

describe('the check this file relies on', () => {
  it('sees a lock while it is held, and not once it is released', () => {
    const file = join(tempDir(), 'import.lock');
    const lock = acquireJobLock(lockIdentity(file), { command: 'test' });
    expect(runningHolder(lockIdentity(file))?.command).toBe('test');
    lock.release();
    expect(runningHolder(lockIdentity(file))).toBeUndefined();
  });
});

describe.each(['run', 'reconcile'] as const)('%s --emulator releases its locks and closes the emulator', (command) => {
  it('after a success', async () => {
    const ws = embeddedWorkspace(STATE_JOB);
    const run = await ws.run([command, 'jobs.yaml', '--emulator', '--report-dir', 'reports']);
    // reconcile: the platform lacks the file's 5 contacts (exit 1, the two differ).
    expect(run.exitCode).toBe(command === 'run' ? 0 : 1);
    expectLocksReleased(ws, 2);
    await expectEmulatorClosed(run);
  });

  it('after a failure once the locks are held (an empty state file: exit 2)', async () => {
    const ws = embeddedWorkspace(STATE_JOB);
    emptyStateFile(ws);
    const run = await ws.run([command, 'jobs.yaml', '--emulator', '--report-dir', 'reports']);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain('is empty (0 bytes)');
    // The state file exists: it is locked by its inode too.
    expectLocksReleased(ws, 3);
    await expectEmulatorClosed(run);
  });

  it('after a SIGINT (exit 130)', async () => {
    const ws = embeddedWorkspace(STATE_JOB);
    const run = await ws.run([command, 'jobs.yaml', '--emulator', '--report-dir', 'reports'], { signals: signalOnceListened('SIGINT') });
    expect(run.exitCode).toBe(130);
    expectLocksReleased(ws, 2);
    await expectEmulatorClosed(run);
  });
});

describe('undo releases its locks', () => {
  let emulator: RunningEmulator;
  beforeEach(async () => {
    emulator = await fastEmulator();
  });
  afterEach(async () => {
    await emulator.close();
  });

  /** A journalled run (run 1) of 5 created contacts to undo. */
  async function afterOneRun(): Promise<Workspace> {
    const ws = workspace();
    ws.write('customers.csv', customersCsv(5));
    ws.write('jobs.yaml', jobsYaml({ url: emulator.url, job: STATE_JOB }));
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'run'])).exitCode).toBe(0);
    return ws;
  }

  it('after a success', async () => {
    const ws = await afterOneRun();
    const undo = await ws.run(['undo', 'jobs.yaml', '--job', 'import', '--run', '1', '--report-dir', 'undo']);
    expect(undo.exitCode).toBe(0);
    expect(emulator.contacts(TOKEN).filter((contact) => contact.tags.includes('contact-sync-undone'))).toHaveLength(5);
    // The job on its channel, the state beside its file and by its inode.
    expectLocksReleased(ws, 3);
  });

  it('after a failure once the locks are held (a run the journal does not hold: exit 2)', async () => {
    const ws = await afterOneRun();
    const undo = await ws.run(['undo', 'jobs.yaml', '--job', 'import', '--run', '9', '--report-dir', 'undo']);
    expect(undo.exitCode).toBe(2);
    expect(undo.stderr).toContain('has no run 9 in its state store');
    expectLocksReleased(ws, 3);
  });

  it('after a SIGINT (exit 130)', async () => {
    const ws = await afterOneRun();
    const undo = await ws.run(['undo', 'jobs.yaml', '--job', 'import', '--run', '1', '--report-dir', 'undo'], { signals: signalOnceListened('SIGINT') });
    expect(undo.exitCode).toBe(130);
    expectLocksReleased(ws, 3);
  });
});
