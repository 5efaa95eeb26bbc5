/**
 * The undo decision: a pure function from what one run did to one contact (its change journal
 * lines, folded: `RunChange`) and the contact as the platform holds it now, to the calls that put
 * it back and one report line per field and tag (docs/undo.md). No I/O: the undo command reads
 * the journal and the contact, asks this, and the row writer (`row/write.ts`) runs the calls.
 *
 * The rules:
 * - A field is put back to its value before the run when the platform still holds the run's value.
 *   Holding the value before: already back (`unchanged`). Holding anything else: changed since the
 *   run, a `conflict` left as it is, unless `force`. A field the contact did not have is put back
 *   as "" (the API clears a field by writing "").
 * - A tag the run added is removed when the contact has it; a tag it removed is added back when the
 *   contact lacks it; otherwise it is already as before (`unchanged`).
 * - A value before that the run did not read (it wrote by what the state store knew) is not known
 *   to have been on the platform just before the run: where undo would put it back, the line is
 *   `unverified` and nothing is written, unless `force`. Undo's own read tells what the contact
 *   holds now, not what it held before the run, so it cannot vouch for it. The tag
 *   `contact-sync-undone` is contact-sync's own: taking it away is never unverified.
 * - A contact the run created cannot be deleted through the API: it is tagged `contact-sync-undone`
 *   (`tagged-for-deletion`), once, and nothing else of it is touched; it needs no read
 *   (`planTagForDeletion`): the tag call alone does it, and "no such contact" means deleted since.
 * - A contact that no longer exists cannot be put back: a `conflict` (one the run created and that
 *   was deleted since is where undo wants it: `unchanged`).
 * - With `--delete-created` (a surface that `deletes`), a contact the run created is read and
 *   deleted instead (`planDeleteCreated`) unless changed since the run (a `conflict`, kept); the
 *   deletion is journalled with the contact's values, and undoing it creates it again (`planRecreate`).
 * Planned again after a kill, or for a run already undone, every line is `unchanged` and no call
 * is made: undo is resumable and undoing twice writes nothing.
 */
import type { ChangeLine, DeletedValues } from '../../state/change-journal.js';
import { trustedOn, type IdSurface, type KnownContact } from '../../state/known-contact.js';
import { fieldChunks, tagOperations, type CallLimits, type ContactPlan, type Operation } from '../row/plan.js';
import { UNDONE_TAG } from '../row/undone-tag.js';

export { UNDONE_TAG };

/**
 * Why run `undone` cannot be undone through an api on `surface`, or undefined when it can: the ids
 * its change journal names came from the surface it spoke, and an id is never written to on
 * another surface (docs/reliability.md, "Moving a connection from v1 to v2"). Undo does not match
 * the keys again instead: the journal's values are those of the contacts it wrote, and a contact
 * found by key now is not known to be the one the run changed.
 */
export function undoSurfaceRefusal(undone: { readonly id: number; readonly surface: IdSurface }, surface: IdSurface): string | undefined {
  if (trustedOn(undone, surface)) return undefined;
  return (
    `run ${undone.id} wrote through API ${undone.surface}, and this job's connection now speaks API ${surface}: the contact ids in its journal are ` +
    `${undone.surface}'s and are never written to through ${surface}; undo it with the connection's \`api: ${undone.surface}\` (as when the run was made)`
  );
}

/** What one run did to one contact: the first "before" and the last "after" of each field over its journal lines. */
export interface RunChange {
  readonly key: string;
  readonly contactId: string;
  /** The run created the contact. */
  readonly created: boolean;
  /**
   * Field -> its value before the run (null: the contact had none), the value the run left, and
   * whether the run read that value before on the platform (false: the state store's, unread).
   */
  readonly fields: Readonly<Record<string, { readonly before: string | null; readonly after: string; readonly read: boolean }>>;
  /** Tags the run added (the contact lacked them). */
  readonly tagsAdded: readonly string[];
  /** Tags the run removed (the contact had them). */
  readonly tagsRemoved: readonly string[];
  /** Those of `tagsAdded` and `tagsRemoved` that the run changed without reading the contact's tags. */
  readonly unreadTags: readonly string[];
  /**
   * The run deleted the contact (an undo with `--delete-created`), which held these values: undoing
   * it creates the contact again (`planRecreate`). Absent when the run deleted nothing.
   */
  readonly deleted?: DeletedValues;
}

