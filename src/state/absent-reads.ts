/**
 * The absent reads (table `absent_reads`, schema version 9): the keys a reconcile read on the
 * platform and found no contact for, with the reconcile's run id and when it read each. The run
 * right after that reconcile creates them without searching again (issue 34; docs/reconcile.md,
 * "The run after a reconcile"); `pipeline/row/fresh-read.ts` says which reads are fresh enough.
 * A read the next reconcile finds present again is dropped; an older one is never trusted.
 */
import type Database from 'better-sqlite3';

/** A reconcile's read that found no contact for a key. */
export interface AbsentRead {
  /** The reconcile that read it (the runs journal's id). */
  readonly runId: number;
  /** When it read the key, ms since the Unix epoch. */
  readonly readAt: number;
}

export class AbsentReads {
  readonly #now: () => number;
  readonly #upsert: Database.Statement<[string, number, number]>;
  readonly #get: Database.Statement<[string], { run_id: number; read_at: number }>;
  readonly #delete: Database.Statement<[string]>;
  readonly #deleteAll: Database.Statement<[]>;

  constructor(db: Database.Database, now: () => number) {
    this.#now = now;
    this.#upsert = db.prepare(
      'INSERT INTO absent_reads (key, run_id, read_at) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET run_id = excluded.run_id, read_at = excluded.read_at',
    );
    this.#get = db.prepare('SELECT run_id, read_at FROM absent_reads WHERE key = ?');
    this.#delete = db.prepare('DELETE FROM absent_reads WHERE key = ?');
    this.#deleteAll = db.prepare('DELETE FROM absent_reads');
  }

  record(key: string, runId: number): void {
    this.#upsert.run(key, runId, this.#now());
  }

  get(key: string): AbsentRead | undefined {
    const row = this.#get.get(key);
    return row === undefined ? undefined : { runId: row.run_id, readAt: row.read_at };
  }

  delete(key: string): void {
    this.#delete.run(key);
  }

  deleteAll(): void {
    this.#deleteAll.run();
  }
}
