/**
 * What the state store and the job say of a row's key, as the decisions take it: the key's state
 * (`KeyState`), the tags `tags.prune` may take, and a departed key's return. Read by both row works
 * that read a file (`sync-row.ts` for `run`, `reconcile-row.ts` for `reconcile`), each through the
 * narrow part of the store it is given; the decisions themselves stay pure (`decide.ts`, `compare.ts`).
 */
import type { Job } from '../../config/job-types.js';
import { trustedOn, type IdSurface, type StoredContact } from '../../state/known-contact.js';
import type { DepartedReads, KeyReads } from '../../state/state-port.js';
import type { KeyState, RowFacts } from './decide.js';
import { isFresh, readBefore, type FreshReads, type PriorReads } from './fresh-read.js';

/**
 * The fact the decision gets from what the store holds of a key, for a run on `surface`: a pending
 * create, its record, or nothing. A record whose id came from another surface is `stale`: the id
 * is never trusted across surfaces, so the key is matched again by its key field, once (the row
 * then records the id and surface it found). docs/reliability.md, "Moving a connection from v1 to v2".
 * A record the reconcile or undo right before this run read (`priorReads`, fresh-read.ts) is a read:
 * writing over it, the change journal's "before" is vouched for.
 */
export function keyStateOf(pending: boolean, known: StoredContact | undefined, surface: IdSurface, priorReads?: PriorReads): KeyState {
  if (pending) return { kind: 'create-pending' };
  if (known === undefined) return { kind: 'unknown' };
  if (!trustedOn(known, surface)) return { kind: 'stale' };
  const read = readBefore(known.verifiedAt ?? null, priorReads);
  return { kind: 'known', contact: known.contact, draftHash: known.draftHash, jobTags: known.jobTags, rowHash: known.rowHash, ...(read ? { read } : {}) };
}

/**
 * What the store knows of `key` now. A key it does not know may have been read absent by the
 * reconcile right before this run (`freshReads`, fresh-read.ts).
 */
export function storedKeyState(state: KeyReads, key: string, freshReads: FreshReads | undefined, surface: IdSurface, priorReads?: PriorReads): KeyState {
  if (state.isCreatePending(key)) return { kind: 'create-pending' };
  const known = keyStateOf(false, state.get(key), surface, priorReads);
  return known.kind === 'unknown' && freshReads !== undefined && isFresh(state.absentRead(key), freshReads) ? { kind: 'absent' } : known;
}

/** `tags.prune`: the tags the job owns, as the decision takes them; nothing when the job prunes none. */
export function pruneFacts(job: Pick<Job, 'tags'>): Pick<RowFacts, 'prune'> {
  if (!job.tags.prune) return {};
  return { prune: job.tags.owned === undefined ? {} : { owned: job.tags.owned } };
}

/** A key `onMissing` acted on is back: the tags its departure added go again. */
export function departedFacts(job: Pick<Job, 'onMissing'>, state: DepartedReads | undefined, key: string): Pick<RowFacts, 'departed'> {
  if (job.onMissing === undefined || state === undefined) return {};
  const record = state.departedRecord(key);
  return record === undefined ? {} : { departed: { undoTags: record.action === 'tag' ? record.tags : [] } };
}
