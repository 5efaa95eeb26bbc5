/**
 * Which of a reconcile's reads a run may take for a search (issue 34; docs/reconcile.md, "The run
 * after a reconcile"). A reconcile refreshes the state store with what it read: the contacts of
 * the keys that differ, and the keys no contact holds (`state/absent-reads.ts`). A contact it read
 * is known like any other (a write answered "no such contact" forgets it and decides again), but
 * an absence only holds while nobody creates the contact: a create without a search is safe only
 * if the read is fresh. Fresh means: made by the reconcile that is the job's last run before this
 * one (no run of the job in between, finished or not), and less than `FRESH_READ_MS` ago. Any
 * other read, and every read under `--full`, is searched again. Pure: a table test holds it.
 */
import type { AbsentRead } from '../../state/absent-reads.js';
import type { RunRecord } from '../../state/run-journal.js';

/** How long a reconcile's absent read stands for a search: 24 hours. */
export const FRESH_READ_MS = 24 * 60 * 60 * 1000;

/** The reads this run may trust: those of run `runId` made since `since` (ms since the epoch). */
export interface FreshReads {
  readonly runId: number;
  readonly since: number;
}

/**
 * The fresh reads of a run whose job's last run before it is `previous`, at `now`; undefined when
 * that run was no reconcile (nothing it read is trusted).
 */
export function freshReadsAfter(previous: Pick<RunRecord, 'id' | 'argv'> | undefined, now: number): FreshReads | undefined {
  if (previous === undefined || previous.argv.split(' ')[0] !== 'reconcile') return undefined;
  return { runId: previous.id, since: now - FRESH_READ_MS };
}

/** Whether `read` stands for a search that found no contact in this run. */
export function isFresh(read: AbsentRead | undefined, fresh: FreshReads | undefined): boolean {
  return read !== undefined && fresh !== undefined && read.runId === fresh.runId && read.readAt >= fresh.since;
}

/**
 * The contacts the job's last run read on the platform, when it was a reconcile or an undo (issue
 * 41 item 11; docs/undo.md, "What reads a before"): each recorded what it read in the state store
 * (`verified_at`), so a value this run writes over by the store's knowledge of such a key was read,
 * by that run, and its change journal's "before" is vouched for. Any run in between (finished or
 * not) and any read older than `FRESH_READ_MS` lend nothing; neither does a plain run's read (its
 * record holds its own writes by knowledge too).
 */
export interface PriorReads {
  /** The run that read (a reconcile's or an undo's id). */
  readonly runId: number;
  /** ms since the epoch: a record verified since then was read by that run. */
  readonly since: number;
}

/** The prior reads of a run whose job's last run before it is `previous`, at `now`; undefined when it was no reconcile or undo. */
export function priorReadsAfter(previous: Pick<RunRecord, 'id' | 'argv' | 'startedAt'> | undefined, now: number): PriorReads | undefined {
  const command = previous?.argv.split(' ')[0];
  if (previous === undefined || (command !== 'reconcile' && command !== 'undo')) return undefined;
  return { runId: previous.id, since: Math.max(previous.startedAt, now - FRESH_READ_MS) };
}

/** Whether a record last read from the platform at `verifiedAt` (null: never) is one of `reads`. */
export function readBefore(verifiedAt: number | null, reads: PriorReads | undefined): boolean {
  return verifiedAt !== null && reads !== undefined && verifiedAt >= reads.since;
}
