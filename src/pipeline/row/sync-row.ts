/**
 * The row executor: gathers what is known of a row's key (state store, prefetch index, dry-run
 * simulation, a search when the decision asks for one), asks the pure decision (`decide.ts`) for
 * the row's plan, runs its writes, records the confirmed outcome in the state store, sends the
 * row's message and reports the row. It knows no policy: which contact and which calls is the
 * decision's. See docs/architecture.md.
 *
 * A row's failure is a result (an API error on this row). What is not the row's own failure
 * stops the job, as a JobAbortError carried with the row's result: an invalid token or a lost
 * shared rate limiter (no later row could succeed), a state store that cannot be written (the
 * job would lose track of what it did), a bug.
 */
import { NoSuchContactError, type ApiError } from '../../api/errors.js';
import type { ContactsApi } from '../../api/contacts-api.js';
import type { SurfaceName } from '../../api/platform-surface.js';
import type { Job } from '../../config/job-types.js';
import { draftHash } from '../../state/draft-hash.js';
import type { RowStore } from '../../state/state-port.js';
import { sendRowMessage } from '../message/send-message.js';
import { abortReason } from '../abort-reason.js';
import type { JobAbortError } from '../job-abort.js';
import type { ContactDraft } from '../map/contact-draft.js';
import type { RowResult } from '../report/row-outcome.js';
import type { ContactIndex } from './contact-index.js';
import { CountedApi } from './counted-api.js';
import { decideRow, type KeyState, type RowFacts, type RowPlan } from './decide.js';
import { findContactsByKey, findIdentifierHolders } from './match.js';
import type { ContactTarget, Operation } from './plan.js';
import type { KnownContact } from '../../state/known-contact.js';
import { executePlan, type WriteHooks, type WriteProgress } from './write.js';
import type { ChangeEntry } from '../../state/change-journal.js';
import { confirmedResult, draftResult, planResult } from './row-result.js';
import type { WithheldCalls } from '../real-run-estimate.js';
import type { FreshReads, PriorReads } from './fresh-read.js';
import { departedFacts, pruneFacts, storedKeyState } from './key-facts.js';

export interface RowSyncContext {
  readonly api: ContactsApi;
  readonly job: Job;
  /** Search and plan, write nothing; outcomes say what would happen. */
  readonly dryRun: boolean;
  /**
   * In a dry run, what each key's contact would hold after the rows so far, so a later row of the
   * same key is planned against it as a real run would (an update, not a second create).
   */
  readonly dryRunContacts?: Map<string, KnownContact>;
  /** The job's state store, the part a row uses; absent with `state: false`. */
  readonly state?: RowStore;
  /** `--full`: ignore what the state store knows, compare every row with the platform. */
  readonly full?: boolean;
  /** Contacts prefetched by `match.prefetch`. */
  readonly index?: ContactIndex;
  /** Dry run: the writes and sends it decides and withholds, for its estimate of the real run. */
  readonly withheld?: WithheldCalls;
  /** The reconcile's reads this run takes for searches (`fresh-read.ts`); none by default. */
  readonly freshReads?: FreshReads;
  /** The searches the guards made before the first write (`guards/first-read.ts`), each taken by its key's row. */
  readonly firstReads?: FirstReads;
  /** What the reconcile or undo right before this run read: a before this run's writes are vouched for (`fresh-read.ts`). */
  readonly priorReads?: PriorReads;
}

/** A search made for a key's row before the run's first write: its answer and the calls it took. */
export interface FirstRead {
  readonly contacts: readonly KnownContact[];
  /** The read of the identifier a create would land on, when the decision asked for it. */
  readonly identifierHolders?: readonly KnownContact[];
  readonly calls: number;
}

/** The searches the guards made for rows before the first write; the row of each key takes its own once. */
export interface FirstReads {
  take(key: string): FirstRead | undefined;
  has(key: string): boolean;
}

/** A row's result, and the reason the job must stop when the row met one. */
export interface RowSync {
  readonly result: RowResult;
  readonly abort?: JobAbortError;
}

/**
 * The rounds of one row's decision: a stale state that answered "no such contact", the key's
 * search, the read of the identifier a create lands on, the plan.
 */
