/**
 * The row executor of `reconcile` (issue 21; docs/reconcile.md), a read-and-compare path of its
 * own: reads what the platform holds for a row's key (the prefetch index's contacts, else one
 * search: a state store's belief is never taken for the platform's truth), gathers what the store
 * and the job say of the key, asks the pure reconcile decision (`compare.ts`, `decideReconcile`)
 * how they disagree and what to record, and records it, so that the next `run` writes exactly what
 * differs. It writes to the platform only with `--merge-duplicates` (a key's contacts merged into
 * one: `mergeKey`, through the one writer), and shares nothing with the sync path but the
 * key's facts (`key-facts.ts`) and the shape of a failed row (`failedSync`).
 */
import type { ContactsApi } from '../../api/contacts-api.js';
import { ApiError } from '../../api/errors.js';
import type { ChangeEntry } from '../../state/change-journal.js';
import { trustedOn, type KnownContact } from '../../state/known-contact.js';
import { planMerge, planMergedTags } from './finish-plan.js';
import { executePlan } from './write.js';
import { abortReason } from '../abort-reason.js';
import type { Job } from '../../config/job-types.js';
import { draftHash } from '../../state/draft-hash.js';
import type { IdSurface } from '../../state/known-contact.js';
import type { ReconcileStore } from '../../state/state-port.js';
import type { ContactDraft } from '../map/contact-draft.js';
import type { ContactIndex } from './contact-index.js';
import { decideReconcile, type KeyComparison, type ReconcileFacts, type ReconcileRecord } from './compare.js';
import { CountedApi } from './counted-api.js';
import { departedFacts, pruneFacts, storedKeyState } from './key-facts.js';
import { findContactsByKey } from './match.js';
import { pendingResult } from './row-result.js';
import { failedSync, type RowSync } from './sync-row.js';

/**
 * The part of the state store a reconcile row uses: what is known of its key (the tags the job
 * owns, a departure), and what its read leaves known (the contact observed, or the key read absent).
 */

export interface ReconcileRowContext {
  readonly api: ContactsApi;
  readonly job: Job;
  /** The job's state store, the part a reconcile row uses; absent with `state: false`. */
  readonly state?: ReconcileStore;
  /** The marked contacts the pages read (`match.prefetch`). */
  readonly index?: ContactIndex;
  /** `--merge-duplicates` (a surface that merges): a key held by several contacts is merged into one; `dryRun`: only listed. */
  readonly merge?: { readonly dryRun: boolean };
}

/**
 * What reconcile's own writes did to a key (diff.csv's `action`): merged (the survivor first in
 * `contactIds`, then those merged into it), would be merged (a dry run), or the merge failed.
 */
export interface KeyFinish {
  readonly action: 'merged' | 'would-merge' | 'merge-failed';
  readonly contactIds: readonly string[];
  readonly error?: { readonly code: string; readonly message: string };
}

/** A reconciled row: its result, and how its key stands against the platform (absent when it could not be read). */
export interface RowReconcile extends RowSync {
  readonly comparison?: KeyComparison;
  /** What `--merge-duplicates` did to the key (a duplicate only). */
  readonly finish?: KeyFinish;
}

export async function reconcileRow(draft: ContactDraft, cells: string[], context: ReconcileRowContext): Promise<RowReconcile> {
  const api = new CountedApi(context.api);
  const row = pendingResult(draft.line, draft.key, cells);
  try {
    // The index proves a key is there, not that it is not: a key it lacks is searched.
    const indexed = context.index?.lookup(draft.key) ?? [];
    if (indexed.length > 0) context.index?.recordHit();
    const contacts = indexed.length > 0 ? indexed : await findContactsByKey(api, draft.keyField, draft.key);
    const plan = decideReconcile(reconcileFacts(draft, context), contacts);
    record(draft.key, plan.record, context.state, context.api.surface.name);
    const finish = plan.comparison.status === 'duplicate' && context.merge !== undefined ? await mergeKey(api, draft, contacts, context, context.merge.dryRun) : undefined;
    // Nothing was written by the comparison: every compared row is `unchanged` in the tally; the comparison (and a merge) say the rest.
    return { result: { ...row, outcome: 'unchanged', contactId: plan.contactId, apiCalls: api.calls }, comparison: plan.comparison, ...(finish === undefined ? {} : { finish }) };
  } catch (error) {
    return failedSync(error, { draft, context, row, plan: undefined, contactId: '', calls: api.calls });
  }
}

