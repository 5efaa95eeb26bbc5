/** What the Developer API v2 is to the planner (`../platform-surface.ts`). */
import { V2_MAX_PAGE_SIZE } from '../../limits.js';
import type { PlatformSurface } from '../platform-surface.js';
import { v2CreateBy } from './v2-contact-shape.js';

/** v2's identifiers: a contact is named by `email:` or `phone:` in the path. */
const V2_IDENTIFIER_FIELDS = new Set(['email', 'phone']);

/** The Developer API v2: lists 100 a page, a key in email or phone read and upserted directly, sends readable. */
export const V2_SURFACE: PlatformSurface = {
  name: 'v2',
  listPageSize: V2_MAX_PAGE_SIZE,
  searchPageSize: V2_MAX_PAGE_SIZE,
  tagsPerCall: 10,
  directLookup: (keyField) => V2_IDENTIFIER_FIELDS.has(keyField),
  upsertBy: (keyField) => V2_IDENTIFIER_FIELDS.has(keyField),
  sendsReadable: true,
  deletes: true,
  merges: true,
  createLandsOn: (fields) => {
    const creatable = v2CreateBy(fields);
    return creatable.ok ? creatable.by : undefined;
  },
  createRefusal: (fields) => {
    const creatable = v2CreateBy(fields);
    return creatable.ok ? undefined : creatable.error;
  },
};
