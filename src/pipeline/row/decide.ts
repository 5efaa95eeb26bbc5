/**
 * The row decision: a pure function from what is known about a row (its draft, what the state
 * store knows of its key, what the platform returned, the job's mode and the run's flags) to the
 * row's complete plan: which write calls in which order, what the state store records once they
 * are confirmed, what a dry run simulates, and who gets the row's message. When what is known is
 * not enough, the decision is "search the key first", and the executor asks again with the answer.
 *
 * The executor (`sync-row.ts`) gathers the facts, runs the plan and reports it; it knows no
 * policy. Every rule of "which contact, which calls" lives here, so it is proved by a table test
 * without a server (test/pipeline/row/decide.test.ts). See docs/architecture.md.
 */
import type { JobMode, MessageSpec, OnDuplicate, TagOwnership } from '../../config/job-types.js';
import { messageWanted } from '../message/message-render.js';
import type { ContactDraft } from '../map/contact-draft.js';
import type { RowOutcome } from '../report/row-outcome.js';
import { oldestFirst } from './contact-order.js';
import { applyPlan, fieldsToFill, planCreate, planUpdate, tagOperations, type CallLimits, type ContactPlan, type ContactTarget } from './plan.js';
import type { KnownContact, StoredContact } from '../../state/known-contact.js';
import { UNDONE_TAG } from './undone-tag.js';
import { keyOfContact } from '../map/key-value.js';

/** The decision's fact about the row's key: what the job's state store knows of it. */
export type KeyState =
  /** The store has no record of the key. */
  | { readonly kind: 'unknown' }
  /**
   * The store knows the key's contact and what this job last wrote to it: its record
   * (`StoredContact`) but the key and the time, which the decision does not use; `rowHash`
   * defaults to null.
   */
  | ({ readonly kind: 'known' } & Pick<StoredContact, 'contact' | 'draftHash' | 'jobTags'> & Partial<Pick<StoredContact, 'rowHash'>> & {
      /**
       * The record is what the reconcile or undo right before this run read on the platform (with
       * this run's confirmed writes): written over, its values before are read (docs/undo.md).
       */
      readonly read?: boolean;
    })
  /** A create was sent for the key and its answer never confirmed: the contact may exist. */
  | { readonly kind: 'create-pending' }
  /**
   * The store knew the key, but its id cannot be used: the platform says its contact no longer
   * exists, or the id came from another surface of the platform (`keyStateOf`), where it names
   * nothing this run may write to.
   */
  | { readonly kind: 'stale' }
  /**
   * The store has no record of the key, and the reconcile right before this run read it on the
   * platform and found no contact (`row/fresh-read.ts`): as good as a search that found none.
   */
  | { readonly kind: 'absent' };

/** Everything the decision depends on. */
export interface RowFacts {
  readonly draft: ContactDraft;
  /** `draftHash(draft)`: equal to the state's hash means the row asks for what was last written. */
  readonly draftHash: string;
  readonly mode: JobMode;
  readonly onDuplicate: OnDuplicate;
  /** Search and plan, write nothing. */
  readonly dryRun: boolean;
  /** `--full`: what the state store knows is not trusted for matching; the platform is read. */
  readonly full: boolean;
  /** What one write call of the platform's surface takes (`api.surface`): the plans are chunked by it. */
  readonly limits: CallLimits;
  /** What the state store knows of the key; undefined when the job has no state store. */
  readonly state: KeyState | undefined;
  /** Dry run: the contact an earlier row of the same key would have left. */
  readonly simulated?: KnownContact;
  /** The prefetch index's contacts of the key; undefined with no index or a key it lacks. */
  readonly indexed?: readonly KnownContact[];
  /** What a search of the key on the platform returned, once the executor made it. */
  readonly searched?: readonly KnownContact[];
  /**
   * What the read of the identifier a create lands on returned (`read-identifier`), once the
   * executor made it: the contact holding the row's email or phone, if any (issue 41).
   */
  readonly identifierHolders?: readonly KnownContact[];
  /** The job's `message:`; undefined when the job sends none. */
  readonly message?: Pick<MessageSpec, 'when' | 'contactIdColumn'>;
  /** An earlier run planned this row's message and stopped before it left (state `messages_due`). */
  readonly messageDue?: boolean;
  /**
   * `tags.prune`: the contact loses the job's tags its row no longer carries: those the state
   * store knows the job added, and those `owned` names. Undefined: nothing is pruned.
   */
  readonly prune?: { readonly owned?: TagOwnership };
  /**
   * The key had left the input and `onMissing` acted on it (state `departed`): it is back, so the
   * tags that action added are removed again, once.
   */
  readonly departed?: { readonly undoTags: readonly string[] };
}