const MAX_DECISIONS = 5;

export async function syncRow(draft: ContactDraft, cells: string[], context: RowSyncContext): Promise<RowSync> {
  const api = new CountedApi(context.api);
  const progress: WriteProgress = { contactId: '', confirmed: [] };
  const row = draftResult(draft, cells);
  let plan: RowPlan | undefined;
  let written = false;
  try {
    let facts = initialFacts(draft, context);
    // The search the guards made for this row before the first write is the row's own.
    const read = context.firstReads?.take(draft.key);
    if (read !== undefined) {
      facts = { ...facts, searched: read.contacts, ...(read.identifierHolders ? { identifierHolders: read.identifierHolders } : {}) };
      api.calls += read.calls;
    }
    for (let round = 1; ; round++) {
      if (round > MAX_DECISIONS) throw new Error(`the row decision did not settle after ${MAX_DECISIONS} rounds`);
      const decision = decideRow(facts);
      if (decision.kind === 'search') {
        facts = { ...facts, searched: await findContactsByKey(api, draft.keyField, draft.key) };
        continue;
      }
      if (decision.kind === 'read-identifier') {
        facts = { ...facts, identifierHolders: await findIdentifierHolders(api, decision.field, decision.value) };
        continue;
      }
      plan = decision.plan;
      // A dry run's create the surface would refuse fails as the real run's would, before any call.
      const refused = refusedCreate(plan.withheld, api.surface);
      if (refused !== undefined) throw refused;
      if (plan.matchedBy === 'index') context.index?.recordHit();
      if (plan.markMessageDue) context.state?.markMessageDue(draft.key);
      try {
        await runWrites(plan, draft, api, context, progress);
      } catch (error) {
        if (error instanceof NoSuchContactError && plan.onVanished === 'forget-and-decide-again') {
          context.state?.forget(draft.key);
          progress.contactId = '';
          facts = { ...facts, state: { kind: 'stale' } };
          continue;
        }
        throw error;
      }
      written = true;
      break;
    }
    const contactIds = plan.contacts.map((target) => resolve(target, progress.contactId));
    recordState(plan, draft.key, contactIds[0] ?? '', context.state, api.surface.name);
    if (plan.simulate !== undefined) context.dryRunContacts?.set(draft.key, plan.simulate);
    countWithheld(plan, context.withheld);
    const result: RowResult = { ...row, ...planResult(plan), contactId: contactIds.join(';') };
    const spec = context.job.message;
    if (plan.message === undefined || spec === undefined) return { result: { ...result, apiCalls: api.calls } };
    // A dry run has no id for a contact it would create; the send is reported all the same.
    const recipients = plan.message.map((target) => resolve(target, progress.contactId) || '(new)');
    const sent = await sendRowMessage(recipients, draft.templateValues, { api, spec, state: context.state, dryRun: context.dryRun });
    // A dry run's "sent" is a send per recipient the real run would make.
    if (context.dryRun && sent.status === 'sent') context.withheld?.addSends(recipients.length);
    // Left, skipped as already sent, or unknown: the message journal has it now.
    if (sent.status !== 'failed' && plan.clearMessageDueWhenSent) context.state?.clearMessageDue(draft.key);
    return { result: { ...result, messageStatus: sent.status, messageError: sent.error, apiCalls: api.calls } };
  } catch (error) {
    return failedSync(error, { draft, context, row, plan: written ? plan : undefined, contactId: progress.contactId, calls: api.calls, confirmed: progress.confirmed });
  }
}

/**
 * The row settled at once, with no promise, when its plan makes no call and sends no message: an
 * unchanged row of a re-run (known to the state store with the same draft hash). The same result
 * and the same state record as `syncRow` would give; undefined when the row needs a call, a
 * message or a search, or failed: `syncRow` then runs it. `known` is the key's state as read
 * ahead (`row-lookahead.ts`), still true because no row of the key ran since.
 */
