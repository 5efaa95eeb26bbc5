/**
 * The job lock: one holder at a time, the holder named to the run refused, shards apart, released
 * at the end, and a lock whose holder was killed free at once for the next run, which says so.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { acquireJobLock, lockPath, LockHeldError, runningHolder, type LockIdentity } from '../../src/lock/job-lock.js';
import { REPO_ROOT, waitUntil } from '../helpers/cli-process.js';
import { tempDir } from '../helpers/temp-dir.js';

function identity(extra: Partial<LockIdentity> = {}): LockIdentity {
  return { jobsFile: join(tempDir('lock-'), 'jobs.yaml'), job: 'crm', ...extra };
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
      `job "crm" of ${id.jobsFile} is already running: pid 4242 on cron-1, started 2026-11-23T02:00:00.000Z (run jobs.yaml); nothing was done: let that run finish, or stop it, then run again`,
    );
    expect(runningHolder(id)).toMatchObject({ pid: 4242, host: 'cron-1' });

    first.release();
    expect(runningHolder(id)).toBeUndefined();
    const second = acquireJobLock(id, { command: 'run jobs.yaml' });
    expect(second.tookOverFrom).toBeUndefined();
    second.release();
  });

  it('shards lock apart, and apart from the whole job', () => {
    const base = identity();
    const one = acquireJobLock({ ...base, shard: '1/2' }, { command: 'run --shard 1/2' });
    const two = acquireJobLock({ ...base, shard: '2/2' }, { command: 'run --shard 2/2' });
    expect(() => acquireJobLock({ ...base, shard: '1/2' }, { command: 'again' })).toThrow(LockHeldError);
    expect(new Set([lockPath({ ...base, shard: '1/2' }), lockPath({ ...base, shard: '2/2' }), lockPath(base)]).size).toBe(3);
    one.release();
    two.release();
  });

  it('the lock of a holder killed with SIGKILL is free at once, and the next run knows whose it was', async () => {
    const id = identity();
    // A process that takes the lock and waits to be killed.
    const script = `
      const { acquireJobLock } = await import(${JSON.stringify(join(REPO_ROOT, 'dist', 'src', 'lock', 'job-lock.js'))});
      acquireJobLock(${JSON.stringify(id)}, { command: 'run (to be killed)' });
      console.log('held');
      setInterval(() => {}, 1000);
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const exited = new Promise((resolve) => child.on('exit', resolve));
    await waitUntil(() => out.includes('held'), 'the child holds the lock', 15_000);
    expect(runningHolder(id)?.pid).toBe(child.pid);
    child.kill('SIGKILL');
    await exited;

    const next = acquireJobLock(id, { command: 'run jobs.yaml' });
    expect(next.tookOverFrom).toMatchObject({ pid: child.pid, command: 'run (to be killed)' });
    next.release();
  });

});