/** Where the contacts of a key were found. */
export type MatchSource = 'state' | 'index' | 'search' | 'simulated' | 'assumed-new' | 'contact-id' | 'reconcile';

/** The contacts that hold a row's key, or "search the platform first". */
export type KeyContacts = { readonly kind: 'found'; readonly source: MatchSource; readonly contacts: readonly KnownContact[] } | { readonly kind: 'search' };

/** What the state store records once every write of the plan is confirmed. */
export type StateRecord =
  /** Merge what was written over what the store knows of the contact (it was found there). */
  | {
      readonly kind: 'confirmed';
      readonly contactId: string;
      readonly fields: Readonly<Record<string, string>>;
      readonly tagsAdded: readonly string[];
      readonly tagsRemoved: readonly string[];
      readonly draftHash: string;
      /** The draft's row hash (`ContactDraft.rowHash`), stored with the draft hash. */
      readonly rowHash: string | null;
    }
  /** Replace what the store knows with the contact as read from the platform, plus the writes. */
  | {
      readonly kind: 'observed';
      readonly contact: ContactTarget;
      readonly fields: Readonly<Record<string, string>>;
      readonly tags: readonly string[];
      readonly tagsAdded: readonly string[];
      readonly tagsRemoved: readonly string[];
      readonly draftHash: string | null;
      readonly rowHash: string | null;
    };

export interface RowPlan {
  readonly outcome: RowOutcome;
  /**
   * `DUPLICATE_CONTACTS` for a key several contacts hold under `onDuplicate: fail`;
   * `IDENTIFIER_HELD` for a new key whose create would land on another key's contact.
   */
  readonly errorCode: 'DUPLICATE_CONTACTS' | 'IDENTIFIER_HELD' | '';
  /** Why a row is skipped or failed (results.csv `error_message`); '' otherwise. */
  readonly reason: string;
  /** The contacts the row is about (results.csv `contact_id`); 'created' is the one its write creates. */
  readonly contacts: readonly ContactTarget[];
  /** Write plans, run in order, one per contact written (several under `onDuplicate: all`). None in a dry run. */
  readonly writes: readonly ContactPlan[];
  /**
   * Dry run: the write plans a real run would run, which the dry run withholds; they are counted
   * into its estimate of the real run's calls (`real-run-estimate.ts`). None in a real run.
   */
  readonly withheld: readonly ContactPlan[];
  /** Journal the key as create-pending before a create leaves (the job has a state store). */
  readonly journalCreate: boolean;
  /** Recorded in the state store once every write is confirmed. */
  readonly record: StateRecord | undefined;
  /** Dry run: what the key's contact would hold after the row, for the next row of the key. */
  readonly simulate: KnownContact | undefined;
  /** The contacts the row's message goes to; undefined when no message is due. */
  readonly message: readonly ContactTarget[] | undefined;
  readonly fieldsChanged: readonly string[];
  readonly tagsAdded: readonly string[];
  readonly tagsRemoved: readonly string[];
  /** Where the key's contacts came from; undefined when the row needed none. */
  readonly matchedBy: MatchSource | undefined;
  /** A departed key is back and the plan settles it: the departed journal forgets the key once the writes are confirmed. */
  readonly clearDeparted: boolean;
  /**
   * Unchanged by its draft hash, but the store holds another row hash for the key (or none): the
   * store notes this one, so the next run settles the row without mapping it.
   */
  readonly noteRowHash: { readonly draftHash: string; readonly rowHash: string } | undefined;
  /**
   * Journal the row's message as owed before the writes that earn it, so a run killed between
   * them still owes it next time (docs/reliability.md, "Messages journalled when they leave").
   */
  readonly markMessageDue: boolean;
  /** Once the row's message left, was already sent, or may have: it is no longer owed. A failed send stays owed. */
  readonly clearMessageDueWhenSent: boolean;
  /**
   * A write answered "no such contact": `forget-and-decide-again` when the contact came from the
   * state store (deleted on the platform since: the store forgets the key, and the row is decided
   * again with the key `stale`); `fail` otherwise (the row fails with the API's code).
   */
  readonly onVanished: 'forget-and-decide-again' | 'fail';
  /** No call and no message: the row is settled in the row loop, with no promise (`settleWithoutCalls`). */
  readonly callFree: boolean;
}

