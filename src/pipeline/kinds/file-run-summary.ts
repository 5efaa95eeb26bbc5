/**
 * summary.json's figures of a run that read a file (`run`, and `reconcile`, whose reconcile.json
 * takes its times, calls and stop from it): the tally's counts and how the run ended, then what
 * only `run` has (the real run's estimate, the failed rows by cause, the departed step), in the
 * order summary.json has always listed them.
 */
import type { ContactsApi, EarlierLimit } from '../../api/contacts-api.js';
import { paceLimits } from '../real-run-estimate.js';
import type { Job } from '../../config/job-types.js';
import type { DepartedSummary } from '../departed/settle-departed.js';
import type { JobSummary } from '../report/job-summary.js';
import { summarize } from '../report/summary-figures.js';
import { type RunTally } from './file-run-tally.js';
import type { RunEnd } from '../run/run-engine.js';
import type { VerifySummary } from '../verify/verify-step.js';

export interface FileRunFacts {
  readonly job: Job;
  readonly api: ContactsApi;
  readonly dryRun: boolean;
  readonly shard?: { index: number; count: number } | undefined;
  readonly signal?: AbortSignal | undefined;
  readonly runId: number | undefined;
  readonly startedAt: Date;
  readonly now: () => Date;
  readonly tally: RunTally;
  readonly prefetch: () => JobSummary['prefetch'];
  /** `--allow`: the guards it named and the refusals they let past. */
  readonly guardsAllowed?: JobSummary['guardsAllowed'];
  /** Limits an earlier run learnt (the state store's), where this run's port has learnt none yet (`ContactsApi.pace`). */
  readonly earlierLimits?: readonly EarlierLimit[] | undefined;
}

/** What only `run` adds, each when it has it. */
export interface SyncFigures {
  readonly realRunEstimate?: JobSummary['realRunEstimate'];
  readonly failedRows?: JobSummary['failedRows'];
  /** The departed step's figures, or why it did not run. */
  readonly departed?: DepartedSummary | { readonly applied: false; readonly reason: string };
  /** Verification's figures (`verify`), or why it did not run. */
  readonly verification?: VerifySummary | { readonly applied: false; readonly reason: string };
}

export function fileRunSummary(facts: FileRunFacts, end: RunEnd, sync: SyncFigures = {}): JobSummary {
  const { tally } = facts;
  const summary = summarize(facts, facts.api, tally.rows, facts.startedAt, facts.now(), end.abort, facts.prefetch());
  summary.status = end.status;
  summary.rows.notReached = end.notReached;
  // The budgets the run's calls went at, as the port knows them at its end (learnt on v2).
  summary.limits = paceLimits(facts.api.pace(facts.earlierLimits));
  if (facts.job.message !== undefined) summary.messages = tally.messages;
  if (sync.realRunEstimate !== undefined) summary.realRunEstimate = sync.realRunEstimate;
  if (tally.fieldsSkipped.rows > 0) summary.fieldsSkipped = tally.fieldsSkipped;
  if (tally.phoneExtensionsDropped.rows > 0) summary.phoneExtensionsDropped = tally.phoneExtensionsDropped;
  if (tally.tagsDifferingInCase.rows > 0) summary.tagsDifferingInCase = tally.tagsDifferingInCase;
  if (sync.failedRows !== undefined) summary.failedRows = sync.failedRows;
  if (facts.guardsAllowed !== undefined) summary.guardsAllowed = facts.guardsAllowed;
  if (sync.departed !== undefined) summary.departed = sync.departed;
  if (sync.verification !== undefined) {
    const ran = 'verified' in sync.verification ? sync.verification : undefined;
    summary.verified = ran?.verified ?? 0;
    summary.drift = ran?.drift ?? 0;
    summary.verification = { ...sync.verification };
  }
  return summary;
}
