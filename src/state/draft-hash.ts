/**
 * The fingerprint of a contact draft. The planner compares it with the one the state store kept
 * for the key: equal means the row is `unchanged` and costs no API call. Both sides call this one
 * function so they cannot disagree.
 */
import { hash } from 'node:crypto';

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
 *
 * The hashed text is the canonical JSON (`canonical-json.ts`: keys sorted by UTF-16 code units at
 * every depth) of `{ version, fields, tagsToAdd, tagsToRemove }`, tags unique and sorted. Every
 * state store written so far holds hashes of that text, so it must never change; it is written
 * here directly for this one shape, as the generic walk costs a noticeable part of a row on a
 * re-run where every row is unchanged (test/state/draft-hash.test.ts holds the two equal).
 */
export function draftHash(draft: DraftContent): string {
  return hash('sha256', draftHashText(draft), 'hex');
}

/** `canonicalJson({ version, fields, tagsToAdd, tagsToRemove })`, for the draft's shape only. */
export function draftHashText(draft: DraftContent): string {
  // Top-level keys in sorted order: fields, tagsToAdd, tagsToRemove, version.
  return `{"fields":${fieldsJson(draft.fields)},"tagsToAdd":${tagsJson(draft.tagsToAdd)},"tagsToRemove":${tagsJson(draft.tagsToRemove)},"version":${DRAFT_HASH_VERSION}}`;
}

function fieldsJson(fields: Readonly<Record<string, string>>): string {
  const names = sortedNames(Object.keys(fields));
  let text = '{';
  for (let i = 0; i < names.length; i++) {
    const name = names[i]!;
    if (i > 0) text += ',';
    const value = fields[name];
    // `null`: a value that is not there serialises as canonicalJson writes it.
    text += `${jsonString(name)}:${value === undefined ? 'null' : jsonString(value)}`;
  }
  return `${text}}`;
}

/** The last names sorted, and them sorted: the rows of a job build their fields in one order. */
let lastNames: readonly string[] = [];
let lastSorted: readonly string[] = [];

/** `names` sorted by UTF-16 code units, as canonicalJson sorts them. */
function sortedNames(names: string[]): readonly string[] {
  if (names.length === lastNames.length && names.every((name, i) => name === lastNames[i])) return lastSorted;
  lastNames = names;
  lastSorted = [...names].sort();
  return lastSorted;
}

function tagsJson(tags: readonly string[]): string {
  // Unique and sorted, so neither the order nor repeats of the tags change the hash.
  const sorted = tags.length < 2 ? tags : [...new Set(tags)].sort();
  let text = '[';
  for (let i = 0; i < sorted.length; i++) text += i === 0 ? jsonString(sorted[i]!) : `,${jsonString(sorted[i]!)}`;
  return `${text}]`;
}

/** Characters JSON.stringify escapes (quote, backslash, controls) or may (surrogates, lone ones escaped). */
// eslint-disable-next-line no-control-regex -- control characters are exactly what JSON escapes
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** `JSON.stringify(text)`, without its cost for the usual text that needs no escape. */
function jsonString(text: string): string {
  return NEEDS_ESCAPE.test(text) ? JSON.stringify(text) : `"${text}"`;
}