/**
 * The plan, or a read the decision needs first: the key's search, or the contact that holds the
 * identifier (`field` = `value`) a create would land on (v2's create_or_update: `createLandsOn`).
 */
export type RowDecision =
  | { readonly kind: 'search' }
  | { readonly kind: 'read-identifier'; readonly field: string; readonly value: string }
  | { readonly kind: 'plan'; readonly plan: RowPlan };

/**
 * The contacts of the row's key, cheapest source first, for every mode: the dry run's own
 * simulation, the state store (unless `--full`), a search already made, the prefetch index (it
 * proves presence, not absence), then a search. A create-pending key is always searched: a killed
 * run may have created its contact without learning the id. `mode: create` with a state store
 * takes a key the store never saw as new, without a search (a first migration costs no search per
 * row; `--full` searches). A key the reconcile right before this run found absent is created
 * without a search too (after the index, which is fresher when the run pages).
 */
export function contactsOfKey(facts: RowFacts): KeyContacts {
  const { state } = facts;
  if (facts.simulated !== undefined) return found('simulated', [facts.simulated]);
  // A search made for this row is fresher than the store (it was asked for: fillNeedsRead).
  if (facts.searched !== undefined) return found('search', facts.searched);
  if (!facts.full && state?.kind === 'known' && !fillNeedsRead(facts, state)) return found('state', [state.contact]);
  const pending = state?.kind === 'create-pending';
  if (!pending && facts.indexed !== undefined && facts.indexed.length > 0) return found('index', facts.indexed);
  // The reconcile right before this run found no contact for the key: no search (`--full` searches).
  if (state?.kind === 'absent' && !facts.full) return found('reconcile', []);
  if (facts.mode === 'create' && state?.kind === 'unknown' && !facts.full) return found('assumed-new', []);
  return { kind: 'search' };
}

/**
 * `write: fill-empty` writes a field only where the platform's value is empty, which the store
 * cannot vouch for (an agent may have filled it since the last read): a row that would fill a
 * field the store knows as empty reads the contact first. A field the store knows holds a value is
 * settled without a read (it is not written), and so is a row whose draft the store last wrote
 * whole: the nightly pays a read only on the night a field would be filled (docs/configuration.md).
 */
function fillNeedsRead(facts: RowFacts, state: Extract<KeyState, { kind: 'known' }>): boolean {
  if (facts.mode !== 'upsert' && facts.mode !== 'update') return false;
  if (state.draftHash === facts.draftHash) return false;
  return fieldsToFill(facts.draft, state.contact).length > 0;
}

function found(source: MatchSource, contacts: readonly KnownContact[]): KeyContacts {
  return { kind: 'found', source, contacts };
}

/** Decides the row, or asks for a search of its key first. */
export function decideRow(facts: RowFacts): RowDecision {
  const idColumn = facts.mode === 'message' ? facts.message?.contactIdColumn : undefined;
  const keyContacts =
    idColumn === undefined ? contactsOfKey(facts) : found('contact-id', contactById(facts.draft.templateValues[idColumn] ?? ''));
  if (keyContacts.kind === 'search') return { kind: 'search' };
  const plan = facts.mode === 'message' ? decideMessageOnly(facts, keyContacts, idColumn) : decideWrite(facts, keyContacts);
  const guarded = guardCreate(facts, plan);
  if (guarded.kind === 'read-identifier') return guarded;
  return { kind: 'plan', plan: withExecutionRules(facts, guarded.plan) };
}

/**
 * A create that would land on an existing contact (v2's create_or_update by the row's email or
 * phone, when the key is another field) must not land on another key's contact: two customers
 * sharing a phone would become one contact, and each run would flip it between them (issue 41).
 * The holder of that identifier is read first; held by a contact of another key, the row fails
 * with `IDENTIFIER_HELD` and nothing is written. A holder with no key is the person the platform
 * already knows by that email or phone (a chat that came in): the create takes it, as
 * create_or_update does.
 */
