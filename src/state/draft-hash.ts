/**
 * The fingerprint of a contact draft. The planner compares it with the one the state store kept
 * for the key: equal means the row is `unchanged` and costs no API call. Both sides call this one
 * function so they cannot disagree.
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical-json.js';

/** The parts of a `ContactDraft` that decide what is written to the platform. */
export interface DraftContent {
  /** Custom field name -> value. */
  readonly fields: Readonly<Record<string, string>>;
  readonly tagsToAdd: readonly string[];
  readonly tagsToRemove: readonly string[];
}

/**
 * Bump when the hashed content changes meaning: every stored hash then differs, so the next run
 * compares each row again instead of trusting a hash of something else.
 */
const DRAFT_HASH_VERSION = 1;

/**
 * SHA-256 (hex) of the draft's fields and tags. Stable across the order of field names and of
 * tags (a tag list read as `a;b` or `b;a` asks the platform for the same thing) and across
 * repeated tags; any change of a name, a value or a tag changes it.
 */
export function draftHash(draft: DraftContent): string {
  const content = {
    version: DRAFT_HASH_VERSION,
    fields: { ...draft.fields },
    tagsToAdd: uniqueSorted(draft.tagsToAdd),
    tagsToRemove: uniqueSorted(draft.tagsToRemove),
  };
  return createHash('sha256').update(canonicalJson(content)).digest('hex');
}

function uniqueSorted(tags: readonly string[]): string[] {
  return [...new Set(tags)].sort();
}
