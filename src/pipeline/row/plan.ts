/**
 * Building the calls: a pure function from what a row wants (ContactDraft) and the contact the
 * decision chose (`decide.ts`: which contact, if any) to the fewest write calls that make them
 * agree, chunked by the API's limits and the surface's (`CallLimits`). No I/O and no policy here:
 * the decision picks the contact, this file only says which calls bring it to the row.
 */
import { MAX_FIELDS_PER_CALL } from '../../limits.js';
import type { WriteRule } from '../../config/job-types.js';
import type { ContactDraft } from '../map/contact-draft.js';
import type { KnownContact } from '../../state/known-contact.js';

/** One write call. Calls on a contact created by the same plan target `'created'`. */
export type Operation =
  | { kind: 'createContact'; fields: Record<string, string> }
  | { kind: 'updateContact'; target: ContactTarget; fields: Record<string, string> }
  | { kind: 'addTags'; target: ContactTarget; tags: string[] }
  | { kind: 'removeTags'; target: ContactTarget; tags: string[] }
  /** Deletes the contact (a surface whose `deletes`); `fields` and `tags`: what it held, read just before (journalled). */
  | { kind: 'deleteContact'; target: { id: string }; fields: Record<string, string>; tags: string[] }
  /**
   * Merges `other` into `target` holding `fields` (a surface whose `merges`). The platform names the
   * survivor (read back, never assumed): the plan's later calls (`'created'`: the last survivor)
   * and its journal line go to it.
   */
  | { kind: 'mergeContacts'; target: ContactTarget; other: string; fields: Record<string, string> };

/** A known contact id, or the id the create of the same plan returns. */
export type ContactTarget = { id: string } | 'created';

/**
 * The port's operation a call of this kind is counted as (summary.json `byOperation`): a delete
 * and a merge write the contact, as an update does (their endpoints are counted apart in `byEndpoint`).
 */
export function countedAs(kind: Operation['kind']): 'createContact' | 'updateContact' | 'addTags' | 'removeTags' {
  return kind === 'deleteContact' || kind === 'mergeContacts' ? 'updateContact' : kind;
}

export interface ContactPlan {
  action: 'create' | 'update' | 'unchanged';
  /** The contact acted on; undefined for a create until the platform answers. */
  contactId: string | undefined;
  operations: Operation[];
  /** Names of the custom fields the plan writes (the key included on create). */
  fieldsChanged: string[];
  tagsAdded: string[];
  tagsRemoved: string[];
  /**
   * Each field the plan updates, with the value the contact held before it (null: none), as the
   * plan knew it (a platform read, or the state store): what the change journal records as
   * "before". Empty for a create, whose fields had no value before.
   */
  before: Record<string, string | null>;
  /**
   * `before` (and which tags the contact had) was read from the platform in this run (a search,
   * the prefetch pages, undo's read), not taken from the state store unread: the change journal
   * says so on each line, and undo vouches only for what was read (docs/undo.md, "Unverified").
   */
  beforeRead: boolean;
  /**
   * Of `tagsAdded`, the tags the contact holds in another case only (`gold` for its `Gold`): the
   * re-tagging `tags.case: lower` brings to contacts written before it (the dry run's estimate
   * names them). Absent when none.
   */
  tagsRecased?: string[];
}

/**
 * What one write call of the platform's surface takes, as the planner reads it: a
 * `PlatformSurface` (`api/platform-surface.ts`) is one, so the plans are chunked by the surface's
 * numbers without asking which surface it is.
 */
export interface CallLimits {
  /** Tags one tag call adds or removes. */
  readonly tagsPerCall: number;
  /**
   * The identifier field (`email`, `phone`) whose holder a create of `fields` updates instead of
   * creating a contact (v2's create_or_update), or undefined when a create always makes a new
   * contact (v1). Absent: a create never lands on an existing contact.
   */
  createLandsOn?(fields: Readonly<Record<string, string>>): string | undefined;
}

/** Splits a list into chunks of at most `size`, keeping order. */
export function chunk<T>(items: readonly T[], size: number): T[][] {
  const chunks: T[][] = [];
  for (let i = 0; i < items.length; i += size) chunks.push(items.slice(i, i + size));
  return chunks;
}

/** Custom fields in chunks of 30, the most one create or update takes. */
export function fieldChunks(fields: Record<string, string>): Record<string, string>[] {
  return chunk(Object.entries(fields), MAX_FIELDS_PER_CALL).map((entries) => Object.fromEntries(entries));
}

/** The add-tags calls, then the remove-tags calls, `limits.tagsPerCall` tags a call. */
export function tagOperations(target: ContactTarget, add: string[], remove: string[], limits: CallLimits): Operation[] {
  return [
    ...chunk(add, limits.tagsPerCall).map((tags): Operation => ({ kind: 'addTags', target, tags })),
    ...chunk(remove, limits.tagsPerCall).map((tags): Operation => ({ kind: 'removeTags', target, tags })),
  ];
}