function guardCreate(facts: RowFacts, plan: RowPlan): { kind: 'plan'; plan: RowPlan } | Extract<RowDecision, { kind: 'read-identifier' }> {
  const create = [...plan.writes, ...plan.withheld].find((write) => write.action === 'create')?.operations[0];
  if (create?.kind !== 'createContact') return { kind: 'plan', plan };
  const { draft } = facts;
  const field = facts.limits.createLandsOn?.(create.fields);
  const value = field === undefined ? undefined : create.fields[field];
  if (field === undefined || field === draft.keyField || value === undefined) return { kind: 'plan', plan };
  if (facts.identifierHolders === undefined) return { kind: 'read-identifier', field, value };
  const holder = facts.identifierHolders.find((contact) => {
    const held = keyOfContact(draft.keyField, contact);
    return held !== '' && held !== draft.key;
  });
  if (holder === undefined) return { kind: 'plan', plan };
  const reason =
    `${field} ${value} belongs to contact ${holder.id}, whose ${draft.keyField} is ${keyOfContact(draft.keyField, holder)}: the platform creates a contact by its ${field} ` +
    `and would write ${draft.keyField}=${draft.key} over that contact, so nothing was written; give this row ${field === 'email' ? 'an email' : 'a phone'} of its own (or none), or merge the two on the platform`;
  return { kind: 'plan', plan: { ...NOTHING, outcome: 'failed', errorCode: 'IDENTIFIER_HELD', reason, matchedBy: plan.matchedBy } };
}

/** What the executor must do around the plan's calls, decided here so the table test sees it. */
function withExecutionRules(facts: RowFacts, plan: RowPlan): RowPlan {
  const journal = facts.state !== undefined && !facts.dryRun;
  const messaged = plan.message !== undefined;
  return {
    ...plan,
    markMessageDue: journal && messaged && plan.writes.length > 0,
    clearMessageDueWhenSent: journal && messaged,
    onVanished: plan.matchedBy === 'state' && facts.state !== undefined ? 'forget-and-decide-again' : 'fail',
    callFree: plan.writes.length === 0 && plan.outcome !== 'failed' && !(messaged && facts.message !== undefined),
  };
}

function contactById(id: string): KnownContact[] {
  const trimmed = id.trim();
  return trimmed === '' ? [] : [{ id: trimmed, custom_fields: {}, tags: [] }];
}

const NOTHING: Omit<RowPlan, 'outcome' | 'matchedBy'> = {
  errorCode: '',
  reason: '',
  contacts: [],
  writes: [],
  withheld: [],
  journalCreate: false,
  record: undefined,
  simulate: undefined,
  message: undefined,
  fieldsChanged: [],
  tagsAdded: [],
  tagsRemoved: [],
  clearDeparted: false,
  noteRowHash: undefined,
  // Set for every plan by withExecutionRules.
  markMessageDue: false,
  clearMessageDueWhenSent: false,
  onVanished: 'fail',
  callFree: false,
};

/** `mode: message`: no contact is written; the row's message goes to the key's contacts. */
function decideMessageOnly(facts: RowFacts, keyContacts: Extract<KeyContacts, { kind: 'found' }>, idColumn: string | undefined): RowPlan {
  const { draft } = facts;
  const matchedBy = keyContacts.source;
  if (keyContacts.contacts.length === 0) {
    const reason =
      idColumn !== undefined
        ? `the column "${idColumn}" is empty; put the contact id in it`
        : `no contact has ${draft.keyField}=${draft.key}; nothing was sent`;
    return { ...NOTHING, outcome: 'skipped', reason, matchedBy };
  }
  const decision = decideMatch(keyContacts.contacts, 'update', facts.onDuplicate);
  if (decision.kind === 'ambiguous') return ambiguous(facts, decision.ids, matchedBy);
  const contacts = decision.kind === 'update' ? decision.contacts.map((contact) => ({ id: contact.id })) : [];
  return { ...NOTHING, outcome: 'unchanged', contacts, message: contacts, matchedBy };
}

function ambiguous(facts: RowFacts, ids: readonly string[], matchedBy: MatchSource): RowPlan {
  const reason = duplicateContactsReason(facts.draft.keyField, facts.draft.key, ids);
  return { ...NOTHING, outcome: 'failed', errorCode: 'DUPLICATE_CONTACTS', reason, matchedBy };
}

