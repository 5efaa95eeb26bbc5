/**
 * `retention.journal` applied to a job's state store (docs/personal-data.md): the change lines of
 * the runs started longer ago than the retention are deleted, by each run of the job (at its
 * start, before any row) and by `state prune`. Without a retention nothing expires.
 */
import type { Job, RetentionSpec } from '../config/job-types.js';
import { counted } from '../pipeline/report/counted.js';
import type { ExpiredJournal, PersonalDataStore } from '../state/state-port.js';

/** What one expiry did: the horizon (runs started before it lost their lines) and what went. */
export interface JournalExpiry extends ExpiredJournal {
  readonly retention: RetentionSpec;
  /** ms since the epoch. */
  readonly before: number;
}

/** Expires the journal of `job`'s store at `now` (ms since the epoch); undefined when the job sets no retention. */
export function expireJobJournal(job: Pick<Job, 'retention'>, state: PersonalDataStore, now: number): JournalExpiry | undefined {
  const { retention } = job;
  if (retention === undefined) return undefined;
  const before = now - retention.journalMs;
  return { ...state.expireJournal(before), retention, before };
}

/** `retention.journal 90d (jobs[0].retention.journal): 12 change journal lines of 3 runs started before 2026-... expired`. */
export function describeExpiry(expiry: JournalExpiry): string {
  const setting = `retention.journal ${expiry.retention.journal} (${expiry.retention.setAt})`;
  const before = new Date(expiry.before).toISOString();
  if (expiry.lines === 0) return `${setting}: no change journal line of a run started before ${before} was left to expire`;
  return `${setting}: ${counted(expiry.lines, 'change journal line')} of ${counted(expiry.runs, 'run')} started before ${before} expired (deleted, values before and after; the runs and their counts stay)`;
}