export type UndoAction = 'field' | 'remove-tag' | 'add-tag' | 'tag-for-deletion' | 'contact' | 'delete' | 'recreate';
export type UndoOutcome = 'restored' | 'conflict' | 'unverified' | 'tagged-for-deletion' | 'unchanged' | 'deleted';

/** One line of `<job>.undo.csv` (before the call's outcome: a failed call turns `restored` into `failed`). */
export interface UndoLine {
  readonly action: UndoAction;
  /** The field, or the tag. Empty for `tag-for-deletion` and `contact`. */
  readonly field: string;
  /** What the platform holds now ("" for a field it lacks; for a tag, whether it has it). */
  readonly from: string;
  /** What undo puts back, or would put back for a conflict. */
  readonly to: string;
  readonly outcome: UndoOutcome;
  /** Why, for a conflict or an unchanged line that needs a word. */
  readonly message?: string;
}

export interface UndoPlan {
  /**
   * The calls for the writer (`executePlan`), in order: the fields (30 a call), then the tags (the
   * surface's `tagsPerCall` a call); `unchanged` with no operation when nothing is to be written.
   */
  readonly plan: ContactPlan;
  readonly lines: readonly UndoLine[];
}

/**
 * The most calls undoing one contact makes, for `--max-duration`'s reckoning: a created contact's
 * one tag call, or an undo's tag for deletion taken off (`untagsOnly`); else a read, then every field it changed put back and every tag it changed
 * turned back, the tags in calls of the surface's `tagsPerCall`.
 */
export function undoCallsAtMost(change: RunChange, limits: CallLimits, deleteCreated = false): number {
  // A deletion undone: the read of its email's or phone's holder where a create lands on one (v2), then the create's calls.
  if (change.deleted !== undefined) return (limits.createLandsOn?.(change.deleted.fields) === undefined ? 0 : 1) + recreateOperations(change.deleted, limits).length;
  // --delete-created: a read, then the delete.
  if (change.created && deleteCreated) return 2;
  if (change.created || untagsOnly(change)) return 1;
  const fields = Object.fromEntries(Object.keys(change.fields).map((name) => [name, '']));
  return 1 + fieldChunks(fields).length + tagOperations({ id: change.contactId }, [...change.tagsRemoved], [...change.tagsAdded], limits).length;
}

export function planUndo(change: RunChange, current: KnownContact | undefined, options: { readonly force: boolean; readonly limits: CallLimits }): UndoPlan {
  const target = { id: change.contactId };
  const nothing = unchangedPlan(change);
  if (current === undefined) {
    // A contact the run created and someone since deleted is where undo wants it.
    if (change.created) return { plan: nothing, lines: [DELETED_SINCE_LINE] };
    return { plan: nothing, lines: [GONE_LINE] };
  }
  const has = new Set(current.tags);
  if (change.created) return planTagForDeletion(change, { alreadyTagged: has.has(UNDONE_TAG) });
  const force = options.force;
  const lines: UndoLine[] = [];
  const fields: Record<string, string> = {};
  for (const [name, { before, after, read }] of Object.entries(change.fields)) {
    const now = current.custom_fields[name] ?? '';
    const back = before ?? '';
    if (now === back) lines.push({ action: 'field', field: name, from: now, to: back, outcome: 'unchanged' });
    else if (now === after && !read && !force) {
      lines.push({ action: 'field', field: name, from: now, to: back, outcome: 'unverified', message: `${UNREAD}; left as it is; --force puts it back` });
    } else if (now === after || force) {
      fields[name] = back;
      const why = now === after ? (read ? undefined : `${UNREAD}; put back with --force`) : 'changed on the platform since the run; put back with --force';
      lines.push({ action: 'field', field: name, from: now, to: back, outcome: 'restored', ...(why === undefined ? {} : { message: why }) });
    } else {
      lines.push({ action: 'field', field: name, from: now, to: back, outcome: 'conflict', message: `changed on the platform since the run (the run wrote ${JSON.stringify(after)}); left as it is; --force puts it back` });
    }
  }
  // A tag the run changed unread is put back only with --force; contact-sync's own tag always.
  const unread = new Set(change.unreadTags.filter((tag) => tag !== UNDONE_TAG));
  const remove: string[] = [];
  const add: string[] = [];
  for (const tag of change.tagsAdded) {
    if (!has.has(tag)) lines.push({ action: 'remove-tag', field: tag, from: '', to: '', outcome: 'unchanged' });
    else if (unread.has(tag) && !force) lines.push({ action: 'remove-tag', field: tag, from: tag, to: '', outcome: 'unverified', message: `${UNREAD_TAG} (the contact may have had it before); left; --force removes it` });
    else {
      remove.push(tag);
      lines.push({ action: 'remove-tag', field: tag, from: tag, to: '', outcome: 'restored', ...(unread.has(tag) ? { message: `${UNREAD_TAG}; removed with --force` } : {}) });
    }
  }
  for (const tag of change.tagsRemoved) {
    if (has.has(tag)) lines.push({ action: 'add-tag', field: tag, from: tag, to: tag, outcome: 'unchanged' });
    else if (unread.has(tag) && !force) lines.push({ action: 'add-tag', field: tag, from: '', to: tag, outcome: 'unverified', message: `${UNREAD_TAG} (the contact may not have had it before); left; --force adds it back` });
    else {
      add.push(tag);
      lines.push({ action: 'add-tag', field: tag, from: '', to: tag, outcome: 'restored', ...(unread.has(tag) ? { message: `${UNREAD_TAG}; added back with --force` } : {}) });
    }
  }
  const operations: Operation[] = [...fieldChunks(fields).map((chunkFields): Operation => ({ kind: 'updateContact', target, fields: chunkFields })), ...tagOperations(target, add, remove, options.limits)];
  return {
    plan:
      operations.length === 0
        ? nothing
        : // Undo read the contact just now: its own before is read (an undo of the undo can vouch for it).
          { action: 'update', contactId: change.contactId, operations, fieldsChanged: Object.keys(fields), tagsAdded: add, tagsRemoved: remove, before: Object.fromEntries(Object.keys(fields).map((name) => [name, current.custom_fields[name] ?? null])), beforeRead: true },
    lines,
  };
}

