/**
 * One row through match -> plan -> write. Returns the row's result; a failure of the row is a
 * result too. Only an invalid token or a lost shared rate limiter escapes, as a JobAbortError: no
 * later row could succeed.
 *
 * Where the contact comes from, cheapest first: the state store (a known key whose draft is
 * unchanged costs no call; a changed one is updated by its id, no search), the prefetched index,
 * then a search by key. Rows whose key is journalled as "create pending" always search: a killed
 * run may have created the contact without learning its id.
 */
import { ApiError, InvalidTokenError, NoSuchContactError } from '../api/errors.js';
import type { ContactsApi } from '../api/contacts-api.js';
import { RateLimiterUnavailableError } from '../api/rate-limiter-unavailable-error.js';
import type { Job } from '../config/job-types.js';
import { draftHash } from '../state/draft-hash.js';
import type { StateStore } from '../state/state-store.js';
import type { ContactIndex } from './contact-index.js';
import { CountedApi } from './counted-api.js';
import { JobAbortError } from './job-abort.js';
import { findRecipients } from './message-recipients.js';
import { messageWanted } from './message-render.js';
import { sendRowMessage } from './send-message.js';
import { findContactsByKey } from './match.js';
import { applyPlan, decideMatch, duplicateContactsReason, planCreate, planUpdate, type ContactPlan, type MatchDecision, type MatchedContact } from './plan.js';
import type { ContactDraft, RowResult } from './types.js';
import { executePlan, type WriteProgress } from './write.js';

export interface RowSyncContext {
  api: ContactsApi;
  job: Job;
  /** Search and plan, write nothing; outcomes say what would happen. */
  dryRun: boolean;
  /**
   * In a dry run, what each key's contact would hold after the rows so far, so a later row of the
   * same key is planned against it as a real run would (an update, not a second create).
   */
  dryRunContacts?: Map<string, MatchedContact>;
  /** The job's state store; absent with `state: false`. */
  state?: StateStore;
  /** `--full`: ignore what the state store knows, compare every row with the platform. */
  full?: boolean;
  /** Contacts prefetched by `match.prefetch`. */
  index?: ContactIndex;
}

export function failedResult(line: number, key: string, cells: string[], code: string, message: string): RowResult {
  return {
    line,
    key,
    outcome: 'failed',
    contactId: '',
    fieldsChanged: [],
    tagsAdded: [],
    tagsRemoved: [],
    apiCalls: 0,
    errorCode: code,
    errorMessage: message,
    messageStatus: '',
    messageError: '',
    cells,
  };
}

export async function syncRow(draft: ContactDraft, cells: string[], context: RowSyncContext): Promise<RowResult> {
  const api = new CountedApi(context.api);
  const base: RowResult = { ...failedResult(draft.line, draft.key, cells, '', ''), outcome: 'unchanged' };
  const progress: WriteProgress = { contactId: '' };
  try {
    if (context.job.mode === 'message') return { ...base, ...(await messageOnly(draft, api, context)), apiCalls: api.calls };
    const hash = draftHash(draft);
    const known = await syncKnownContact(draft, hash, api, context, progress);
    const result = known ?? (await syncByMatch(draft, hash, api, context, progress));
    const message = context.job.message;
    if (message !== undefined && messageWanted(message.when, result.outcome)) {
      // A dry run has no id for a contact it would create; the send is reported all the same.
      const ids = result.contactId === '' ? ['(new)'] : result.contactId.split(';');
      const sent = await sendRowMessage(ids, draft.templateValues, { api, spec: message, state: context.state, dryRun: context.dryRun });
      return { ...base, ...result, messageStatus: sent.status, messageError: sent.error, apiCalls: api.calls };
    }
    return { ...base, ...result, apiCalls: api.calls };
  } catch (error) {
    if (error instanceof InvalidTokenError) {
      throw new JobAbortError(
        'INVALID_TOKEN',
        `the platform refused the token of connection "${context.job.connection.name}" (401); check the channel token it reads`,
        { cause: error },
      );
    }
    // Its message names the connection's rateLimits.redis and what to do.
    if (error instanceof RateLimiterUnavailableError) throw new JobAbortError('RATE_LIMITER_LOST', error.message, { cause: error });
    return {
      ...base,
      outcome: 'failed',
      contactId: progress.contactId,
      errorCode: error instanceof ApiError ? error.code : 'API_ERROR',
      errorMessage: error instanceof Error ? error.message : String(error),
      apiCalls: api.calls,
    };
  }
}

