/**
 * The departed step (`onMissing`), run by a job after a complete read of its input: the keys the
 * state store knows that the input no longer has are acted on once each, unless so many are
 * missing that the export itself is suspect (the guard). Every key gets a row in
 * `<job>.departed.csv`. The decisions are `departure-plan.ts`'s; this file gathers the keys and
 * is a kind of the run engine (`run/run-engine.ts`): its units are the missing keys, taken one at a
 * time under the run's own stop policy, its row work the calls of one key, journalled as the
 * platform confirms them; its report departed.csv; its summary summary.json's `departed`. See
 * docs/state.md, "Keys that leave the file".
 */
import { NoSuchContactError, type ApiError } from '../../api/errors.js';
import type { ContactsApi } from '../../api/contacts-api.js';
import type { Job, OnMissingSpec } from '../../config/job-types.js';
import type { ScannedKey } from '../../state/contacts-table.js';
import type { DepartedAction } from '../../state/departed-keys.js';
import type { DepartedStore, KeyScan } from '../../state/state-port.js';
import { abortReason } from '../abort-reason.js';
import type { JobAbortError } from '../job-abort.js';
import { ROWS_LEFT } from '../kinds/file-rows.js';
import { closedUnitReport, writeUnitReport } from '../run/unit-report.js';
import { RowDispatcher } from '../run/row-dispatcher.js';
import { runEngine, type RunKind } from '../run/run-engine.js';
import type { StopPolicy } from '../run/stop-policy.js';
import type { UnitIntake } from '../run/unit-loop.js';
import type { KeySighting } from '../kinds/key-sighting.js';
import { DepartedReport, type DepartedOutcome, type DepartedRow } from '../report/departed-report.js';
import { ReportWriteError } from '../report/report.js';
import { CountedApi } from '../row/counted-api.js';
import type { Operation } from '../row/plan.js';
import { findContactsByKey } from '../row/match.js';
import { writeKnownContact } from '../row/write.js';
import type { WithheldCalls } from '../real-run-estimate.js';
import { departedContact, missingShare, planDeparture, refusalReason } from './departure-plan.js';

/** The part of the state store the departed step uses: the known keys, and what acting on one leaves known (its calls journalled). */

