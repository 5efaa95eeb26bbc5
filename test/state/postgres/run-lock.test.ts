/**
 * One run per job across hosts: the run lock is an advisory lock on a connection of the store's
 * own, held until close; a second open with a run lock is refused (exit 75's LockHeldError) naming
 * the holder's host, pid and start; a holder whose connection died frees it.
 */
import { isStoreFailure } from '../../../src/pipeline/job-abort.js';
import { useTestDatabase } from '../../helpers/postgres-support.js';
import { openPg } from './pg-store-fixtures.js';

const database = useTestDatabase();
const START = Date.UTC(2026, 10, 28, 2, 0, 0);
const holder = { host: 'cron-1', pid: 4242, command: 'run jobs.yaml' };

function refusal(open: () => unknown): { code?: unknown; message: string } {
  try {
    open();
  } catch (error) {
    return error as { code?: unknown; message: string };
  }
  throw new Error('the open was not refused');
}

describe('the run lock of the PostgreSQL store', () => {
  test('a second run of the job is refused naming the holder; after close the next run takes it', () => {
    const first = openPg(database, { runLock: holder, now: () => START });
    try {
      const refused = refusal(() => openPg(database, { runLock: { host: 'cron-2', pid: 7, command: 'run jobs.yaml' } }));
      expect(refused.code).toBe('LOCK_HELD');
      expect(refused.message).toContain('job "crm" is already running');
      expect(refused.message).toContain('pid 4242 on cron-1, started 2026-11-28T02:00:00.000Z (run jobs.yaml)');
      expect(refused.message).toContain('let that run finish');
      // Without a run lock (state show, history) the store opens beside the run.
      const reader = openPg(database);
      expect(reader.summary().job).toBe('crm');
      reader.close();
      // Another job is another lock.
      openPg(database, { job: 'other', runLock: { host: 'cron-2', pid: 7, command: 'run' } }).close();
    } finally {
      first.close();
    }
    const next = openPg(database, { runLock: { host: 'cron-2', pid: 8, command: 'run jobs.yaml' } });
    next.close();
  });

  test("a holder whose connection was killed frees the lock: the next run takes it, and the killed store writes nothing more", async () => {
    const first = openPg(database, { job: 'killed', runLock: holder });
    try {
      const held = await database.query<{ pid: number }>(
        "SELECT l.pid FROM pg_locks l JOIN pg_database d ON d.oid = l.database WHERE l.locktype = 'advisory' AND l.granted AND d.datname = $1",
        [database.name],
      );
      expect(held).toHaveLength(1);
      expect(() => openPg(database, { job: 'killed', runLock: { host: 'cron-2', pid: 9, command: 'run' } })).toThrow(/already running/);
      await database.query('SELECT pg_terminate_backend($1)', [held[0]?.pid]);
      const next = openPg(database, { job: 'killed', runLock: { host: 'cron-2', pid: 9, command: 'run' } });
      next.close();
      // The holder lost its lock: its store refuses every write from now on.
      let failure: unknown;
      try {
        first.markCreatePending('C-1');
      } catch (error) {
        failure = error;
      }
      expect(isStoreFailure(failure)).toBe(true);
    } finally {
      first.close();
    }
    const rows = await database.query("SELECT p.key FROM contact_sync.pending_creates p JOIN contact_sync.jobs j ON j.id = p.job_id WHERE j.name = 'killed'");
    expect(rows).toEqual([]);
  });

  test('the shards of one count hold the job together; a whole run, or a shard of another count, is refused while one holds it, and the other way round', () => {
    const shard = (pid: number, count: number) => openPg(database, { job: 'sharded', runLock: { host: `worker-${pid}`, pid, command: `run --shard ${pid}/${count}`, shardCount: count } });
    const one = shard(1, 2);
    const two = shard(2, 2);
    try {
      // A whole run meets the shards.
      expect(refusal(() => openPg(database, { job: 'sharded', runLock: { host: 'cron-9', pid: 9, command: 'run' } })).message).toMatch(/pid [12] on worker-[12]/);
      // A shard of another count would take rows of keys the shards of 2 take: refused, naming one of them.
      const other = refusal(() => shard(3, 3));
      expect(other.code).toBe('LOCK_HELD');
      expect(other.message).toMatch(/pid [12] on worker-[12]/);
    } finally {
      one.close();
    }
    // The other shard still holds it: a whole run is still refused.
    expect(refusal(() => openPg(database, { job: 'sharded', runLock: { host: 'cron-9', pid: 9, command: 'run' } })).message).toContain('pid 2 on worker-2');
    two.close();
    // All gone: a shard of 3 and then, after it, a whole run take it.
    shard(3, 3).close();
    const whole = openPg(database, { job: 'sharded', runLock: { host: 'cron-9', pid: 9, command: 'run' } });
    try {
      expect(refusal(() => shard(1, 2)).message).toContain('pid 9 on cron-9');
    } finally {
      whole.close();
    }
  });
});