type PartialResult = Pick<RowResult, 'outcome' | 'contactId' | 'fieldsChanged' | 'tagsAdded' | 'tagsRemoved' | 'errorCode' | 'errorMessage'> &
  Partial<Pick<RowResult, 'messageStatus' | 'messageError'>>;

/** `mode: message`: no contact is written; the row's outcome is its contact's (unchanged or skipped). */
async function messageOnly(draft: ContactDraft, api: ContactsApi, context: RowSyncContext): Promise<PartialResult> {
  const spec = context.job.message;
  if (spec === undefined) throw new Error('mode: message needs a message: section (the config check enforces it)');
  const recipients = await findRecipients(draft, context.job, api, context.state, context.full === true);
  if (recipients.kind === 'none') return { ...nothingDone(''), outcome: 'skipped', errorMessage: recipients.reason };
  if (recipients.kind === 'ambiguous') return { ...nothingDone(''), outcome: 'failed', errorCode: 'DUPLICATE_CONTACTS', errorMessage: recipients.reason };
  const sent = await sendRowMessage(recipients.contactIds, draft.templateValues, { api, spec, state: context.state, dryRun: context.dryRun });
  return { ...nothingDone(recipients.contactIds.join(';')), messageStatus: sent.status, messageError: sent.error };
}

function nothingDone(contactId: string): PartialResult {
  return { outcome: 'unchanged', contactId, fieldsChanged: [], tagsAdded: [], tagsRemoved: [], errorCode: '', errorMessage: '' };
}

function fromPlan(plan: ContactPlan, contactId: string): PartialResult {
  const outcome = plan.action === 'create' ? 'created' : plan.action === 'update' ? 'updated' : 'unchanged';
  return { outcome, contactId, fieldsChanged: plan.fieldsChanged, tagsAdded: plan.tagsAdded, tagsRemoved: plan.tagsRemoved, errorCode: '', errorMessage: '' };
}

/**
 * The state store's path: undefined when the key is not known (or must be searched), so the
 * caller matches it on the platform.
 */
async function syncKnownContact(
  draft: ContactDraft,
  hash: string,
  api: ContactsApi,
  context: RowSyncContext,
  progress: WriteProgress,
): Promise<PartialResult | undefined> {
  const { state } = context;
  if (state === undefined || context.full === true || state.isCreatePending(draft.key)) return undefined;
  const known = state.get(draft.key);
  if (known === undefined) return undefined;
  if (context.job.mode === 'create') {
    return { ...nothingDone(known.contactId), outcome: 'skipped', errorMessage: 'a contact with this key exists (known from the state store; mode: create)' };
  }
  if (known.draftHash === hash) return nothingDone(known.contactId);
  const before = { id: known.contactId, custom_fields: known.fields, tags: known.tags };
  const plan = planUpdate(draft, before);
  if (context.dryRun) return fromPlan(plan, known.contactId);
  try {
    await executePlan(api, plan, draft.key, { findByKey: (key) => findContactsByKey(api, draft.keyField, key) }, progress);
  } catch (error) {
    // Deleted on the platform since the last run: forget the key and match it afresh.
    if (error instanceof NoSuchContactError) {
      state.forget(draft.key);
      progress.contactId = '';
      return undefined;
    }
    throw error;
  }
  state.recordConfirmed(draft.key, {
    contactId: known.contactId,
    fields: Object.fromEntries(plan.operations.flatMap((op) => (op.kind === 'updateContact' ? Object.entries(op.fields) : []))),
    tagsAdded: plan.tagsAdded,
    tagsRemoved: plan.tagsRemoved,
    draftHash: hash,
  });
  return fromPlan(plan, known.contactId);
}

