/** What the Contacts and Messaging API v1 is to the planner (`../platform-surface.ts`). */
import { SEARCH_PAGE_SIZE } from '../../limits.js';
import type { PlatformSurface } from '../platform-surface.js';

/** The Contacts and Messaging API v1: search 10 a page, tags 10 a call, no direct read by key, sends at most once. */
export const V1_SURFACE: PlatformSurface = {
  name: 'v1',
  listPageSize: SEARCH_PAGE_SIZE,
  searchPageSize: SEARCH_PAGE_SIZE,
  tagsPerCall: 10,
  directLookup: () => false,
  upsertBy: () => false,
  sendsReadable: false,
  deletes: false,
  merges: false,
  createLandsOn: () => undefined,
  createRefusal: () => undefined,
};