const UNREAD = 'the run wrote this field by what the state store knew, without reading the platform: the value before the run is not known to have been there (unverified)';
const UNREAD_TAG = 'the run changed this tag by what the state store knew, without reading the contact\'s tags (unverified)';

/**
 * A contact the run created: one add-tags call of `contact-sync-undone`, with no read first (the
 * tag call alone does it; "no such contact" is `deletedSinceLine`). `alreadyTagged`: a read or
 * the state store (what an earlier undo recorded) says the contact carries the tag: no call.
 */
export function planTagForDeletion(change: RunChange, known: { readonly alreadyTagged: boolean }): UndoPlan {
  const nothing = unchangedPlan(change);
  if (known.alreadyTagged) {
    return { plan: nothing, lines: [{ action: 'tag-for-deletion', field: '', from: UNDONE_TAG, to: UNDONE_TAG, outcome: 'unchanged', message: 'already tagged for deletion' }] };
  }
  return {
    // The tag is contact-sync's own: whether the contact had it does not matter to an undo of this undo.
    plan: { ...nothing, action: 'update', operations: [{ kind: 'addTags', target: { id: change.contactId }, tags: [UNDONE_TAG] }], tagsAdded: [UNDONE_TAG], beforeRead: true },
    lines: [{ action: 'tag-for-deletion', field: '', from: '', to: UNDONE_TAG, outcome: 'tagged-for-deletion', message: 'the run created this contact and the API cannot delete it: delete it in the platform\'s interface' }],
  };
}

/**
 * Whether the run only tagged this contact `contact-sync-undone` (an undo tagging a contact its run
 * created): undoing that takes the tag off with one remove-tags call and no read (`planUntagUndone`).
 * The tag is contact-sync's own, so what the contact held before does not matter, and a contact
 * that no longer carries it is left so by the call.
 */
export function untagsOnly(change: RunChange): boolean {
  const [tag, ...more] = change.tagsAdded;
  return !change.created && Object.keys(change.fields).length === 0 && change.tagsRemoved.length === 0 && tag === UNDONE_TAG && more.length === 0;
}

/**
 * Undoing an undo's tag for deletion (`untagsOnly`): one remove-tags call of `contact-sync-undone`,
 * with no read first; "no such contact" is `GONE_LINE`. `alreadyUntagged`: the state store knows
 * the contact no longer carries the tag (a run took it back, or an earlier undo of the undo): no call.
 */
