/**
 * The reconcile decision (issue 21): a pure function from what is known about a row (the same
 * facts as the row decision, `decide.ts`) and the contacts the platform holds for its key to how
 * the two disagree. It is built on the row decision's own plan (`planUpdate` with the tags the job
 * would drop), so a key that `run` would settle `unchanged` against the platform is a key that
 * agrees here, and the other way round (test/pipeline/row/compare.test.ts proves it on a table).
 * See docs/reconcile.md.
 */
import type { RowFacts } from './decide.js';
import { droppedTags } from './decide.js';
import { oldestFirst } from './contact-order.js';
import { planUpdate } from './plan.js';
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
  /** No contact holds the key. */
  | { readonly status: 'missing' }
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

/** Compares the row with the contacts the platform holds for its key (read from the platform, never the state store). */
export function compareKey(facts: Pick<RowFacts, 'draft' | 'prune' | 'state' | 'departed' | 'limits'>, contacts: readonly KnownContact[]): KeyComparison {
  const [only, ...more] = contacts;
  if (only === undefined) return { status: 'missing' };
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
