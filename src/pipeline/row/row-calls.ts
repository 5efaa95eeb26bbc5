/**
 * The calls a row makes on the platform's surface, for `--max-duration`'s reckoning
 * (`run/deadline.ts`): at most (a row taken: `rowCallsAtMost`, a search, then its create's or its
 * update's calls), the one read of a row that only reads its key, and at least (a row not read yet).
 */
import type { PlatformSurface } from '../../api/platform-surface.js';
import { MAX_FIELDS_PER_CALL } from '../../limits.js';
import type { ContactDraft } from '../map/contact-draft.js';
import { chunk, planCreate } from './plan.js';

/**
 * The most Contacts API calls a row sent to the API makes on `surface` when no call fails: a read
 * of its key (one search page, or one direct read), then the calls of a create (with its tags) or
 * of an update of every field with its tags added and removed, whichever is more, the tags in
 * calls of the surface's `tagsPerCall`; a create the surface lands on the holder of the row's
 * email or phone (`createLandsOn`, v2) reads that holder first. Messages have a budget of their own and are not counted.
 */
export function rowCallsAtMost(draft: ContactDraft, surface: Pick<PlatformSurface, 'tagsPerCall'> & Partial<Pick<PlatformSurface, 'createLandsOn'>>): number {
  const operations = planCreate(draft, surface).operations;
  const [first] = operations;
  // A create that lands on the holder of its email or phone reads that holder first (decide.ts).
  const landsOn = first?.kind === 'createContact' ? surface.createLandsOn?.(first.fields) : undefined;
  const create = operations.length + (landsOn !== undefined && landsOn !== draft.keyField ? 1 : 0);
  const calls = (items: number, perCall: number): number => Math.ceil(items / perCall);
  const update = calls(Object.keys(draft.fields).length, MAX_FIELDS_PER_CALL) + chunk(draft.tagsToAdd, surface.tagsPerCall).length + chunk(draft.tagsToRemove, surface.tagsPerCall).length;
  return 1 + Math.max(create, update);
}

/** The calls of a row that only reads its key (`reconcile`): one search page, or one direct read. */
export const KEY_READ_CALLS = 1;

/**
 * The fewest Contacts API calls a row of a file not read yet makes when it goes to the API (the
 * stop policy's floor for a unit not read yet, before a wider one was seen): a read of its key and
 * a write; one call where the surface reads a key held in `keyField` directly and upserts by it
 * (a new row is one create-or-update, with no read before it). The surface's capabilities decide,
 * never its name.
 */
export function unreadRowCallsAtLeast(surface: Pick<PlatformSurface, 'directLookup' | 'upsertBy'>, keyField: string): number {
  return surface.directLookup(keyField) && surface.upsertBy(keyField) ? 1 : 2;
}
