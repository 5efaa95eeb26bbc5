/**
 * The row executor of `reconcile` (issue 21; docs/reconcile.md): reads what the platform holds for
 * a row's key (the prefetch index's contacts, else one search: a state store's belief is never
 * taken for the platform's truth), asks the pure comparison (`compare.ts`) how they disagree, and
 * refreshes the state store with what it read, so that the next `run` writes exactly what differs.
 * It never writes to the platform. Its failures are the row's, or the job's, as in `sync-row.ts`.
 */
import { draftHash } from '../../state/draft-hash.js';
import type { ContactDraft } from '../types.js';
import { compareKey, type KeyComparison } from './compare.js';
import { CountedApi } from './counted-api.js';
import { findContactsByKey } from './match.js';
import type { KnownContact } from '../../state/known-contact.js';
import { pendingResult } from './row-result.js';
import { failedSync, initialFacts, type RowSync, type RowSyncContext } from './sync-row.js';

export async function reconcileRow(draft: ContactDraft, cells: string[], context: RowSyncContext): Promise<RowSync> {
  const api = new CountedApi(context.api);
  const row = pendingResult(draft.line, draft.key, cells);
  try {
    // The index proves a key is there, not that it is not: a key it lacks is searched.
    const indexed = context.index?.lookup(draft.key) ?? [];
    if (indexed.length > 0) context.index?.recordHit();
    const contacts = indexed.length > 0 ? indexed : await findContactsByKey(api, draft.keyField, draft.key);
    // The facts `run --full` would decide on (the tags the job owns come from the store).
    const facts = { ...initialFacts(draft, { ...context, full: true, dryRun: true }), full: true };
    const comparison = compareKey(facts, contacts);
    refreshState(draft, comparison, contacts, context);
    const contactId = comparison.status === 'duplicate' ? comparison.contactIds.join(';') : comparison.status === 'missing' ? '' : comparison.contactId;
    // Nothing was written: every compared row is `unchanged` in the tally; the comparison says the rest.
    return { result: { ...row, outcome: 'unchanged', contactId, apiCalls: api.calls }, comparison };
  } catch (error) {
    return failedSync(error, { draft, context, row, plan: undefined, contactId: '', calls: api.calls });
  }
}

/**
 * What the store records of the key after the read: a key that agrees is known with the row's
 * hash (the next run settles it with no call); a key that differs is known with what the platform
 * holds and no hash (the next run writes exactly the difference, without a search); a key no
 * contact holds is forgotten and noted absent (the run right after this one creates it without a
 * search; a later one searches first). Several contacts: left as they were, for `onDuplicate`.
 */
function refreshState(draft: ContactDraft, comparison: KeyComparison, contacts: readonly KnownContact[], context: RowSyncContext): void {
  const { state } = context;
  if (state === undefined) return;
  // A key no contact holds is noted absent under this reconcile: the run right after it creates
  // the key without a search (row/fresh-read.ts).
  state.recordReconcileRead(draft.key, comparison.status === 'missing');
  if (comparison.status === 'missing') return;
  const [contact] = contacts;
  if (comparison.status === 'duplicate' || contact === undefined) return;
  const same = comparison.status === 'same';
  state.recordObserved(draft.key, {
    contactId: contact.id,
    // The contacts were read through this run's api: their ids are its surface's.
    surface: context.api.surface.name,
    fields: contact.custom_fields,
    tags: contact.tags,
    draftHash: same ? draftHash(draft) : null,
    rowHash: same ? (draft.rowHash ?? null) : null,
  });
}
