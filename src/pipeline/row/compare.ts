/**
 * The reconcile decision (issue 21): a pure function from what is known about a row (the same
 * facts as the row decision, `decide.ts`) and the contacts the platform holds for its key to how
 * the two disagree. It is built on the row decision's own plan (`planUpdate` with the tags the job
 * would drop), so a key that `run` would settle `unchanged` against the platform is a key that
 * agrees here, and the other way round (test/pipeline/row/compare.test.ts proves it on a table).
 * `decideReconcile` is the whole of a reconcile row's decision, as data: the comparison, the
 * contact id its reports name, and what the state store records of the read; the executor
 * (`reconcile-row.ts`) only reads the key and applies it. See docs/reconcile.md.
 */
import type { RowFacts } from './decide.js';
import { droppedTags } from './decide.js';
import { oldestFirst } from './contact-order.js';
import { planCreate, planUpdate } from './plan.js';
import type { ReportErrorCode } from '../report/error-codes.js';
import type { KnownContact } from '../../state/known-contact.js';

/** One field that differs: the file's value and the platform's, as they are. */
export interface FieldDifference {
  readonly field: string;
  readonly fileValue: string;
  readonly platformValue: string;
}

/** How a key of the file stands against the platform. */
export type KeyComparison =
  /** The one contact of the key holds what the row asks for. */
  | { readonly status: 'same'; readonly contactId: string }
  /**
   * No contact holds the key. `cannotCreate`: the surface cannot create its contact either (the
   * failure a run's row meets, before any call), so no run repairs it until the row changes.
   */
  | { readonly status: 'missing'; readonly cannotCreate?: CreateRefusal }
  /** Several contacts hold the key (oldest first). */
  | { readonly status: 'duplicate'; readonly contactIds: readonly string[] }
  /**
   * The one contact of the key differs: `fields`, each field the row would write; `tagsToAdd`,
   * tags the row wants that the contact lacks; `tagsToRemove`, tags the job would remove.
   */
  | {
      readonly status: 'differs';
      readonly contactId: string;
      readonly fields: readonly FieldDifference[];
      readonly tagsToAdd: readonly string[];
      readonly tagsToRemove: readonly string[];
    };

export type KeyStatus = KeyComparison['status'];

/** Why the surface cannot create a contact: the failure's code and sentence. */
export interface CreateRefusal {
  readonly code: ReportErrorCode;
  readonly message: string;
}

/**
 * What a reconcile row is decided from: the row, what one write of the surface takes, and what the
 * store and the job say of its key (the tags the job owns come from the store). No mode, no dry
 * run, no message: a reconcile writes nothing to the platform.
 */
export type ReconcileFacts = Pick<RowFacts, 'draft' | 'draftHash' | 'prune' | 'state' | 'departed' | 'limits'> & {
  /** Why the surface cannot create a contact of these fields (`surface.createRefusal`); none: it can. */
  readonly createRefusal?: (fields: Readonly<Record<string, string>>) => CreateRefusal | undefined;
};

/** What the state store records of a key a reconcile read. */
export interface ReconcileRecord {
  /** No contact holds the key: noted absent under this reconcile (and forgotten), so the run right after it creates the key without a search. */
  readonly absent: boolean;
  /**
   * The one contact read, known as the platform holds it: with the row's hashes when it agrees (the
   * next run settles the row with no call), with none when it differs (the next run writes exactly
   * the difference, without a search). Absent for a missing key or several contacts (left for `onDuplicate`).
   */
  readonly observed?: {
    readonly contactId: string;
    readonly fields: Readonly<Record<string, string>>;
    readonly tags: readonly string[];
    readonly draftHash: string | null;
    readonly rowHash: string | null;
  };
}

/** A reconcile row's decision, as data. */
export interface ReconcilePlan {
  readonly comparison: KeyComparison;
  /** The contact the reports name: its id, the ids of several (`;`), or "" for none. */
  readonly contactId: string;
  readonly record: ReconcileRecord;
}

/** The reconcile decision of a row, from its facts and the contacts the platform holds for its key. */
export function decideReconcile(facts: ReconcileFacts, contacts: readonly KnownContact[]): ReconcilePlan {
  const comparison = compareKey(facts, contacts);
  const contactId = comparison.status === 'duplicate' ? comparison.contactIds.join(';') : comparison.status === 'missing' ? '' : comparison.contactId;
  const [contact] = contacts;
  if (comparison.status === 'missing') return { comparison, contactId, record: { absent: true } };
  if (comparison.status === 'duplicate' || contact === undefined) return { comparison, contactId, record: { absent: false } };
  const same = comparison.status === 'same';
  const observed = {
    contactId: contact.id,
    fields: contact.custom_fields,
    tags: contact.tags,
    draftHash: same ? facts.draftHash : null,
    rowHash: same ? (facts.draft.rowHash ?? null) : null,
  };
  return { comparison, contactId, record: { absent: false, observed } };
}

/** Compares the row with the contacts the platform holds for its key (read from the platform, never the state store). */
export function compareKey(facts: Omit<ReconcileFacts, 'draftHash'>, contacts: readonly KnownContact[]): KeyComparison {
  const [only, ...more] = contacts;
  if (only === undefined) return missing(facts);
  if (more.length > 0) return { status: 'duplicate', contactIds: oldestFirst(contacts).map((contact) => contact.id) };
  const plan = planUpdate(facts.draft, only, droppedTags(facts, only), true, facts.limits);
  if (plan.action === 'unchanged') return { status: 'same', contactId: only.id };
  return {
    status: 'differs',
    contactId: only.id,
    fields: plan.fieldsChanged.map((field) => ({ field, fileValue: facts.draft.fields[field] ?? '', platformValue: only.custom_fields[field] ?? '' })),
    tagsToAdd: plan.tagsAdded,
    tagsToRemove: plan.tagsRemoved,
  };
}

/** A key no contact holds, with why the surface cannot create it when it cannot (the create a run would send: `planCreate`'s first call). */
function missing(facts: Omit<ReconcileFacts, 'draftHash'>): KeyComparison {
  const [create] = planCreate(facts.draft, facts.limits).operations;
  const refusal = create?.kind === 'createContact' ? facts.createRefusal?.(create.fields) : undefined;
  return refusal === undefined ? { status: 'missing' } : { status: 'missing', cannotCreate: { code: refusal.code, message: refusal.message } };
}