export function settleWithoutCalls(draft: ContactDraft, cells: string[], context: RowSyncContext, known: KeyState | undefined): RowSync | undefined {
  // A row the guards searched for made a call: `syncRow` takes the answer and counts it.
  if (context.firstReads?.has(draft.key) === true) return undefined;
  let plan: RowPlan;
  try {
    const decision = decideRow(initialFacts(draft, context, known));
    if (decision.kind !== 'plan') return undefined;
    plan = decision.plan;
  } catch {
    // A fact that could not be read (the message journal): the row runs as usual and meets it.
    return undefined;
  }
  if (!plan.callFree) return undefined;
  const row = draftResult(draft, cells);
  try {
    if (plan.matchedBy === 'index') context.index?.recordHit();
    const contactIds = plan.contacts.map((target) => resolve(target, ''));
    recordState(plan, draft.key, contactIds[0] ?? '', context.state, context.api.surface.name);
    if (plan.simulate !== undefined) context.dryRunContacts?.set(draft.key, plan.simulate);
    countWithheld(plan, context.withheld);
    return { result: { ...row, ...planResult(plan), contactId: contactIds.join(';'), apiCalls: 0 } };
  } catch (error) {
    return failedSync(error, { draft, context, row, plan, contactId: '', calls: 0 });
  }
}

/**
 * What the row of `draft` would do, decided before the run's first write from what the row itself
 * would read: the state, the prefetch index, or the search it would make, made now (the guards'
 * first read of the keys the state does not know, `guards/first-read.ts`). The search, if one was
 * made, is returned for the row to take (`RowSyncContext.firstReads`), so it is made once.
 */
export async function planBeforeWrites(draft: ContactDraft, context: RowSyncContext): Promise<{ plan: RowPlan; searched?: FirstRead }> {
  const api = new CountedApi(context.api);
  let facts = initialFacts(draft, context);
  for (let round = 1; round <= MAX_DECISIONS; round++) {
    const decision = decideRow(facts);
    if (decision.kind === 'plan') {
      const read = facts.searched === undefined ? undefined : { contacts: facts.searched, calls: api.calls, ...(facts.identifierHolders ? { identifierHolders: facts.identifierHolders } : {}) };
      return { plan: decision.plan, ...(read ? { searched: read } : {}) };
    }
    if (decision.kind === 'search') {
      if (facts.searched !== undefined) throw new Error(`the row decision asked for a second search of key ${JSON.stringify(draft.key)}`);
      facts = { ...facts, searched: await findContactsByKey(api, draft.keyField, draft.key) };
    } else facts = { ...facts, identifierHolders: await findIdentifierHolders(api, decision.field, decision.value) };
  }
  throw new Error(`the row decision did not settle after ${MAX_DECISIONS} rounds`);
}

/**
 * The result of a row that met `error`. `plan` is given when its writes were all confirmed: they
 * are what they are (a created contact is reported created).
 */
export function failedSync(
  error: unknown,
  at: { draft: ContactDraft; context: Pick<RowSyncContext, 'job'>; row: RowResult; plan: RowPlan | undefined; contactId: string; calls: number; confirmed?: readonly Operation[] | undefined },
): RowSync {
  const { row, plan, contactId, calls } = at;
  const base = plan !== undefined ? { ...row, ...planResult(plan), contactId } : { ...row, contactId };
  const abort = abortReason(error, at.context.job, `at line ${at.draft.line}`);
  if (abort !== undefined) {
    // Calls the platform confirmed before the state store failed to journal them are what they are.
    const journalled = plan === undefined && abort.code === 'STATE_WRITE_FAILED' && at.confirmed !== undefined && at.confirmed.length > 0;
    const failed = plan !== undefined ? base : journalled ? { ...base, ...confirmedResult(at.confirmed ?? []) } : { ...base, outcome: 'failed' as const };
    return { result: { ...failed, errorCode: abort.code, errorMessage: abort.message, apiCalls: calls }, abort };
  }
  const apiError = error as ApiError;
  return { result: { ...base, outcome: 'failed', errorCode: apiError.code, errorMessage: apiError.message, apiCalls: calls } };
}

