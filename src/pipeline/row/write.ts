/**
 * The writer: the only stage that calls mutating endpoints. It executes a ContactPlan in order and
 * resolves a create whose outcome is unknown by searching the key again, so a timed-out create
 * never becomes a second contact.
 */
import { OutcomeUnknownError } from '../../api/errors.js';
import type { ContactsApi } from '../../api/contacts-api.js';
import { oldestFirst } from './contact-order.js';
import type { ChangeEntry } from '../../state/change-journal.js';
import type { ChangeJournalStore } from '../../state/state-port.js';
import type { ContactPlan, ContactTarget, Operation } from './plan.js';
import type { KnownContact } from '../../state/known-contact.js';

/** Creates tried for one row when each answer is lost and the search still finds nothing. */
export const MAX_CREATE_ATTEMPTS = 3;

export interface WriteHooks {
  /** Called before each create leaves (the state store journals the key as create-pending). */
  beforeCreate?(key: string): void;
  /** Called when the surface cannot create the contact (`surface.createRefusal`): no create left, nothing is pending. */
  createRefused?(key: string, refusal: { readonly code: string; readonly message: string }): void;
  /** The contacts that hold the key now: how an unknown create is resolved. */
  findByKey(key: string): Promise<KnownContact[]>;
  /**
   * Called as each call is confirmed, before the next leaves, with what it changed: the change
   * journal's line (docs/undo.md). A throw (the store cannot be written) stops the plan there.
   */
  confirmed?(contactId: string, change: ChangeEntry): void;
}

/** Progress of a plan, kept even when a later call fails, for the report. */
export interface WriteProgress {
  contactId: string;
  /** The calls the platform confirmed so far, in order (when given, they are appended). */
  confirmed?: Operation[];
}

/**
 * Executes the plan's operations in order. Returns the contact id (the created one for a create).
 * On a failure, `progress.contactId` still tells which contact the earlier calls reached.
 */
export async function executePlan(
  api: ContactsApi,
  plan: ContactPlan,
  key: string,
  hooks: WriteHooks,
  progress: WriteProgress,
): Promise<string> {
  let created: string | undefined;
  const resolve = (target: ContactTarget): string => {
    if (target !== 'created') return target.id;
    if (created === undefined) throw new Error('planner bug: an operation targets a contact not created yet');
    return created;
  };
  for (const operation of plan.operations) {
    switch (operation.kind) {
      case 'createContact':
        created = await createExactlyOnce(api, operation.fields, key, hooks);
        progress.contactId = created;
        break;
      case 'updateContact':
        progress.contactId = resolve(operation.target);
        await api.updateContact(progress.contactId, operation.fields);
        break;
      case 'addTags':
        progress.contactId = resolve(operation.target);
        await api.addTags(progress.contactId, operation.tags);
        break;
      case 'removeTags':
        progress.contactId = resolve(operation.target);
        await api.removeTags(progress.contactId, operation.tags);
        break;
      case 'deleteContact':
        progress.contactId = operation.target.id;
        if (api.deleteContact === undefined) throw incapable('delete');
        await api.deleteContact(progress.contactId);
        break;
      case 'mergeContacts': {
        const ids = [resolve(operation.target), operation.other] as const;
        if (api.mergeContacts === undefined) throw incapable('merge');
        const { survivorId } = await api.mergeContacts(ids, operation.fields);
        // The platform named the survivor: the plan's later calls and the journal line go to it.
        created = survivorId;
        progress.contactId = survivorId;
        progress.confirmed?.push(operation);
        const before = survivorId === plan.contactId ? plan.before : {};
        hooks.confirmed?.(survivorId, { operation: 'merge', merged: ids.filter((id) => id !== survivorId), fields: Object.fromEntries(Object.entries(operation.fields).map(([name, value]) => [name, [before[name] ?? null, value]])), beforeRead: plan.beforeRead });
        continue;
      }
    }
    progress.confirmed?.push(operation);
    hooks.confirmed?.(progress.contactId, changeOf(operation, plan.before, plan.beforeRead));
  }
  return progress.contactId;
}

/**
 * Writes a plan to a contact the run already knows by id (undo putting it back, the departed step
 * acting on it) and journals each confirmed call under `key`. Such a plan creates nothing, so
 * there is no create to resolve by key. `confirmed` collects the calls the platform confirmed,
 * even when a later one failed.
 */
export async function writeKnownContact(api: ContactsApi, plan: ContactPlan, key: string, contactId: string, journal: ChangeJournalStore, confirmed: Operation[] = []): Promise<void> {
  if (plan.operations.length === 0) return;
  await executePlan(api, plan, key, { findByKey: () => Promise.resolve([]), confirmed: (id, change) => journal.journalChange(key, id, change) }, { contactId, confirmed });
}

/**
 * What a confirmed call changed, for the change journal: a field's value before is the plan's
 * (`before`), none for a contact the plan created; whether it was read is the plan's too (a
 * contact the plan created is known whole: nothing was before).
 */
export function changeOf(operation: Exclude<Operation, { kind: 'mergeContacts' }>, before: Readonly<Record<string, string | null>>, beforeRead: boolean): ChangeEntry {
  if (operation.kind === 'deleteContact') return { operation: 'delete', values: { fields: operation.fields, tags: operation.tags }, beforeRead: true };
  const created = operation.kind === 'createContact' || operation.target === 'created';
  const read = created || beforeRead;
  switch (operation.kind) {
    case 'createContact':
      return { operation: 'create', fields: Object.fromEntries(Object.entries(operation.fields).map(([name, value]) => [name, [null, value]])), beforeRead: true };
    case 'updateContact':
      return { operation: 'update', fields: Object.fromEntries(Object.entries(operation.fields).map(([name, value]) => [name, [created ? null : (before[name] ?? null), value]])), beforeRead: read };
    case 'addTags':
      return { operation: 'add-tags', tags: operation.tags, beforeRead: read };
    case 'removeTags':
      return { operation: 'remove-tags', tags: operation.tags, beforeRead: read };
  }
}

/**
 * A capability of the surface the plan needs (`surface.deletes`, `surface.merges`): the decisions
 * plan a delete or a merge only where the surface has it, and the commands refuse (exit 2) before
 * any call where it has not, so its absence here is a bug.
 */
function incapable(what: string): Error {
  return new Error(`planner bug: a ${what} was planned on a surface that cannot ${what}`);
}

/**
 * Creates the contact, or adopts the one a lost answer created. The client retries a create only
 * when it cannot have taken effect; any other failure after the request left is an unknown
 * outcome, resolved here by searching the key before trying again.
 */
async function createExactlyOnce(
  api: ContactsApi,
  fields: Record<string, string>,
  key: string,
  hooks: WriteHooks,
): Promise<string> {
  // A contact the surface cannot create fails before any call: no create-pending mark, no call counted.
  const refusal = api.surface.createRefusal(fields);
  if (refusal !== undefined) {
    hooks.createRefused?.(key, refusal);
    throw refusal;
  }
  for (let attempt = 1; ; attempt++) {
    hooks.beforeCreate?.(key);
    try {
      // A create after the first repeats it (its answer was lost, the search found nothing): a retry.
      return (await api.createContact(fields, attempt > 1 ? { repeat: true } : undefined)).id;
    } catch (error) {
      if (!(error instanceof OutcomeUnknownError)) throw error;
      const found = await hooks.findByKey(key);
      const [adopted] = oldestFirst(found);
      if (adopted !== undefined) return adopted.id;
      if (attempt >= MAX_CREATE_ATTEMPTS) throw error;
    }
  }
}
