/**
 * `forget --platform` (docs/personal-data.md, "Erasure reaches the platform"): the pure decisions
 * of one key's erasure on the platform. Which contacts hold the key (the one the state store knew,
 * and each the platform's lookup by the job's key field found: duplicates too), the calls that
 * delete them on a surface that `deletes`, or the ids a person deletes by hand where it cannot
 * (API v1); and, once the calls are done, how the key's erasure ended. No I/O: the executor
 * (`platform-erasure.ts`) runs the deletes through the one writer and erases the store after.
 */
import type { ContactPlan, Operation } from '../row/plan.js';

/** What is known of one key before any delete. */
export interface ErasureFacts {
  /** The contact id the state store knows for the key, learnt on this surface (an id of another surface is not this one's to delete). */
  readonly storeId: string | undefined;
  /** The contacts the platform's lookup of the key found (several: duplicates). */
  readonly found: readonly string[];
  /** The surface deletes a contact (`PlatformSurface.deletes`: v2). */
  readonly deletes: boolean;
}

export interface ErasurePlan {
  /** Every contact that holds the key, the store's first, each once. */
  readonly contactIds: readonly string[];
  /** One plan a contact, on a surface that deletes: a delete that journals no value (an erasure keeps none). */
  readonly deletions: readonly ContactPlan[];
  /** On a surface that cannot delete: the ids a person deletes in the platform's interface. */
  readonly byHand: readonly string[];
}

export function planErasure(facts: ErasureFacts): ErasurePlan {
  const contactIds = [...new Set([...(facts.storeId === undefined ? [] : [facts.storeId]), ...facts.found])];
  if (!facts.deletes) return { contactIds, deletions: [], byHand: contactIds };
  return { contactIds, deletions: contactIds.map(deletionOf), byHand: [] };
}

/** A delete of `id`, carrying no value: the writer's journal hook is not given one (an erasure keeps no value). */
function deletionOf(id: string): ContactPlan {
  const operation: Operation = { kind: 'deleteContact', target: { id }, fields: {}, tags: [] };
  return { action: 'update', contactId: id, operations: [operation], fieldsChanged: [], tagsAdded: [], tagsRemoved: [], before: {}, beforeRead: false };
}

/**
 * How a key's erasure ended:
 * - `erased`: every contact holding it is deleted on the platform (or none held it) and the store forgot it;
 * - `by-hand`: the surface cannot delete: the store forgot it, the contacts listed are a person's to delete;
 * - `unknown`: neither the store nor the platform knew it: nothing to erase;
 * - `failed`: the lookup or a delete failed: the store still knows it, a re-run finishes the job;
 * - `not-reached`: the forget stopped before the key: nothing done.
 */
export type ErasureOutcome = 'erased' | 'by-hand' | 'unknown' | 'failed' | 'not-reached';

export interface ErasureEnd {
  /** The store held something of the key (its record, a mark, journal lines...). */
  readonly storeKnew: boolean;
  readonly plan: ErasurePlan | undefined;
  /** The lookup or a delete failed. */
  readonly failed: boolean;
  /** The forget stopped before taking the key. */
  readonly reached: boolean;
}

export function erasureOutcome(end: ErasureEnd): ErasureOutcome {
  if (!end.reached) return 'not-reached';
  if (end.failed || end.plan === undefined) return 'failed';
  if (end.plan.byHand.length > 0) return 'by-hand';
  if (!end.storeKnew && end.plan.contactIds.length === 0) return 'unknown';
  return 'erased';
}

/** The erasure is not complete (exit 1): a key unknown everywhere, failed, or left to delete by hand. */
export function needsLook(outcomes: readonly ErasureOutcome[]): boolean {
  return outcomes.some((outcome) => outcome === 'unknown' || outcome === 'failed' || outcome === 'by-hand');
}