/** Finds the contacts of the key (index, then search), decides by mode, plans and writes. */
async function syncByMatch(
  draft: ContactDraft,
  hash: string,
  api: ContactsApi,
  context: RowSyncContext,
  progress: WriteProgress,
): Promise<PartialResult> {
  const { job, state } = context;
  const findByKey = (key: string) => findContactsByKey(api, draft.keyField, key);
  const matches = await matchesOf(draft, context, findByKey);
  // A create-pending key's contact is the one a killed run of this job created: finish it (its
  // tags may be missing), even in mode create, which would otherwise skip it as existing.
  const resuming = job.mode === 'create' && state?.isCreatePending(draft.key) === true;
  const decision = decideMatch(matches, resuming ? 'upsert' : (job.mode as 'upsert' | 'create' | 'update'), job.onDuplicate);
  if (decision.kind === 'skip') {
    // mode create found the key on the platform: record its contact, or a later run (which does
    // not search keys it never saw) would create it again. No hash: nothing of the row was written.
    const [found] = [...matches].sort((a, b) => a.created_at - b.created_at);
    if (state !== undefined && !context.dryRun && found !== undefined) {
      state.recordObserved(draft.key, { contactId: found.id, fields: found.custom_fields, tags: found.tags, draftHash: null });
    }
    return { ...nothingDone(matches.map((c) => c.id).join(';')), outcome: 'skipped', errorMessage: decision.reason };
  }
  if (decision.kind === 'ambiguous') {
    return { ...nothingDone(''), outcome: 'failed', errorCode: 'DUPLICATE_CONTACTS', errorMessage: duplicateContactsReason(draft.keyField, draft.key, decision.ids) };
  }
  const targets = decision.kind === 'create' ? [undefined] : decision.contacts;
  const results: PartialResult[] = [];
  for (const before of targets) {
    const plan = before === undefined ? planCreate(draft) : planUpdate(draft, before);
    let contactId = plan.contactId ?? '';
    if (!context.dryRun) {
      contactId = (await executePlan(api, plan, draft.key, { findByKey, beforeCreate: (key) => state?.markCreatePending(key) }, progress)) || contactId;
      // What the contact holds now, as far as this job knows: the next run compares with it.
      if (state !== undefined && targets.length === 1) {
        const after = applyPlan(before, plan, contactId);
        state.recordObserved(draft.key, { contactId, fields: after.custom_fields, tags: after.tags, draftHash: hash });
      }
    } else if (targets.length === 1) {
      context.dryRunContacts?.set(draft.key, { ...applyPlan(before, plan, contactId), created_at: 0 });
    }
    progress.contactId = '';
    results.push(fromPlan(plan, contactId));
  }
  return mergeResults(results, decision);
}

async function matchesOf(
  draft: ContactDraft,
  context: RowSyncContext,
  findByKey: (key: string) => Promise<MatchedContact[]>,
): Promise<MatchedContact[]> {
  const simulated = context.dryRun ? context.dryRunContacts?.get(draft.key) : undefined;
  if (simulated !== undefined) return [simulated];
  const pending = context.state?.isCreatePending(draft.key) === true;
  // The index proves presence, not absence: a key it lacks may be on a contact without the
  // prefetch marker, so it is still searched.
  const indexed = pending ? undefined : context.index?.lookup(draft.key);
  if (indexed !== undefined && indexed.length > 0) return indexed;
  // The user says new keys are new: a first migration costs no search per row. A key that
  // is journalled as create-pending is searched all the same (a killed run may have created it).
  if (context.job.mode === 'create' && context.state !== undefined && context.full !== true && !pending) return [];
  return findByKey(draft.key);
}

function mergeResults(results: PartialResult[], decision: MatchDecision): PartialResult {
  const [first] = results;
  if (results.length === 1 && first !== undefined) return first;
  const union = (pick: (r: PartialResult) => string[]) => [...new Set(results.flatMap(pick))];
  const outcome = results.some((r) => r.outcome === 'updated') ? 'updated' : 'unchanged';
  return {
    outcome,
    contactId: decision.kind === 'update' ? decision.contacts.map((c) => c.id).join(';') : '',
    fieldsChanged: union((r) => r.fieldsChanged),
    tagsAdded: union((r) => r.tagsAdded),
    tagsRemoved: union((r) => r.tagsRemoved),
    errorCode: '',
    errorMessage: '',
  };
}