/** `mode: upsert | create | update`: which contacts to write, with which calls. */
function decideWrite(facts: RowFacts, keyContacts: Extract<KeyContacts, { kind: 'found' }>): RowPlan {
  const { draft, state } = facts;
  const { source, contacts } = keyContacts;
  // A create-pending key's contact is the one a killed run of this job created: finish it (its
  // tags may be missing), even in mode create, which would otherwise skip it as existing.
  const resuming = facts.mode === 'create' && state?.kind === 'create-pending';
  const mode = resuming ? 'upsert' : (facts.mode as 'upsert' | 'create' | 'update');
  const decision = decideMatch(contacts, mode, facts.onDuplicate);
  switch (decision.kind) {
    case 'ambiguous':
      return ambiguous(facts, decision.ids, source);
    case 'skip':
      return decideSkip(facts, source, contacts, decision);
    case 'create':
      return settled(facts, withMessage(facts, single(facts, source, undefined, planCreate(draft, facts.limits))));
    case 'update': {
      const [only, ...more] = decision.contacts;
      if (only !== undefined && more.length === 0) {
        const dropped = droppedTags(facts, only);
        // Known to the state store with the same draft and no tag to drop: the contact holds what the row asks for.
        if (source === 'state' && state?.kind === 'known' && state.draftHash === facts.draftHash && dropped.length === 0) {
          const { rowHash } = draft;
          const noteRowHash = rowHash !== undefined && rowHash !== state.rowHash && !facts.dryRun ? { draftHash: facts.draftHash, rowHash } : undefined;
          return settled(facts, withMessage(facts, { ...NOTHING, outcome: 'unchanged', contacts: [{ id: only.id }], matchedBy: source, noteRowHash }));
        }
        return settled(facts, withMessage(facts, single(facts, source, only, planUpdate(draft, only, dropped, readFromPlatform(facts, source), facts.limits))));
      }
      return settled(facts, withMessage(facts, several(facts, source, decision.contacts)));
    }
  }
}

/**
 * The tags the contact holds that the row no longer carries and that are the job's to remove:
 * with `tags.prune`, those the state store knows the job added to this contact and those `owned`
 * names; for a departed key that is back, the tags its departure added. A tag the row carries,
 * or the job never set, stays.
 */
export function droppedTags(facts: Pick<RowFacts, 'draft' | 'prune' | 'state' | 'departed'>, contact: KnownContact): string[] {
  const carried = new Set(facts.draft.tagsToAdd);
  const present = new Set(contact.tags);
  const candidates: string[] = [];
  const { prune, state } = facts;
  if (prune !== undefined) {
    if (state?.kind === 'known' && state.contact.id === contact.id && state.jobTags !== null) candidates.push(...state.jobTags);
    const { owned } = prune;
    if (owned !== undefined) candidates.push(...contact.tags.filter((tag) => (owned.kind === 'list' ? owned.tags.includes(tag) : tag.startsWith(owned.prefix))));
  }
  candidates.push(...(facts.departed?.undoTags ?? []));
  // The row takes back a contact an undo tagged for deletion: the tag goes, or a user deleting by
  // it would delete a live contact (docs/undo.md).
  candidates.push(UNDONE_TAG);
  return [...new Set(candidates)].filter((tag) => present.has(tag) && !carried.has(tag));
}

/**
 * The contacts were read from the platform, in this run or by the reconcile or undo right before it
 * (the store's record is then that read: `KeyState.read`): the change journal's "before" is then vouched for.
 */
function readFromPlatform(facts: RowFacts, source: MatchSource): boolean {
  return source === 'search' || source === 'index' || (source === 'state' && facts.state?.kind === 'known' && facts.state.read === true);
}

/** A departed key whose row is synced (written, or found to hold what it asks) is back for good. */
function settled(facts: RowFacts, plan: RowPlan): RowPlan {
  const back = facts.departed !== undefined && !facts.dryRun && plan.outcome !== 'failed' && plan.outcome !== 'skipped';
  return back ? { ...plan, clearDeparted: true } : plan;
}