/** `state`: what the store knows of the key, read now unless given (read ahead). */
function initialFacts(draft: ContactDraft, context: RowSyncContext, state = context.state === undefined ? undefined : storedKeyState(context.state, draft.key, context.freshReads, context.api.surface.name, context.priorReads)): RowFacts {
  const { job } = context;
  const simulated = context.dryRun ? context.dryRunContacts?.get(draft.key) : undefined;
  const indexed = context.index?.lookup(draft.key);
  return {
    draft,
    draftHash: draftHash(draft),
    mode: job.mode,
    onDuplicate: job.onDuplicate,
    dryRun: context.dryRun,
    full: context.full === true,
    limits: context.api.surface,
    state,
    ...(simulated !== undefined ? { simulated } : {}),
    ...(indexed !== undefined ? { indexed } : {}),
    ...(job.message !== undefined ? { message: job.message } : {}),
    ...(job.message !== undefined && !context.dryRun && context.state?.isMessageDue(draft.key) === true ? { messageDue: true } : {}),
    ...pruneFacts(job),
    ...departedFacts(job, context.state, draft.key),
  };
}

async function runWrites(plan: RowPlan, draft: ContactDraft, api: ContactsApi, context: RowSyncContext, progress: WriteProgress): Promise<void> {
  const { state } = context;
  const hooks: WriteHooks = {
    findByKey: (key: string) => findContactsByKey(api, draft.keyField, key),
    ...(plan.journalCreate && state !== undefined ? { beforeCreate: (key: string) => state.markCreatePending(key) } : {}),
    // The same row on the next run fails again with no call (row-lookahead.ts `uncreatable`).
    ...(plan.journalCreate && state !== undefined && draft.rowHash !== undefined ? { createRefused: uncreatableMark(state, draft.rowHash, api.surface.name) } : {}),
    // Every confirmed call is in the change journal of the run (docs/undo.md).
    ...(state !== undefined ? { confirmed: (contactId: string, change: ChangeEntry) => state.journalChange(draft.key, contactId, change) } : {}),
  };
  for (const write of plan.writes) {
    await executePlan(api, write, draft.key, hooks, progress);
    // Each contact of `onDuplicate: all` reports its own id; the row lists them all.
    if (plan.writes.length > 1) progress.contactId = '';
  }
}

/** The mark a row whose contact the surface cannot create leaves: its row hash, the surface and the failure. */
function uncreatableMark(state: RowStore, rowHash: string, surface: SurfaceName): NonNullable<WriteHooks['createRefused']> {
  return (key, refusal) => state.recordUncreatable(key, { rowHash, surface, code: refusal.code, message: refusal.message });
}

/** Why the surface refuses the create a withheld (dry-run) plan holds, if it does (`surface.createRefusal`). */
function refusedCreate(withheld: RowPlan['withheld'], surface: ContactsApi['surface']): ApiError | undefined {
  for (const plan of withheld) {
    const [first] = plan.operations;
    if (first?.kind === 'createContact') return surface.createRefusal(first.fields);
  }
  return undefined;
}

/** A dry run's withheld writes, counted once the row is decided. */
function countWithheld(plan: RowPlan, withheld: WithheldCalls | undefined): void {
  for (const write of plan.withheld) withheld?.addPlan(write);
}

function resolve(target: ContactTarget, created: string): string {
  return target === 'created' ? created : target.id;
}

/** `surface`: the surface of the api whose answers gave the ids recorded. */
function recordState(plan: RowPlan, key: string, contactId: string, state: RowStore | undefined, surface: SurfaceName): void {
  if (plan.clearDeparted) state?.clearDeparted(key);
  if (plan.noteRowHash !== undefined) state?.noteRowHash(key, plan.noteRowHash.draftHash, plan.noteRowHash.rowHash);
  const { record } = plan;
  if (record === undefined || state === undefined) return;
  const { tagsAdded, tagsRemoved, rowHash } = record;
  if (record.kind === 'confirmed') {
    state.recordConfirmed(key, { contactId: record.contactId, surface, fields: record.fields, tagsAdded, tagsRemoved, draftHash: record.draftHash, rowHash });
  } else {
    const id = record.contact === 'created' ? contactId : record.contact.id;
    state.recordObserved(key, { contactId: id, surface, fields: record.fields, tags: record.tags, tagsAdded, tagsRemoved, draftHash: record.draftHash, rowHash });
  }
}