export interface DepartedStepOptions {
  readonly api: ContactsApi;
  readonly job: Job & { onMissing: OnMissingSpec };
  readonly state: DepartedStore;
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
  /** The run's stop policy (a signal, the deadline, an abort): keys it does not take are acted on by the next complete run. */
  readonly policy: StopPolicy;
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
export function knownKeysNow(state: KeyScan, inScope: (key: string) => boolean): number {
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
}

/** A departed key acted on, as the engine counts it. */
type SettledKey = DepartedRow & { readonly calls: number; readonly abort?: JobAbortError; readonly writes?: readonly Operation[] };

export async function settleDeparted(options: DepartedStepOptions): Promise<DepartedStep> {
  const { job, state } = options;
  const spec = job.onMissing;
  const missing: ScannedKey[] = [];
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
  const { policy } = options;
  const writes: Operation[] = [];
  const departed: RunKind<ScannedKey, SettledKey, DepartedStep> = {
    units: missing,
    work: {
      callsAtMost: (key) => (summary.refused ? 0 : departedCallsAtMost(key, options)),
      intake: (key) => (summary.refused ? { kind: 'ended', done: { ...refusedRow(key, spec, summary.message ?? ''), calls: 0 } } : keyIntake(key, options)),
      finish: (row) => {
        if (row.writes !== undefined) writes.push(...row.writes);
        summary[row.outcome]++;
        summary.apiCalls += row.apiCalls;
        policy.abortWith(writeUnitReport(() => report.add(row), ROWS_LEFT));
      },
    },
    // The file cut back to its last whole row when it could not take one.
    closeUnits: () => closedUnitReport(report.close(), ROWS_LEFT),
    journalRows: () => ({}),
    needsLook: () => summary.refused || summary.failed > 0,
    summarize: ({ notReached }) => {
      summary.notReached = notReached;
      return { summary: { summary, writes } };
    },
  };
  // One key at a time, in the store's order: departed.csv lists them so.
  return (await runEngine(departed, { policy, dispatcher: new RowDispatcher(1) })).summary;
}

/** What becomes of one key: ended here (`keep`, a dry run), or its calls for the API. */
function keyIntake(key: ScannedKey, options: DepartedStepOptions): UnitIntake<SettledKey> {
  const spec = options.job.onMissing;
  if (spec.action === 'keep') return { kind: 'ended', done: { ...departedRow(key, spec, 'unchanged', 0, '', 'kept: onMissing.action is keep'), calls: 0 } };
  const { action } = spec;
  // A dry run plans from the store's knowledge, even of an id of another surface (it reads nothing).
  const plan = planDeparture(key.contact, spec, options.api.surface);
  const changes = plan.operations.length > 0;
  if (options.dryRun) {
    options.withheld?.addOperations(plan.operations);
    return { kind: 'ended', done: { ...departedRow(key, spec, changes ? 'updated' : 'unchanged', 0, '', 'dry run: nothing was written'), calls: 0, writes: plan.operations } };
  }
  return {
    kind: 'dispatch',
    key: key.key,
    callsAtMost: departedCallsAtMost(key, options),
    run: async () => {
      const row = await settleKey(key, action, options);
      return { ...row, calls: row.apiCalls };
    },
    // Queued when the run aborted: left for the next complete run, as the keys after it.
    notSent: () => undefined,
  };
}

function refusedRow(key: ScannedKey, spec: OnMissingSpec, reason: string): DepartedRow {
  return { key: key.key, contactId: key.contact.id, action: spec.action, outcome: 'skipped', apiCalls: 0, errorCode: '', errorMessage: `not acted on: ${reason}` };
}

function departedRow(key: ScannedKey, spec: OnMissingSpec, outcome: DepartedOutcome, apiCalls: number, errorCode = '', errorMessage = ''): DepartedRow {
  return { key: key.key, contactId: key.contact.id, action: spec.action, outcome, apiCalls, errorCode, errorMessage };
}

/** The calls a departed key may make: its action's, and one search first for an id of another surface (a page of it: a rough bound). */
function departedCallsAtMost(key: ScannedKey, options: DepartedStepOptions): number {
  const search = departedContact(key, options.api.surface.name).kind === 'search' ? 1 : 0;
  return search + planDeparture(key.contact, options.job.onMissing, options.api.surface).operations.length;
}

/**
 * Applies the action to one departed key's contact and journals it; a failure is the key's row. A
 * key whose id came from another surface is searched by its key field first (`departedContact`):
 * the contact found is recorded with this surface's id, and acted on.
 */
async function settleKey(key: ScannedKey, action: DepartedAction, options: DepartedStepOptions): Promise<DepartedRow & { abort?: JobAbortError; writes?: readonly Operation[] }> {
  const { job, state } = options;
  const spec = job.onMissing;
  const api = new CountedApi(options.api);
  const surface = api.surface.name;
  let contactId = key.contact.id;
  const row = (outcome: DepartedOutcome, apiCalls: number, errorCode = '', errorMessage = ''): DepartedRow => ({ ...departedRow(key, spec, outcome, apiCalls, errorCode, errorMessage), contactId });
  try {
    let target = departedContact(key, surface);
    if (target.kind === 'search') target = departedContact(key, surface, await findContactsByKey(api, job.key.field, key.key));
    if (target.kind === 'gone') {
      state.forget(key.key);
      return row('skipped', api.calls, '', target.reason);
    }
    if (target.kind !== 'act') return row('skipped', api.calls, '', target.kind === 'several' ? target.reason : '');
    const { contact } = target;
    contactId = contact.id;
    // Found by the search: the store knows it now by this surface's id (no hash: the key's row, if it comes back, is compared).
    if (target.read) state.recordObserved(key.key, { contactId, surface, fields: contact.custom_fields, tags: contact.tags, draftHash: null, rowHash: null });
    const plan = planDeparture(contact, spec, options.api.surface);
    const changes = plan.operations.length > 0;
    if (changes) {
      // Before is the state's knowledge of the departed contact, unread (undo will not vouch for
      // it), or what the search just read.
      const before = Object.fromEntries(Object.keys(plan.fields).map((name) => [name, contact.custom_fields[name] ?? null]));
      const write = { action: 'update' as const, contactId, operations: [...plan.operations], fieldsChanged: Object.keys(plan.fields), tagsAdded: [...plan.tagsAdded], tagsRemoved: [...plan.tagsRemoved], before, beforeRead: target.read };
      // Each call is journalled: undo takes a departure back too.
      await writeKnownContact(api, write, key.key, contactId, state);
    }
    state.recordDeparture(key.key, { contactId, surface, action, tagsAdded: plan.tagsAdded, tagsRemoved: plan.tagsRemoved, fields: plan.fields });
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