/**
 * `--merge-duplicates`: the key's contacts merged into one (`planMerge`) through the one writer,
 * each merge journalled; the survivor the platform named read back, the merged contacts' tags it
 * lacks added; the state then knows the key by the survivor. A failure is the key's line, not the
 * row's: the comparison stands.
 */
async function mergeKey(api: CountedApi, draft: ContactDraft, contacts: readonly KnownContact[], context: ReconcileRowContext, dryRun: boolean): Promise<KeyFinish> {
  const surface = context.api.surface.name;
  const known = context.state?.get(draft.key);
  const knownId = known !== undefined && trustedOn(known, surface) ? known.contact.id : undefined;
  const merge = planMerge({ key: draft.key, keyField: draft.keyField, fields: draft.fields, knownId, contacts });
  if (dryRun) return { action: 'would-merge', contactIds: [merge.survivor, ...merge.others] };
  const journal = (contactId: string, entry: ChangeEntry): void => context.state?.journalChange(draft.key, contactId, entry);
  const progress = { contactId: merge.survivor };
  try {
    const survivor = await executePlan(api, merge.plan, draft.key, { findByKey: () => Promise.resolve([]), confirmed: journal }, progress);
    // Read back: what the platform's merge left, not what it was asked.
    const after = await api.getContact(survivor);
    const tags = planMergedTags(merge.tags, after, api.surface);
    await executePlan(api, tags, draft.key, { findByKey: () => Promise.resolve([]), confirmed: journal }, { contactId: survivor });
    context.state?.recordObserved(draft.key, { contactId: survivor, surface, fields: after.custom_fields, tags: [...new Set([...after.tags, ...tags.tagsAdded])], draftHash: null, rowHash: null });
    const ids = [merge.survivor, ...merge.others];
    return { action: 'merged', contactIds: [survivor, ...ids.filter((id) => id !== survivor)] };
  } catch (error) {
    // What stops the job (a refused token, a stopped connection) stops it, as in any row.
    const failure = error instanceof ApiError && abortReason(error, context.job, `merging the contacts of key ${draft.key}`) === undefined ? error : undefined;
    if (failure === undefined) throw error;
    return { action: 'merge-failed', contactIds: [merge.survivor, ...merge.others], error: { code: failure.code, message: failure.message } };
  }
}

/** What the store and the job say of the row's key, read now (a reconcile takes no read-ahead state and no earlier reconcile's read). */
function reconcileFacts(draft: ContactDraft, context: ReconcileRowContext): ReconcileFacts {
  const { job, state } = context;
  return {
    draft,
    draftHash: draftHash(draft),
    limits: context.api.surface,
    createRefusal: (fields) => context.api.surface.createRefusal(fields),
    state: state === undefined ? undefined : storedKeyState(state, draft.key, undefined, context.api.surface.name),
    ...pruneFacts(job),
    ...departedFacts(job, state, draft.key),
  };
}

/**
 * The decision's record, applied: the key read absent or present under this reconcile, and the
 * contact observed, its id of the surface the contacts were read through.
 */
function record(key: string, decided: ReconcileRecord, state: ReconcileStore | undefined, surface: IdSurface): void {
  if (state === undefined) return;
  state.recordReconcileRead(key, decided.absent);
  if (decided.observed !== undefined) state.recordObserved(key, { ...decided.observed, surface });
}