/**
 * Plans a new contact: one create with the key first and up to 30 fields, the rest of the fields
 * in updates of 30, then the tags in calls of `limits.tagsPerCall`. Empty values are not sent to a
 * new contact: there is nothing to clear.
 */
export function planCreate(draft: ContactDraft, limits: CallLimits): ContactPlan {
  const fields: Record<string, string> = { [draft.keyField]: draft.key };
  for (const [name, value] of Object.entries(draft.fields)) {
    if (value !== '' && name !== draft.keyField) fields[name] = value;
  }
  const [first = {}, ...rest] = fieldChunks(fields);
  return {
    action: 'create',
    contactId: undefined,
    operations: [
      { kind: 'createContact', fields: first },
      ...rest.map((chunkFields): Operation => ({ kind: 'updateContact', target: 'created', fields: chunkFields })),
      ...tagOperations('created', draft.tagsToAdd, [], limits),
    ],
    fieldsChanged: Object.keys(fields),
    tagsAdded: [...draft.tagsToAdd],
    tagsRemoved: [],
    before: {},
    // A new contact had nothing before it.
    beforeRead: true,
  };
}

/**
 * Plans the change of an existing contact: only the fields whose value differs, only the tags it
 * lacks, only the removals of tags it has (`tags.remove` and the `dropped` tags). Nothing to do is `unchanged`, with no call at all.
 * A field the contact does not hold counts as "" (the platform answers absent fields that way),
 * so `emptyValues: clear` does not rewrite a field that is already empty. `beforeRead`: `existing`
 * is a platform read of this run, not the state store's record.
 */
export function planUpdate(draft: ContactDraft, existing: KnownContact, dropped: readonly string[], beforeRead: boolean, limits: CallLimits): ContactPlan {
  const changed: Record<string, string> = {};
  for (const [name, value] of Object.entries(draft.fields)) {
    const held = existing.custom_fields[name] ?? '';
    if (held !== value && mayWrite(draft.writeRules?.[name], held)) changed[name] = value;
  }
  const present = new Set(existing.tags);
  const tagsAdded = draft.tagsToAdd.filter((tag) => !present.has(tag));
  const heldFolded = new Set(existing.tags.map((tag) => tag.toLowerCase()));
  const tagsRecased = tagsAdded.filter((tag) => heldFolded.has(tag.toLowerCase()));
  // `dropped`: the job's own tags the row no longer carries (tags.prune, a departure undone); they
  // share the remove calls of tags.remove.
  const tagsRemoved = [...new Set([...draft.tagsToRemove, ...dropped])].filter((tag) => present.has(tag));
  const target = { id: existing.id };
  const operations: Operation[] = [
    ...fieldChunks(changed).map((fields): Operation => ({ kind: 'updateContact', target, fields })),
    ...tagOperations(target, tagsAdded, tagsRemoved, limits),
  ];
  return {
    action: operations.length === 0 ? 'unchanged' : 'update',
    contactId: existing.id,
    operations,
    fieldsChanged: Object.keys(changed),
    tagsAdded,
    tagsRemoved,
    before: Object.fromEntries(Object.keys(changed).map((name) => [name, existing.custom_fields[name] ?? null])),
    beforeRead,
    ...(tagsRecased.length === 0 ? {} : { tagsRecased }),
  };
}

/** A field's write rule on an existing contact: `on-create` never, `fill-empty` only over an empty value. */
function mayWrite(rule: WriteRule | undefined, held: string): boolean {
  return rule === undefined || (rule === 'fill-empty' && held === '');
}

/**
 * The fields of the draft that `fill-empty` would write over what `contact` holds: known to be
 * empty only by a platform read, so a plan made from the state store's knowledge reads the contact
 * first when there is any (decide.ts).
 */
export function fieldsToFill(draft: ContactDraft, contact: KnownContact): string[] {
  const rules = draft.writeRules;
  if (rules === undefined) return [];
  return Object.entries(draft.fields)
    .filter(([name, value]) => rules[name] === 'fill-empty' && value !== '' && (contact.custom_fields[name] ?? '') === '')
    .map(([name]) => name);
}

/**
 * What the contact holds once the plan is applied: how a dry run carries the effect of one row to
 * the next row of the same key, and how the state store knows what was last written.
 */
export function applyPlan(contact: KnownContact | undefined, plan: ContactPlan, contactId: string): KnownContact {
  const fields: Record<string, string> = { ...(contact?.custom_fields ?? {}) };
  for (const operation of plan.operations) {
    if (operation.kind === 'createContact' || operation.kind === 'updateContact') Object.assign(fields, operation.fields);
  }
  const tags = new Set(contact?.tags ?? []);
  for (const tag of plan.tagsAdded) tags.add(tag);
  for (const tag of plan.tagsRemoved) tags.delete(tag);
  return { id: contactId, custom_fields: fields, tags: [...tags] };
}
