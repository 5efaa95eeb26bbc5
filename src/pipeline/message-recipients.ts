/**
 * `mode: message`: the contacts a row's message goes to, without writing any contact. A
 * `message.contactIdColumn` names the contact directly; otherwise the key is looked up in the
 * state store, then searched, and several matches follow `onDuplicate`.
 */
import type { ContactsApi } from '../api/contacts-api.js';
import type { Job } from '../config/job-types.js';
import type { StateStore } from '../state/state-store.js';
import { findContactsByKey } from './match.js';
import { decideMatch, duplicateContactsReason } from './plan.js';
import type { ContactDraft } from './types.js';

export type Recipients = { kind: 'found'; contactIds: string[] } | { kind: 'none'; reason: string } | { kind: 'ambiguous'; reason: string };

export async function findRecipients(draft: ContactDraft, job: Job, api: ContactsApi, state: StateStore | undefined, full: boolean): Promise<Recipients> {
  const idColumn = job.message?.contactIdColumn;
  if (idColumn !== undefined) {
    const id = (draft.templateValues[idColumn] ?? '').trim();
    return id === '' ? { kind: 'none', reason: `the column "${idColumn}" is empty; put the contact id in it` } : { kind: 'found', contactIds: [id] };
  }
  const known = full ? undefined : state?.get(draft.key);
  if (known !== undefined) return { kind: 'found', contactIds: [known.contactId] };
  const decision = decideMatch(await findContactsByKey(api, draft.keyField, draft.key), 'update', job.onDuplicate);
  switch (decision.kind) {
    case 'update':
      return { kind: 'found', contactIds: decision.contacts.map((contact) => contact.id) };
    case 'ambiguous':
      return { kind: 'ambiguous', reason: duplicateContactsReason(draft.keyField, draft.key, decision.ids) };
    default:
      return { kind: 'none', reason: `no contact has ${draft.keyField}=${draft.key}; nothing was sent` };
  }
}
