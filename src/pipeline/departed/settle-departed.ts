/**
 * The departed step (`onMissing`), run by a job after a complete read of its input: the keys the
 * state store knows that the input no longer has are acted on once each, unless so many are
 * missing that the export itself is suspect (the guard). Every key gets a row in
 * `<job>.departed.csv`. The decisions are `departure-plan.ts`'s; this file gathers the keys, runs
 * the calls in order and journals what the platform confirmed. See docs/state.md, "Keys that
 * leave the file".
 */
import { NoSuchContactError, type ApiError } from '../../api/errors.js';
import type { ContactsApi } from '../../api/contacts-api.js';
import type { Job, OnMissingSpec } from '../../config/job-types.js';
import type { StateStore } from '../../state/state-store.js';
import { abortReason } from '../abort-reason.js';
import type { JobAbortError } from '../job-abort.js';
import type { KeySighting } from '../key-sighting.js';
import { DepartedReport, type DepartedOutcome, type DepartedRow } from '../report/departed-report.js';
import { ReportWriteError } from '../report/report.js';
import { CountedApi } from '../row/counted-api.js';
import type { Operation } from '../row/plan.js';
import { executePlan } from '../row/write.js';
import type { WithheldCalls } from '../real-run-estimate.js';
import { missingShare, planDeparture, refusalReason, type DepartedKey } from './departure-plan.js';

export interface DepartedStepOptions {
  readonly api: ContactsApi;
  readonly job: Job & { onMissing: OnMissingSpec };
  readonly state: StateStore;
  /** Plan and report, call and record nothing. */
  readonly dryRun: boolean;
  /** The keys of this run's input. */
  readonly seen: KeySighting;
  /** The keys this run answers for (its shard's); the others are another shard's. */
  readonly inScope: (key: string) => boolean;
  /** `--max-missing` for this run; `onMissing.maxShare` otherwise. */
  readonly maxSharePercent?: number;
  /** `<job>.departed.csv`. */
  readonly reportPath: string;
  /** Stops acting on further keys (a signal, the deadline); those left are acted on by the next complete run. */
  readonly stop?: () => boolean;
  /** Dry run: the calls it decides and withholds, for its estimate of the real run. */
  readonly withheld?: WithheldCalls;
  /**
   * The known keys in scope before the run's rows (`knownKeysNow`): the keys earlier runs synced,
   * which the share is of. Counted after the rows, a real run would add the keys its own rows
   * created and a dry run would not, so the two would say "47 of 1981" and "47 of 1920".
   * @default counted when the step runs
   */
  readonly knownBefore?: number;
}

/** The keys the state store knows in scope that no earlier departure took: the share's denominator. */
export function knownKeysNow(state: StateStore, inScope: (key: string) => boolean): number {
  let known = 0;
  state.scanKeys((key) => {
    if (!key.departed && inScope(key.key)) known++;
  });
  return known;
}

/** summary.json `departed`. */
export interface DepartedSummary {
  action: OnMissingSpec['action'];
  /** Known keys (in this run's scope) that no earlier departure took, before this run's rows: the keys earlier runs synced. */
  knownKeys: number;
  /** Of those, the keys this input lacks. */
  missing: number;
  /** `missing / knownKeys`, percent, one decimal. */
  missingPercent: number;
  maxSharePercent: number;
  /** More were missing than maxShare: nothing was done (exit 1). */
  refused: boolean;
  /** Departed rows by outcome. */
  updated: number;
  unchanged: number;
  skipped: number;
  failed: number;
  /** Missing keys not acted on because the run stopped first. */
  notReached: number;
  apiCalls: number;
  /** Why the step was refused, with what to do. */
  message?: string;
}

export interface DepartedStep {
  readonly summary: DepartedSummary;
  /** The write calls of the keys changed (or, in a dry run, that would be): the run report counts them as needed. */
  readonly writes: readonly Operation[];
  /** The job must stop (an invalid token, the state store...); the keys after it were not acted on. */
  readonly abort?: JobAbortError;
}

