/**
 * The job lock: one holder at a time, the holder named to the run refused, shards apart, released
 * at the end, and a lock whose holder was killed free at once for the next run, which says so.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { acquireJobLock, lockPath, LockHeldError, runningHolder, type LockIdentity } from '../../src/lock/job-lock.js';
import { stateLockTarget } from '../../src/lock/lock-target.js';
import { REPO_ROOT, waitUntil } from '../helpers/cli-process.js';
import { tempDir } from '../helpers/temp-dir.js';

function identity(extra: Partial<LockIdentity> = {}): LockIdentity {
  const dir = tempDir('lock-');
  return { jobsFile: join(dir, 'jobs.yaml'), job: 'crm', target: stateLockTarget(join(dir, 'crm.db')), ...extra };
}

describe('job lock', () => {
  it('a second acquisition is refused, naming the holder; after release the lock is free again', () => {
    const id = identity();
    const first = acquireJobLock(id, { command: 'run jobs.yaml', pid: 4242, host: 'cron-1', now: () => new Date('2026-11-23T02:00:00Z') });
    let refused: unknown;
    try {
      acquireJobLock(id, { command: 'run jobs.yaml' });
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(LockHeldError);
    expect((refused as Error).message).toBe(
      `job "crm" of ${id.jobsFile} is already running: ${id.target.what} is in use by job "crm": pid 4242 on cron-1, started 2026-11-23T02:00:00.000Z (run jobs.yaml); ` +
        'nothing was done: let that run finish, or stop it, then run again',
    );
    expect(runningHolder(id)).toMatchObject({ pid: 4242, host: 'cron-1' });

    first.release();
    expect(runningHolder(id)).toBeUndefined();
    const second = acquireJobLock(id, { command: 'run jobs.yaml' });
    expect(second.tookOverFrom).toBeUndefined();
    second.release();
  });

  // Issue 42 item 3: a shard holds the job's lock shared with the shards of its count, a whole run
  // (or `--shard 1/1`, which is one) alone. Each row: the first run holds, the second tries.
  const holds: Array<{ first: string | undefined; second: string | undefined; second_: 'runs' | 'refused' }> = [
    { first: '1/2', second: '2/2', second_: 'runs' },
    { first: '1/3', second: '3/3', second_: 'runs' },
    { first: '1/2', second: '1/2', second_: 'refused' },
    { first: '1/2', second: undefined, second_: 'refused' },
    { first: undefined, second: '1/2', second_: 'refused' },
    { first: '1/1', second: undefined, second_: 'refused' },
    { first: undefined, second: '1/1', second_: 'refused' },
    { first: '1/1', second: '1/2', second_: 'refused' },
    { first: '1/2', second: '1/3', second_: 'refused' },
    { first: '2/3', second: '1/2', second_: 'refused' },
    { first: undefined, second: undefined, second_: 'refused' },
  ];
  it.each(holds)('a run of shard $first holds it; a run of shard $second $second_', ({ first, second, second_ }) => {
    const base = identity();
    const run = (shard: string | undefined): LockIdentity => ({ ...base, ...(shard === undefined ? {} : { shard }) });
    const one = acquireJobLock(run(first), { command: `run --shard ${first}`, pid: 4242, host: 'cron-1' });
    let outcome: string;
    try {
      acquireJobLock(run(second), { command: `run --shard ${second}` }).release();
      outcome = 'runs';
    } catch (error) {
      expect(error).toBeInstanceOf(LockHeldError);
      expect((error as LockHeldError).holder).toMatchObject({ pid: 4242, host: 'cron-1' });
      outcome = 'refused';
    }
    expect(runningHolder(base)).toMatchObject({ pid: 4242 });
    one.release();
    expect(runningHolder(base)).toBeUndefined();
    expect(outcome).toBe(second_);
    // Once the first is gone, the second runs.
    acquireJobLock(run(second), { command: 'again' }).release();
  });

  it('the shards of one count run side by side, and a whole run is refused until the last is gone', () => {
    const base = identity();
    const one = acquireJobLock({ ...base, shard: '1/2' }, { command: 'run --shard 1/2' });
    const two = acquireJobLock({ ...base, shard: '2/2' }, { command: 'run --shard 2/2' });
    one.release();
    expect(() => acquireJobLock(base, { command: 'run' })).toThrow(LockHeldError);
    two.release();
    acquireJobLock(base, { command: 'run' }).release();
  });

  it('its files are owner-only (0600), as the state store', () => {
    const id = identity();
    const lock = acquireJobLock({ ...id, shard: '1/2' }, { command: 'run' });
    const files = readdirSync(dirname(lockPath(id))).filter((name) => name.endsWith('.lock') || name.endsWith('.json'));
    expect(files.sort()).toEqual(['crm.db.lock', 'crm.db.shard-1-of-2.holder.json', 'crm.db.shard-1-of-2.lock']);
    for (const name of files) expect([name, statSync(join(dirname(lockPath(id)), name)).mode & 0o777]).toEqual([name, 0o600]);
    lock.release();
  });

  it('the lock of a holder killed with SIGKILL is free at once, and the next run knows whose it was', async () => {
    const id = identity();
    // A process that takes the lock and waits to be killed. It keeps the lock referenced, as a run
    // does: a lock nothing refers to is closed by the garbage collector, which frees it.
    const script = `
      const { acquireJobLock } = await import(${JSON.stringify(join(REPO_ROOT, 'dist', 'src', 'lock', 'job-lock.js'))});
      globalThis.held = acquireJobLock(${JSON.stringify(id)}, { command: 'run (to be killed)' });
      console.log('held');
      setInterval(() => {}, 1000);
    `;
    // Its stderr is piped, not inherited: a child left running must not hold jest's own streams.
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    const exited = new Promise((resolve) => child.on('exit', resolve));
    try {
      await waitUntil(() => out.includes('held') || child.exitCode !== null, 'the child holds the lock', 15_000);
      expect({ out, err }).toMatchObject({ out: 'held\n' });
      expect(runningHolder(id)?.pid).toBe(child.pid);
    } finally {
      child.kill('SIGKILL');
      await exited;
    }

    const next = acquireJobLock(id, { command: 'run jobs.yaml' });
    expect(next.tookOverFrom).toMatchObject({ pid: child.pid, command: 'run (to be killed)' });
    next.release();
  });

  describe('a run refused while the holder has not yet named itself', () => {
    // The holder writes its sidecar just after it takes the lock: hold the lock file the way a
    // holder does, and write the sidecar from the refused run's own (injected) sleep.
    function holdWithoutSidecar(id: LockIdentity): { sidecar: string; release(): void } {
      const path = lockPath(id);
      mkdirSync(dirname(path), { recursive: true });
      const db = new Database(path, { timeout: 0 });
      db.pragma('journal_mode = DELETE');
      db.exec('BEGIN EXCLUSIVE');
      return {
        sidecar: path.replace(/\.lock$/, '.holder.json'),
        release: () => {
          db.exec('ROLLBACK');
          db.close();
        },
      };
    }
    const holder = { host: 'cron-2', pid: 5151, startedAt: '2026-11-25T02:00:00.000Z', command: 'run jobs.yaml', id: 'h' };

    it('reads the sidecar again until the holder names itself', () => {
      const id = identity();
      const held = holdWithoutSidecar(id);
      const sleeps: number[] = [];
      const sleepSync = (ms: number): void => {
        sleeps.push(ms);
        if (sleeps.length === 3) writeFileSync(held.sidecar, JSON.stringify(holder));
      };
      let refused: unknown;
      try {
        acquireJobLock(id, { command: 'run jobs.yaml', sleepSync });
      } catch (error) {
        refused = error;
      }
      held.release();
      expect(refused).toBeInstanceOf(LockHeldError);
      expect((refused as LockHeldError).holder).toEqual(holder);
      expect((refused as Error).message).toContain(' is in use by pid 5151 on cron-2, started 2026-11-25T02:00:00.000Z (run jobs.yaml); nothing was done');
      expect(sleeps).toHaveLength(3);
    });

    it('a sidecar that names a process of this host that is gone is the dead holder, not this one', () => {
      const id = identity();
      const held = holdWithoutSidecar(id);
      const gone = spawnSync(process.execPath, ['-e', '0']).pid;
      writeFileSync(held.sidecar, JSON.stringify({ ...holder, host: hostname(), pid: gone }));
      let sleeps = 0;
      const sleepSync = (): void => {
        sleeps += 1;
        if (sleeps === 2) writeFileSync(held.sidecar, JSON.stringify(holder));
      };
      expect(() => acquireJobLock(id, { command: 'run jobs.yaml', sleepSync })).toThrow(/ is in use by pid 5151 on cron-2/);
      held.release();
      expect(sleeps).toBe(2);
    });

    it('a lock busy with nobody named is tried again, after jittered pauses, and taken once free (a run starting at the same instant)', () => {
      const id = identity();
      const held = holdWithoutSidecar(id);
      const sleeps: number[] = [];
      const jitter = [0, 0.99];
      const lock = acquireJobLock(id, {
        command: 'run jobs.yaml',
        random: () => jitter[sleeps.length % 2]!,
        sleepSync: (ms) => {
          sleeps.push(ms);
          if (sleeps.length === 2) held.release();
        },
      });
      expect(lock.holder.command).toBe('run jobs.yaml');
      expect(lock.tookOverFrom).toBeUndefined();
      expect(runningHolder(id)).toEqual(lock.holder);
      lock.release();
      expect(sleeps).toEqual([13, 37]);
    });

    it('gives up after a bounded wait and is still refused, without a name', () => {
      const id = identity();
      const held = holdWithoutSidecar(id);
      let sleeps = 0;
      let refused: unknown;
      try {
        acquireJobLock(id, { command: 'run jobs.yaml', sleepSync: () => (sleeps += 1) });
      } catch (error) {
        refused = error;
      }
      held.release();
      expect(refused).toBeInstanceOf(LockHeldError);
      expect((refused as LockHeldError).holder).toBeUndefined();
      expect((refused as Error).message).toBe(
        `job "crm" of ${id.jobsFile} is already running: ${id.target.what} is in use; nothing was done: let that run finish, or stop it, then run again`,
      );
      expect(sleeps).toBe(39);
    });
  });
});