function decideSkip(facts: RowFacts, source: MatchSource, contacts: readonly KnownContact[], decision: Extract<MatchDecision, { kind: 'skip' }>): RowPlan {
  const byAge = oldestFirst(contacts);
  const [oldest] = byAge;
  const undone = reclaimUndone(facts, source, byAge);
  if (undone !== undefined) return undone;
  if (source === 'state') {
    const reason = 'a contact with this key exists (known from the state store; mode: create)';
    return { ...NOTHING, outcome: 'skipped', reason, contacts: byAge.map((c) => ({ id: c.id })), matchedBy: source };
  }
  // mode create found the key on the platform: record its contact, or a later run (which does
  // not search keys it never saw) would create it again. No hash: nothing of the row was written.
  const record: StateRecord | undefined =
    oldest !== undefined && facts.state !== undefined && !facts.dryRun
      ? { kind: 'observed', contact: { id: oldest.id }, fields: oldest.custom_fields, tags: oldest.tags, tagsAdded: [], tagsRemoved: [], draftHash: null, rowHash: null }
      : undefined;
  return { ...NOTHING, outcome: 'skipped', reason: decision.reason, contacts: byAge.map((c) => ({ id: c.id })), record, matchedBy: source };
}

/**
 * `mode: create` skips a key whose contact exists, but a contact an undo tagged for deletion that
 * the row names again is taken back: the tag is removed (one call), nothing else is written.
 */
function reclaimUndone(facts: RowFacts, source: MatchSource, byAge: readonly KnownContact[]): RowPlan | undefined {
  if (facts.draft.tagsToAdd.includes(UNDONE_TAG)) return undefined;
  const tagged = byAge.filter((contact) => contact.tags.includes(UNDONE_TAG));
  if (tagged.length === 0) return undefined;
  const read = readFromPlatform(facts, source);
  const plans = tagged.map(
    (contact): ContactPlan => ({ action: 'update', contactId: contact.id, operations: tagOperations({ id: contact.id }, [], [UNDONE_TAG], facts.limits), fieldsChanged: [], tagsAdded: [], tagsRemoved: [UNDONE_TAG], before: {}, beforeRead: read }),
  );
  const [only] = tagged;
  // What the store knows of the key's contact now; no hash: nothing of the row was written.
  const record: StateRecord | undefined =
    facts.state === undefined || facts.dryRun || only === undefined || tagged.length > 1
      ? undefined
      : { kind: 'observed', contact: { id: only.id }, fields: only.custom_fields, tags: only.tags.filter((tag) => tag !== UNDONE_TAG), tagsAdded: [], tagsRemoved: [UNDONE_TAG], draftHash: null, rowHash: null };
  return {
    ...NOTHING,
    outcome: 'updated',
    contacts: byAge.map((contact) => ({ id: contact.id })),
    writes: facts.dryRun ? [] : plans,
    withheld: facts.dryRun ? plans : [],
    record,
    tagsRemoved: [UNDONE_TAG],
    matchedBy: source,
  };
}

/** One contact written (or created). */
function single(facts: RowFacts, source: MatchSource, before: KnownContact | undefined, plan: ContactPlan): RowPlan {
  const target: ContactTarget = before === undefined ? 'created' : { id: before.id };
  const outcome = plan.action === 'create' ? 'created' : plan.action === 'update' ? 'updated' : 'unchanged';
  const after = applyPlan(before, plan, before?.id ?? '');
  const written = writtenFields(plan);
  const record: StateRecord | undefined =
    facts.state === undefined || facts.dryRun
      ? undefined
      : source === 'state'
        ? {
            kind: 'confirmed',
            contactId: before?.id ?? '',
            fields: written,
            tagsAdded: plan.tagsAdded,
            tagsRemoved: plan.tagsRemoved,
            draftHash: facts.draftHash,
            rowHash: facts.draft.rowHash ?? null,
          }
        : // What the contact holds now, as far as this job knows: the next run compares with it.
          {
            kind: 'observed',
            contact: target,
            fields: after.custom_fields,
            tags: after.tags,
            tagsAdded: plan.tagsAdded,
            tagsRemoved: plan.tagsRemoved,
            draftHash: facts.draftHash,
            rowHash: facts.draft.rowHash ?? null,
          };
  return {
    ...NOTHING,
    outcome,
    contacts: facts.dryRun && target === 'created' ? [] : [target],
    writes: facts.dryRun || plan.operations.length === 0 ? [] : [plan],
    withheld: facts.dryRun && plan.operations.length > 0 ? [plan] : [],
    journalCreate: plan.action === 'create' && facts.state !== undefined && !facts.dryRun,
    record,
    simulate: facts.dryRun ? after : undefined,
    fieldsChanged: plan.fieldsChanged,
    tagsAdded: plan.tagsAdded,
    tagsRemoved: plan.tagsRemoved,
    matchedBy: source,
  };
}

