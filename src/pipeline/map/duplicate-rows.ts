/**
 * `onDuplicateRows`: what happens to the rows of one key that is on several rows of the file.
 * Pure: which row of a key's group is applied (`verdict`), what the others are reported as, and
 * the fold of `merge` (`foldDraft`). The first pass that finds the groups is
 * `source/repeated-keys.ts`; the stage that holds merges is `duplicate-rows-stage.ts`.
 *
 * - `last` (default) / `first`: one row is applied, the others are `skipped` naming it. A winner
 *   that fails on its own (in mapping) is still the winner: the others are skipped, saying so.
 * - `merge`: the rows are folded in file order (last non-empty value per field, union of tags,
 *   the message of the last row) into one draft applied on the group's last line; the earlier
 *   lines are `skipped` naming it.
 * - `fail`: every row of the key fails with `DUPLICATE_ROWS`, naming its lines.
 */
import type { OnDuplicateRows } from '../../config/job-types.js';
import type { ContactDraft, PhoneExtension } from './contact-draft.js';
import { tagCaseVariants } from './map.js';

/** The rows of one key that is on more than one row, as the first pass found them. */
export interface KeyGroup {
  /** The key's first and last line. */
  readonly first: number;
  readonly last: number;
  /** Rows of the key (at least 2). */
  readonly count: number;
  /** Its lines in file order, the first ones only when there are many (`count` says how many). */
  readonly lines: readonly number[];
  /** The key's first row, or its last, will fail on its own (in mapping: a bad email); absent when it maps. */
  readonly firstFails?: true;
  readonly lastFails?: true;
}

/** At most this many lines of a group are kept to name in messages. */
export const LISTED_LINES = 20;

export type RowVerdict =
  /** Apply the row as it is (the winner under `last` / `first`). */
  | { readonly kind: 'apply' }
  /** Report the row `skipped` with `message`: another line wins or takes it in. */
  | { readonly kind: 'skip'; readonly message: string }
  /** `merge`, the group's last row: apply the fold of the group's rows. */
  | { readonly kind: 'apply-merged' }
  /** `merge`, an earlier row: fold it in, and report it `skipped` with `message`. */
  | { readonly kind: 'fold'; readonly message: string }
  /** `fail`: the row fails with `DUPLICATE_ROWS` and `message`. */
  | { readonly kind: 'fail'; readonly message: string };

/** What becomes of the row on `line`, one of `group`'s lines, under `policy`. */
export function verdict(policy: OnDuplicateRows, group: KeyGroup, line: number, key: string): RowVerdict {
  switch (policy) {
    case 'last':
    case 'first': {
      const winner = policy === 'last' ? group.last : group.first;
      const fails = policy === 'last' ? group.lastFails : group.firstFails;
      return line === winner ? { kind: 'apply' } : { kind: 'skip', message: `superseded by line ${winner} (onDuplicateRows: ${policy})${winnerFails(fails, winner, key)}` };
    }
    case 'merge':
      return line === group.last ? { kind: 'apply-merged' } : { kind: 'fold', message: `merged into line ${group.last} (onDuplicateRows: merge)${winnerFails(group.lastFails, group.last, key)}` };
    case 'fail':
      return {
        kind: 'fail',
        message: `key ${JSON.stringify(key)} is on ${describeLines(group)} (onDuplicateRows: fail), so none of them is written; fix the export so the key is on one row, or set onDuplicateRows to last, first or merge`,
      };
  }
}

/**
 * What a superseded row's message adds when the winning row fails on its own: no other row of the
 * key is written in its place (that would revert the contact every night), so the key fails as a
 * whole until the winner is fixed (issue 41).
 */
function winnerFails(fails: true | undefined, winner: number, key: string): string {
  return fails === true ? `, which fails: no row of key ${JSON.stringify(key)} is written until line ${winner} is fixed` : '';
}