export function planUntagUndone(change: RunChange, known: { readonly alreadyUntagged: boolean }): UndoPlan {
  const nothing = unchangedPlan(change);
  if (known.alreadyUntagged) return { plan: nothing, lines: [{ action: 'remove-tag', field: UNDONE_TAG, from: '', to: '', outcome: 'unchanged' }] };
  return {
    // contact-sync's own tag: whether the contact had it does not matter to an undo of this one.
    plan: { ...nothing, action: 'update', operations: [{ kind: 'removeTags', target: { id: change.contactId }, tags: [UNDONE_TAG] }], tagsRemoved: [UNDONE_TAG], beforeRead: true },
    lines: [{ action: 'remove-tag', field: UNDONE_TAG, from: UNDONE_TAG, to: '', outcome: 'restored', message: 'the tag for deletion an undo added, taken off with no read (it is contact-sync\'s own)' }],
  };
}

/**
 * `undo --delete-created`: a contact the run created, read just now (`current`; undefined: no such
 * contact), is deleted when it still holds what the run wrote: each field the run wrote holds the
 * run's value, and its tags are the ones the run added (contact-sync's own `contact-sync-undone`
 * aside). Anything else is a change made since the run: a `conflict`, the contact kept (`force`
 * deletes it anyway). The delete carries the contact's values as read, for the journal: an undo
 * of this undo creates it again from them. A contact gone already is where undo wants it.
 */
export function planDeleteCreated(change: RunChange, current: KnownContact | undefined, options: { readonly force: boolean }): UndoPlan {
  const nothing = unchangedPlan(change);
  if (current === undefined) return { plan: nothing, lines: [DELETED_ALREADY_LINE] };
  const changes = changesSince(change, current);
  const fields = Object.fromEntries(Object.entries(current.custom_fields).filter(([, value]) => value !== ''));
  const tags = current.tags.filter((tag) => tag !== UNDONE_TAG);
  if (changes.length > 0 && !options.force) {
    return { plan: nothing, lines: [{ action: 'delete', field: '', from: '', to: '', outcome: 'conflict', message: `changed on the platform since the run (${changes.join('; ')}): kept; --force deletes it anyway` }] };
  }
  const why = changes.length > 0 ? `changed since the run (${changes.join('; ')}), deleted with --force` : 'the run created this contact and it holds what the run wrote';
  return {
    plan: { ...nothing, action: 'update', operations: [{ kind: 'deleteContact', target: { id: change.contactId }, fields, tags }], beforeRead: true },
    lines: [{ action: 'delete', field: '', from: '', to: '', outcome: 'deleted', message: `${why}; deleted (an undo of this undo creates it again, with a new id)` }],
  };
}

/** What differs between what the run left on a contact it created and what the contact holds now. */
function changesSince(change: RunChange, current: KnownContact): string[] {
  const differs: string[] = [];
  for (const [name, { after }] of Object.entries(change.fields)) {
    const now = current.custom_fields[name] ?? '';
    if (now !== after) differs.push(`${name} is ${JSON.stringify(now)}, the run wrote ${JSON.stringify(after)}`);
  }
  const wrote = new Set(change.tagsAdded);
  const held = new Set(current.tags.filter((tag) => tag !== UNDONE_TAG));
  const added = [...held].filter((tag) => !wrote.has(tag));
  const removed = [...wrote].filter((tag) => !held.has(tag));
  if (added.length > 0) differs.push(`tags added since: ${added.join(', ')}`);
  if (removed.length > 0) differs.push(`tags removed since: ${removed.join(', ')}`);
  return differs;
}

/**
 * Undoing a deletion (`change.deleted`): the contact is created again from the values it held when
 * it was deleted (a new id: the platform gives it), its tags added after the create.
 * `heldBy`: the surface's create would land on the contact holding its email or phone now
 * (`createLandsOn`), which the read found: a conflict, nothing created.
 * `recreatedAs`: the state store knows the key's contact by another id now (an earlier undo of
 * this undo, or a run, created it again): no call.
 */
export function planRecreate(change: RunChange, known: { readonly recreatedAs: string | undefined; readonly heldBy?: { readonly field: string; readonly contactId: string } | undefined }, limits: CallLimits): UndoPlan {
  const nothing = unchangedPlan(change);
  const values = change.deleted ?? { fields: {}, tags: [] };
  if (known.recreatedAs !== undefined) {
    return { plan: nothing, lines: [{ action: 'recreate', field: '', from: '', to: known.recreatedAs, outcome: 'unchanged', message: `created again already (contact ${known.recreatedAs})` }] };
  }
  // A create by this email or phone (v2's create_or_update) would write over the contact holding it now.
  if (known.heldBy !== undefined) {
    const { field, contactId } = known.heldBy;
    return { plan: nothing, lines: [{ action: 'recreate', field, from: contactId, to: '', outcome: 'conflict', message: `its ${field} is held by contact ${contactId} now: a create would write over that contact, so it was not created again` }] };
  }
  const operations = recreateOperations(values, limits);
  return {
    plan: { action: 'create', contactId: undefined, operations, fieldsChanged: Object.keys(values.fields), tagsAdded: [...values.tags], tagsRemoved: [], before: {}, beforeRead: true },
    lines: [{ action: 'recreate', field: '', from: '', to: '', outcome: 'restored', message: 'the undone undo deleted this contact: created again from its values then (a new id)' }],
  };
}

