/**
 * The decisions of reconcile's two writes (issue 46, docs/reconcile.md "Finishing the job"), pure:
 * what they would do as data, a table test each (test/pipeline/row/finish-plan.test.ts); the row
 * writer (`write.ts`) runs their plans, journalled.
 * - `planMerge` (`--merge-duplicates`, a surface that `merges`): a key held by several contacts
 *   becomes one. The survivor asked for is the contact the state store knows for the key, else the
 *   oldest (`created_at`, then the id: `contact-order.ts`; v2's ids count up in storing order).
 *   The others are merged into it one by one (a merge takes two ids), each merge holding the row's
 *   values. The platform names the survivor of each merge and the writer follows its answer (read
 *   back, never assumed), so a merge after the first targets whichever contact survived.
 * - `planMergedTags`: after the merges, the survivor read back; the tags of the merged contacts it
 *   lacks (a platform whose merge drops the other's tags) are added, in calls of `tagsPerCall`.
 * - `planTagExtra` (`--tag-extras TAG`): a contact of the marker set whose key the file lacks gets
 *   TAG, unless it has it already.
 */
import type { KnownContact } from '../../state/known-contact.js';
import { oldestFirst } from './contact-order.js';
import { fieldChunks, tagOperations, type CallLimits, type ContactPlan, type Operation } from './plan.js';

export interface MergeFacts {
  readonly key: string;
  readonly keyField: string;
  /** The row's fields, as a run would write them (the key's field among them or not). */
  readonly fields: Readonly<Record<string, string>>;
  /** The id the state store knows for the key on this surface, if any. */
  readonly knownId?: string | undefined;
  /** The contacts holding the key, as read now (two or more). */
  readonly contacts: readonly KnownContact[];
}

export interface MergePlan {
  /** The contact asked to survive, and why it was chosen. */
  readonly survivor: string;
  readonly chosenBy: 'state' | 'oldest';
  /** The others, in the order they are merged into it. */
  readonly others: readonly string[];
  /** Every tag the contacts hold: what the survivor holds once merged. */
  readonly tags: readonly string[];
  readonly plan: ContactPlan;
}

export function planMerge(facts: MergeFacts): MergePlan {
  const ordered = oldestFirst(facts.contacts);
  const known = facts.knownId === undefined ? undefined : ordered.find((contact) => contact.id === facts.knownId);
  const survivor = known ?? ordered[0];
  if (survivor === undefined || ordered.length < 2) throw new Error('planMerge: a merge takes a key held by two contacts or more');
  const others = ordered.filter((contact) => contact.id !== survivor.id);
  const values: Record<string, string> = { [facts.keyField]: facts.key };
  for (const [name, value] of Object.entries(facts.fields)) if (value !== '') values[name] = value;
  const [first = {}, ...rest] = fieldChunks(values);
  const operations: Operation[] = [
    ...others.map((other, index): Operation => ({ kind: 'mergeContacts', target: index === 0 ? { id: survivor.id } : 'created', other: other.id, fields: first })),
    ...rest.map((fields): Operation => ({ kind: 'updateContact', target: 'created', fields })),
  ];
  return {
    survivor: survivor.id,
    chosenBy: known === undefined ? 'oldest' : 'state',
    others: others.map((contact) => contact.id),
    tags: [...new Set(ordered.flatMap((contact) => contact.tags))],
    plan: {
      action: 'update',
      contactId: survivor.id,
      operations,
      fieldsChanged: Object.keys(values),
      tagsAdded: [],
      tagsRemoved: [],
      before: Object.fromEntries(Object.keys(values).map((name) => [name, survivor.custom_fields[name] ?? null])),
      beforeRead: true,
    },
  };
}

/** The tags of the merged contacts the survivor, read back, lacks: added (none: no call). */
export function planMergedTags(tags: readonly string[], survivor: KnownContact, limits: CallLimits): ContactPlan {
  const held = new Set(survivor.tags);
  const add = tags.filter((tag) => !held.has(tag));
  return tagPlan(survivor.id, add, limits);
}

/** A contact of the marker set the file lacks: TAG added unless it has it (no call then). */
export function planTagExtra(contact: KnownContact, tag: string, limits: CallLimits): ContactPlan {
  return tagPlan(contact.id, contact.tags.includes(tag) ? [] : [tag], limits);
}

function tagPlan(id: string, add: string[], limits: CallLimits): ContactPlan {
  const operations = tagOperations({ id }, add, [], limits);
  // The tags were read just now (the survivor's read back, the marker pages): the journal vouches for them.
  return { action: operations.length === 0 ? 'unchanged' : 'update', contactId: id, operations, fieldsChanged: [], tagsAdded: add, tagsRemoved: [], before: {}, beforeRead: true };
}