/** What `validate` says the policy will do with a group. */
export function describePolicy(policy: OnDuplicateRows, group: KeyGroup): string {
  switch (policy) {
    case 'last':
    case 'first': {
      const winner = policy === 'last' ? group.last : group.first;
      return `line ${winner} is applied, the ${plural(group.count - 1, 'other row')} skipped (onDuplicateRows: ${policy})`;
    }
    case 'merge':
      return `the ${group.count} rows are merged into line ${group.last} (onDuplicateRows: merge)`;
    case 'fail':
      return `the ${group.count} rows fail with DUPLICATE_ROWS (onDuplicateRows: fail)`;
  }
}

/** `lines 2, 5 and 9`, or `12 lines: 2, 5, ... and 40` when not every line was kept. */
export function describeLines(group: KeyGroup): string {
  const { lines, count } = group;
  if (lines.length >= count) return `lines ${lines.slice(0, -1).join(', ')} and ${group.last}`;
  return `${count} lines: ${lines.join(', ')}, ... and ${group.last}`;
}

/**
 * `next` folded onto `earlier` (both drafts of one key, `earlier` before `next` in the file):
 * a field takes the later non-empty value (an empty one, kept only with `emptyValues: clear`,
 * counts when no row has a value); tags to add are the union in first-seen order; tags to remove
 * are the union minus the tags some row adds (a row that asks for a tag keeps it, as in the
 * mapper); the line and the message's values are the later row's, with the folded fields.
 */
export function foldDraft(earlier: ContactDraft, next: ContactDraft): ContactDraft {
  const fields: Record<string, string> = { ...earlier.fields };
  for (const [name, value] of Object.entries(next.fields)) {
    if (value !== '' || !(name in fields)) fields[name] = value;
  }
  const tagsToAdd = [...new Set([...earlier.tagsToAdd, ...next.tagsToAdd])];
  const added = new Set(tagsToAdd);
  const tagsToRemove = [...new Set([...earlier.tagsToRemove, ...next.tagsToRemove])].filter((tag) => !added.has(tag));
  const templateValues = Object.assign(Object.create(null) as Record<string, string>, next.templateValues, fields);
  templateValues[next.keyField] = next.key;
  const folded: ContactDraft = { line: next.line, key: next.key, keyField: next.keyField, fields, tagsToAdd, tagsToRemove, templateValues };
  // Rows of one key that spell a tag in two cases give the contact both: warned like one row's.
  const caseVariants = tagCaseVariants(tagsToAdd);
  if (caseVariants !== undefined) folded.tagCaseVariants = caseVariants;
  // A field skipped on one row and given by another is written: only the fields no row gave stay skipped.
  const skipped = new Map([...(earlier.fieldsSkipped ?? []), ...(next.fieldsSkipped ?? [])].filter((skip) => !(skip.field in fields)).map((skip) => [skip.field, skip]));
  if (skipped.size > 0) folded.fieldsSkipped = [...skipped.values()];
  // The phone written is the one of the row whose value the fold kept: that row's extension, if any, is named.
  const extensions = new Map<string, PhoneExtension>();
  for (const note of earlier.phoneExtensions ?? []) if (!keptFromNext(note.field, earlier, next)) extensions.set(note.field, note);
  for (const note of next.phoneExtensions ?? []) if (keptFromNext(note.field, earlier, next)) extensions.set(note.field, note);
  if (extensions.size > 0) folded.phoneExtensions = [...extensions.values()];
  // The rules are the job's, per field: every row of the key carries the same.
  const writeRules = next.writeRules ?? earlier.writeRules;
  if (writeRules !== undefined) folded.writeRules = writeRules;
  return folded;
}

/** The folded draft's value of `field` is `next`'s (as `foldDraft` folds fields). */
function keptFromNext(field: string, earlier: ContactDraft, next: ContactDraft): boolean {
  const value = next.fields[field];
  return value !== undefined && (value !== '' || !(field in earlier.fields));
}

function plural(count: number, noun: string): string {
  return count === 1 ? `${count} ${noun} is` : `${count} ${noun}s are`;
}
