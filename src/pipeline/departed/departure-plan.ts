/**
 * The departed step's decisions, pure: whether a complete run may act on the keys that left its
 * input (the guard against a truncated export), and what `onMissing` does to each departed
 * key's contact, in the fewest calls, from what the state store knows of it. The executor
 * (`settle-departed.ts`) runs the calls and journals them. See docs/state.md, "Keys that leave
 * the file".
 */
import type { OnMissingSpec } from '../../config/job-types.js';
import { describeShare } from '../../config/missing-share.js';
import { MAX_FIELDS_PER_CALL } from '../../limits.js';
import { trustedOn, type IdSurface, type KnownContact } from '../../state/known-contact.js';
import { chunk, type CallLimits, type Operation } from '../row/plan.js';
import { counted } from '../report/counted.js';

/** How many known keys a complete run lacked, and whether that many may be acted on. */
export interface MissingShare {
  /** Keys the state store knows (in this run's scope) that no earlier departure took. */
  readonly known: number;
  /** Of those, the keys this run's input lacks. */
  readonly missing: number;
  /** `missing / known` in percent (0 when nothing is known). */
  readonly percent: number;
  /** Over `maxShare`: the step is refused and nothing is changed. */
  readonly refused: boolean;
  /** The share allowed, percent (`onMissing.maxShare`, or `--max-missing` for this run). */
  readonly maxSharePercent: number;
}

export function missingShare(known: number, missing: number, maxSharePercent: number): MissingShare {
  const percent = known === 0 ? 0 : (missing / known) * 100;
  return { known, missing, percent, refused: percent > maxSharePercent, maxSharePercent };
}

/**
 * The largest share of the known keys a message may advise to act on with `--max-missing`: past
 * half, the input is far likelier a part of the export (a fed-back rejected file, a slice) or a
 * cut-short one than the day most customers left, and the advice would tag them all as gone.
 */
export const MAX_ADVISED_SHARE_PERCENT = 50;

/** Whether a refusal may advise `--max-missing` (share.percent at most MAX_ADVISED_SHARE_PERCENT). */
export function advisesMaxMissing(percent: number): boolean {
  return percent <= MAX_ADVISED_SHARE_PERCENT;
}

/** Why the step was refused, with what to do: said on the console, in summary.json and departed.csv. */
export function refusalReason(share: MissingShare, job: string): string {
  const counts =
    `${share.missing} of the ${counted(share.known, 'key')} that earlier runs synced ${share.missing === 1 ? 'is' : 'are'} missing from this input (${describeShare(share.percent)}, ` +
    `over onMissing.maxShare ${describeShare(share.maxSharePercent)}); nothing was done to them. `;
  if (!advisesMaxMissing(share.percent)) {
    return (
      counts +
      'With most of the keys missing, this input is not the whole export: a part of it (a slice, a rejected file whose error columns were removed) ' +
      `is run with --partial, which leaves the departed keys alone; a truncated or empty export is exported again (job ${job})`
    );
  }
  return (
    counts +
    'A truncated or empty export is the usual cause: check the file and run again, a part of the export is run with --partial, ' +
    `or if they really left, run once with --max-missing ${Math.min(100, Math.ceil(share.percent))}% (job ${job})`
  );
}

/** What `onMissing` does to one departed key's contact. */
export interface DeparturePlan {
  /** The calls, in order; none when the contact already is as the action wants it. */
  readonly operations: readonly Operation[];
  readonly tagsAdded: readonly string[];
  readonly tagsRemoved: readonly string[];
  readonly fields: Readonly<Record<string, string>>;
}

/**
 * The calls that apply the action to a departed key's contact, from what the state store knows
 * it holds: only the tags it lacks (tag), only those it has (untag), only the fields that differ
 * (update), in calls of the surface's `tagsPerCall` tags or 30 fields. `keep` plans nothing.
 */
export function planDeparture(contact: KnownContact, spec: OnMissingSpec, limits: CallLimits): DeparturePlan {
  const target = { id: contact.id };
  const present = new Set(contact.tags);
  switch (spec.action) {
    case 'keep':
      return { operations: [], tagsAdded: [], tagsRemoved: [], fields: {} };
    case 'tag': {
      const tagsAdded = spec.tags.filter((tag) => !present.has(tag));
      return { operations: chunk(tagsAdded, limits.tagsPerCall).map((tags): Operation => ({ kind: 'addTags', target, tags })), tagsAdded, tagsRemoved: [], fields: {} };
    }
    case 'untag': {
      const tagsRemoved = spec.tags.filter((tag) => present.has(tag));
      return { operations: chunk(tagsRemoved, limits.tagsPerCall).map((tags): Operation => ({ kind: 'removeTags', target, tags })), tagsAdded: [], tagsRemoved, fields: {} };
    }
    case 'update': {
      const fields = Object.fromEntries(Object.entries(spec.fields).filter(([name, value]) => (contact.custom_fields[name] ?? '') !== value));
      const operations = chunk(Object.entries(fields), MAX_FIELDS_PER_CALL).map((entries): Operation => ({ kind: 'updateContact', target, fields: Object.fromEntries(entries) }));
      return { operations, tagsAdded: [], tagsRemoved: [], fields };
    }
  }
}

/** The contact a departed key's action goes to, or what keeps it from going to one. */
export type DepartedContact =
  /** Act on this contact; `read`: it was just found by a search (its values were read), not the store's. */
  | { readonly kind: 'act'; readonly contact: KnownContact; readonly read: boolean }
  /** The store's id came from another surface: search the key by its key field first. */
  | { readonly kind: 'search' }
  /** Nothing to act on (no contact holds the key now): the store forgets the key; `reason` for departed.csv. */
  | { readonly kind: 'gone'; readonly reason: string }
  /** Several contacts hold the key: not acted on (the next complete run tries again); `reason` for departed.csv. */
  | { readonly kind: 'several'; readonly reason: string };

/**
 * Which contact the action on a departed key goes to, for a run whose api speaks `surface`: the
 * store's, when its id came from that surface; else the key is matched again by its key field (an
 * id is never trusted across surfaces: docs/reliability.md, "Moving a connection from v1 to v2"),
 * and `found` is what that search returned: one contact is acted on (and recorded with its id and
 * surface), none means nothing to act on, several are left for a person or `onDuplicate`.
 */
export function departedContact(key: { readonly surface: IdSurface; readonly contact: KnownContact }, surface: IdSurface, found?: readonly KnownContact[]): DepartedContact {
  if (trustedOn(key, surface)) return { kind: 'act', contact: key.contact, read: false };
  if (found === undefined) return { kind: 'search' };
  const [only] = found;
  if (only === undefined) return { kind: 'gone', reason: `no contact holds the key on API ${surface} (its id was API ${key.surface}'s); the state store forgot the key` };
  if (found.length === 1) return { kind: 'act', contact: only, read: true };
  return {
    kind: 'several',
    reason: `not acted on: ${found.length} contacts hold the key on API ${surface} (its id was API ${key.surface}'s, never used on ${surface}); the next complete run tries again`,
  };
}