export async function settleDeparted(options: DepartedStepOptions): Promise<DepartedStep> {
  const { job, state } = options;
  const spec = job.onMissing;
  const missing: DepartedKey[] = [];
  let known = 0;
  state.scanKeys((key) => {
    if (key.departed || !options.inScope(key.key)) return;
    known++;
    if (!options.seen.has(key.key)) missing.push(key);
  });
  // Every missing key was known before the rows: a key this run created or brought back is in the input.
  if (options.knownBefore !== undefined) known = options.knownBefore;
  const share = missingShare(known, missing.length, options.maxSharePercent ?? spec.maxSharePercent);
  const summary: DepartedSummary = {
    action: spec.action,
    knownKeys: known,
    missing: missing.length,
    missingPercent: Math.round(share.percent * 10) / 10,
    maxSharePercent: share.maxSharePercent,
    // `keep` changes nothing, so there is nothing to refuse.
    refused: share.refused && spec.action !== 'keep',
    updated: 0,
    unchanged: 0,
    skipped: 0,
    failed: 0,
    notReached: 0,
    apiCalls: 0,
  };
  if (summary.refused) summary.message = refusalReason(share, job.name);

  let report: DepartedReport;
  try {
    report = new DepartedReport(options.reportPath);
  } catch (error) {
    throw error instanceof ReportWriteError ? error : new ReportWriteError(options.reportPath, (error as NodeJS.ErrnoException).code ?? String(error), { cause: error });
  }
  let abort: JobAbortError | undefined;
  const writes: Operation[] = [];
  try {
    for (const key of missing) {
      if (abort !== undefined || options.stop?.() === true) {
        summary.notReached++;
        continue;
      }
      const row: DepartedRow & { abort?: JobAbortError; writes?: readonly Operation[] } = summary.refused ? refusedRow(key, spec, summary.message ?? '') : await settleKey(key, options);
      abort = row.abort;
      if (row.writes !== undefined) writes.push(...row.writes);
      summary[row.outcome]++;
      summary.apiCalls += row.apiCalls;
      report.add(row);
    }
  } catch (error) {
    // The file could not take a row: closing it cuts it back to its last whole row.
    report.close();
    throw error;
  }
  const failure = report.close();
  if (failure !== undefined) throw failure;
  return abort === undefined ? { summary, writes } : { summary, writes, abort };
}

function refusedRow(key: DepartedKey, spec: OnMissingSpec, reason: string): DepartedRow {
  return { key: key.key, contactId: key.contactId, action: spec.action, outcome: 'skipped', apiCalls: 0, errorCode: '', errorMessage: `not acted on: ${reason}` };
}

/** Applies the action to one departed key's contact and journals it; a failure is the key's row. */
async function settleKey(key: DepartedKey, options: DepartedStepOptions): Promise<DepartedRow & { abort?: JobAbortError; writes?: readonly Operation[] }> {
  const { job, state } = options;
  const spec = job.onMissing;
  const plan = planDeparture(key, spec);
  const row = (outcome: DepartedOutcome, apiCalls: number, errorCode = '', errorMessage = ''): DepartedRow => ({
    key: key.key,
    contactId: key.contactId,
    action: spec.action,
    outcome,
    apiCalls,
    errorCode,
    errorMessage,
  });
  if (spec.action === 'keep') return row('unchanged', 0, '', 'kept: onMissing.action is keep');
  const changes = plan.operations.length > 0;
  if (options.dryRun) {
    options.withheld?.addOperations(plan.operations);
    return { ...row(changes ? 'updated' : 'unchanged', 0, '', 'dry run: nothing was written'), writes: plan.operations };
  }
  const api = new CountedApi(options.api);
  try {
    if (changes) {
      // Before is the state's knowledge of the departed contact, not read: undo will not vouch for it.
      const before = Object.fromEntries(Object.keys(plan.fields).map((name) => [name, key.fields[name] ?? null]));
      const write = { action: 'update' as const, contactId: key.contactId, operations: [...plan.operations], fieldsChanged: Object.keys(plan.fields), tagsAdded: [...plan.tagsAdded], tagsRemoved: [...plan.tagsRemoved], before, beforeRead: false };
      // No create in a departure: nothing to resolve by key. Each call is journalled (undo takes a departure back too).
      await executePlan(api, write, key.key, { findByKey: () => Promise.resolve([]), confirmed: (contactId, change) => state.journalChange(key.key, contactId, change) }, { contactId: key.contactId });
    }
    state.recordDeparture(key.key, { contactId: key.contactId, action: spec.action, tagsAdded: plan.tagsAdded, tagsRemoved: plan.tagsRemoved, fields: plan.fields });
    return { ...row(changes ? 'updated' : 'unchanged', api.calls), writes: plan.operations };
  } catch (error) {
    if (error instanceof NoSuchContactError) {
      // Deleted on the platform: nothing to act on, and nothing for a returning key to find.
      state.forget(key.key);
      return row('skipped', api.calls, '', 'the contact no longer exists on the platform; the state store forgot the key');
    }
    const abort = abortReason(error, job, `for the departed key ${key.key}`);
    if (abort !== undefined) return { ...row('failed', api.calls, abort.code, abort.message), abort };
    const apiError = error as ApiError;
    return row('failed', api.calls, apiError.code, `${apiError.message}; the next complete run tries again`);
  }
}
