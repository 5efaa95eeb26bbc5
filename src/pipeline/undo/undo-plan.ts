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
 * - A contact the run created cannot be deleted through the API: it is tagged `contact-sync-undone`
 *   (`tagged-for-deletion`), once, and nothing else of it is touched.
 * - A contact that no longer exists cannot be put back: a `conflict` (one the run created and that
 *   was deleted since is where undo wants it: `unchanged`).
 * Planned again after a kill, or for a run already undone, every line is `unchanged` and no call
 * is made: undo is resumable and undoing twice writes nothing.
 */
import type { ChangeLine } from '../../state/change-journal.js';
import { fieldChunks, tagOperations, type ContactPlan, type Operation } from '../row/plan.js';

/** The tag put on a contact an undone run created, so it can be found and deleted in the platform's interface. */
export const UNDONE_TAG = 'contact-sync-undone';

/** What one run did to one contact: the first "before" and the last "after" of each field over its journal lines. */
export interface RunChange {
  readonly key: string;
  readonly contactId: string;
  /** The run created the contact. */
  readonly created: boolean;
  /** Field -> its value before the run (null: the contact had none) and the value the run left. */
  readonly fields: Readonly<Record<string, { readonly before: string | null; readonly after: string }>>;
  /** Tags the run added (the contact lacked them). */
  readonly tagsAdded: readonly string[];
  /** Tags the run removed (the contact had them). */
  readonly tagsRemoved: readonly string[];
}

/** The contact as read from the platform now. */
export interface CurrentContact {
  readonly custom_fields: Readonly<Record<string, string>>;
  readonly tags: readonly string[];
}

export type UndoAction = 'field' | 'remove-tag' | 'add-tag' | 'tag-for-deletion' | 'contact';
export type UndoOutcome = 'restored' | 'conflict' | 'tagged-for-deletion' | 'unchanged';

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
   * The calls for the writer (`executePlan`), in order: the fields (30 a call), then the tags (10 a
   * call); `unchanged` with no operation when nothing is to be written.
   */
  readonly plan: ContactPlan;
  readonly lines: readonly UndoLine[];
}

export function planUndo(change: RunChange, current: CurrentContact | undefined, options: { readonly force: boolean }): UndoPlan {
  const target = { id: change.contactId };
  const nothing: ContactPlan = { action: 'unchanged', contactId: change.contactId, operations: [], fieldsChanged: [], tagsAdded: [], tagsRemoved: [], before: {} };
  if (current === undefined) {
    // A contact the run created and someone since deleted is where undo wants it.
    if (change.created) return { plan: nothing, lines: [{ action: 'tag-for-deletion', field: '', from: '', to: '', outcome: 'unchanged', message: 'the run created this contact and it has been deleted since' }] };
    return { plan: nothing, lines: [{ action: 'contact', field: '', from: '', to: '', outcome: 'conflict', message: 'the contact no longer exists on the platform: nothing of it can be put back' }] };
  }
  const has = new Set(current.tags);
  if (change.created) {
    if (has.has(UNDONE_TAG)) {
      return { plan: nothing, lines: [{ action: 'tag-for-deletion', field: '', from: UNDONE_TAG, to: UNDONE_TAG, outcome: 'unchanged', message: 'already tagged for deletion' }] };
    }
    return {
      plan: { ...nothing, action: 'update', operations: [{ kind: 'addTags', target, tags: [UNDONE_TAG] }], tagsAdded: [UNDONE_TAG] },
      lines: [{ action: 'tag-for-deletion', field: '', from: '', to: UNDONE_TAG, outcome: 'tagged-for-deletion', message: 'the run created this contact and the API cannot delete it: delete it in the platform\'s interface' }],
    };
  }
  const lines: UndoLine[] = [];
  const fields: Record<string, string> = {};
  for (const [name, { before, after }] of Object.entries(change.fields)) {
    const now = current.custom_fields[name] ?? '';
    const back = before ?? '';
    if (now === back) lines.push({ action: 'field', field: name, from: now, to: back, outcome: 'unchanged' });
    else if (now === after || options.force) {
      fields[name] = back;
      lines.push({ action: 'field', field: name, from: now, to: back, outcome: 'restored', ...(now === after ? {} : { message: 'changed on the platform since the run; put back with --force' }) });
    } else {
      lines.push({ action: 'field', field: name, from: now, to: back, outcome: 'conflict', message: `changed on the platform since the run (the run wrote ${JSON.stringify(after)}); left as it is; --force puts it back` });
    }
  }
  const remove = change.tagsAdded.filter((tag) => has.has(tag));
  const add = change.tagsRemoved.filter((tag) => !has.has(tag));
  for (const tag of change.tagsAdded) lines.push({ action: 'remove-tag', field: tag, from: has.has(tag) ? tag : '', to: '', outcome: has.has(tag) ? 'restored' : 'unchanged' });
  for (const tag of change.tagsRemoved) lines.push({ action: 'add-tag', field: tag, from: has.has(tag) ? tag : '', to: tag, outcome: has.has(tag) ? 'unchanged' : 'restored' });
  const operations: Operation[] = [...fieldChunks(fields).map((chunkFields): Operation => ({ kind: 'updateContact', target, fields: chunkFields })), ...tagOperations(target, add, remove)];
  return {
    plan:
      operations.length === 0
        ? nothing
        : { action: 'update', contactId: change.contactId, operations, fieldsChanged: Object.keys(fields), tagsAdded: add, tagsRemoved: remove, before: Object.fromEntries(Object.keys(fields).map((name) => [name, current.custom_fields[name] ?? null])) },
    lines,
  };
}

/**
 * What one run did to each contact, from its journal lines in order: each field's first "before"
 * and last "after" (a field the run put back to where it was is left out), the tags it added and
 * did not remove again and the other way round, and whether it created the contact. In the order
 * the run first wrote each contact.
 */
export function foldRunChanges(lines: readonly ChangeLine[]): RunChange[] {
  const byContact = new Map<string, { key: string; created: boolean; fields: Map<string, { before: string | null; after: string }>; added: Set<string>; removed: Set<string> }>();
  for (const line of lines) {
    let contact = byContact.get(line.contactId);
    if (contact === undefined) {
      contact = { key: line.key, created: false, fields: new Map(), added: new Set(), removed: new Set() };
      byContact.set(line.contactId, contact);
    }
    switch (line.operation) {
      case 'create':
      case 'update':
        if (line.operation === 'create') contact.created = true;
        for (const [name, [before, after]] of Object.entries(line.fields)) {
          const earlier = contact.fields.get(name);
          contact.fields.set(name, { before: earlier === undefined ? before : earlier.before, after });
        }
        break;
      case 'add-tags':
        for (const tag of line.tags) {
          if (!contact.removed.delete(tag)) contact.added.add(tag);
        }
        break;
      case 'remove-tags':
        for (const tag of line.tags) {
          if (!contact.added.delete(tag)) contact.removed.add(tag);
        }
        break;
    }
  }
  return [...byContact].map(([contactId, contact]) => ({
    key: contact.key,
    contactId,
    created: contact.created,
    fields: Object.fromEntries([...contact.fields].filter(([, change]) => (change.before ?? '') !== change.after)),
    tagsAdded: [...contact.added],
    tagsRemoved: [...contact.removed],
  }));
}