function recreateOperations(values: DeletedValues, limits: CallLimits): Operation[] {
  const [first = {}, ...rest] = fieldChunks({ ...values.fields });
  return [{ kind: 'createContact', fields: first }, ...rest.map((fields): Operation => ({ kind: 'updateContact', target: 'created', fields })), ...tagOperations('created', [...values.tags], [], limits)];
}

/** The line of a created contact `--delete-created` finds gone already: where undo wants it. */
export const DELETED_ALREADY_LINE: UndoLine = { action: 'delete', field: '', from: '', to: '', outcome: 'unchanged', message: 'the run created this contact and it has been deleted since' };

/** The line of a contact the run changed (not created) and that no longer exists: nothing of it can be put back. */
export const GONE_LINE: UndoLine = { action: 'contact', field: '', from: '', to: '', outcome: 'conflict', message: 'the contact no longer exists on the platform: nothing of it can be put back' };

/** The line of a created contact deleted since the run: where undo wants it. */
export const DELETED_SINCE_LINE: UndoLine = { action: 'tag-for-deletion', field: '', from: '', to: '', outcome: 'unchanged', message: 'the run created this contact and it has been deleted since' };

function unchangedPlan(change: RunChange): ContactPlan {
  return { action: 'unchanged', contactId: change.contactId, operations: [], fieldsChanged: [], tagsAdded: [], tagsRemoved: [], before: {}, beforeRead: true };
}

/**
 * What one run did to each contact, from its journal lines in order: each field's first "before"
 * (and whether that line read it) and last "after" (a field the run put back to where it was is left out), the tags it added and
 * did not remove again and the other way round, and whether it created the contact. In the order
 * the run first wrote each contact.
 */
export function foldRunChanges(lines: readonly ChangeLine[]): RunChange[] {
  // Tag -> whether the line that changed it had read the contact's tags.
  const byContact = new Map<string, { key: string; created: boolean; deleted?: DeletedValues; fields: Map<string, { before: string | null; after: string; read: boolean }>; added: Map<string, boolean>; removed: Map<string, boolean> }>();
  for (const line of lines) {
    let contact = byContact.get(line.contactId);
    if (contact === undefined) {
      contact = { key: line.key, created: false, fields: new Map(), added: new Map(), removed: new Map() };
      byContact.set(line.contactId, contact);
    }
    switch (line.operation) {
      case 'delete':
        contact.deleted = line.values;
        break;
      // A merge's survivor: its fields are put back as an update's; the contact merged away stays merged.
      case 'merge':
      case 'create':
      case 'update':
        if (line.operation === 'create') contact.created = true;
        for (const [name, [before, after]] of Object.entries(line.fields)) {
          const earlier = contact.fields.get(name);
          contact.fields.set(name, earlier === undefined ? { before, after, read: line.beforeRead } : { ...earlier, after });
        }
        break;
      case 'add-tags':
        for (const tag of line.tags) {
          if (!contact.removed.delete(tag)) contact.added.set(tag, line.beforeRead);
        }
        break;
      case 'remove-tags':
        for (const tag of line.tags) {
          if (!contact.added.delete(tag)) contact.removed.set(tag, line.beforeRead);
        }
        break;
    }
  }
  return [...byContact].map(([contactId, contact]) => ({
    key: contact.key,
    contactId,
    created: contact.created,
    fields: Object.fromEntries([...contact.fields].filter(([, change]) => (change.before ?? '') !== change.after)),
    tagsAdded: [...contact.added.keys()],
    tagsRemoved: [...contact.removed.keys()],
    unreadTags: [...contact.added, ...contact.removed].filter(([, read]) => !read).map(([tag]) => tag),
    ...(contact.deleted === undefined ? {} : { deleted: contact.deleted }),
  }));
}