/** `onDuplicate: all`: every contact of the key is updated; the state records none of them. */
function several(facts: RowFacts, source: MatchSource, contacts: readonly KnownContact[]): RowPlan {
  const plans = contacts.map((contact) => planUpdate(facts.draft, contact, droppedTags(facts, contact), readFromPlatform(facts, source), facts.limits));
  const union = (pick: (plan: ContactPlan) => string[]) => [...new Set(plans.flatMap(pick))];
  return {
    ...NOTHING,
    outcome: plans.some((plan) => plan.action === 'update') ? 'updated' : 'unchanged',
    contacts: contacts.map((contact) => ({ id: contact.id })),
    writes: facts.dryRun ? [] : plans.filter((plan) => plan.operations.length > 0),
    withheld: facts.dryRun ? plans.filter((plan) => plan.operations.length > 0) : [],
    fieldsChanged: union((plan) => plan.fieldsChanged),
    tagsAdded: union((plan) => plan.tagsAdded),
    tagsRemoved: union((plan) => plan.tagsRemoved),
    matchedBy: source,
  };
}

/** The fields a plan writes, merged in call order. */
function writtenFields(plan: ContactPlan): Record<string, string> {
  return Object.fromEntries(plan.operations.flatMap((op) => (op.kind === 'createContact' || op.kind === 'updateContact' ? Object.entries(op.fields) : [])));
}

/**
 * Adds the row's message when the job sends one on this outcome, or when an earlier run owed it
 * (killed between the row's writes and its send: the outcome is then `unchanged`, the message is
 * still due; docs/reliability.md, "Messages journalled when they leave").
 */
function withMessage(facts: RowFacts, plan: RowPlan): RowPlan {
  const when = facts.message?.when;
  if (when === undefined) return plan;
  const owed = facts.messageDue === true && plan.outcome !== 'failed' && plan.outcome !== 'skipped';
  if (!owed && !messageWanted(when, plan.outcome)) return plan;
  return { ...plan, message: plan.contacts.length > 0 ? plan.contacts : ['created'] };
}

/** The contact a plan should act on after the match, by `mode` and `onDuplicate`. */
export type MatchDecision =
  | { kind: 'create' }
  | { kind: 'update'; contacts: KnownContact[] }
  | { kind: 'skip'; reason: string }
  | { kind: 'ambiguous'; ids: string[] };

/** Why a row whose key several contacts hold failed under `onDuplicate: fail`, and the fix. */
export function duplicateContactsReason(keyField: string, key: string, ids: readonly string[]): string {
  return `${ids.length} contacts have ${keyField}=${key} (${ids.join(', ')}); set onDuplicate to oldest, newest or all to pick, or merge them on the platform`;
}


/**
 * Decides what to do with a row from the contacts its key matched, in the one order of
 * contact-order.ts (oldest first, ties broken by id), so the choice is the same on every run.
 */
export function decideMatch(
  matches: readonly KnownContact[],
  mode: 'upsert' | 'create' | 'update',
  onDuplicate: 'fail' | 'oldest' | 'newest' | 'all',
): MatchDecision {
  if (matches.length === 0) {
    return mode === 'update' ? { kind: 'skip', reason: 'no contact has this key (mode: update)' } : { kind: 'create' };
  }
  const byAge = oldestFirst(matches);
  if (mode === 'create') {
    return { kind: 'skip', reason: `a contact with this key exists (${byAge.map((c) => c.id).join(', ')}; mode: create)` };
  }
  if (matches.length === 1) return { kind: 'update', contacts: [...matches] };
  switch (onDuplicate) {
    case 'fail':
      return { kind: 'ambiguous', ids: byAge.map((c) => c.id) };
    case 'oldest':
      return { kind: 'update', contacts: byAge.slice(0, 1) };
    case 'newest':
      return { kind: 'update', contacts: byAge.slice(-1) };
    case 'all':
      return { kind: 'update', contacts: byAge };
  }
}
