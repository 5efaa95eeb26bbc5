/**
 * v2's pages (`POST /contact/list`, a contact's message list): `?limit=1..100&cursorId=N`, items
 * in increasing id, a page holds the items after the cursor; the answer's `pagination` has the
 * URLs of the next and previous pages, `""` where there is none (the SDK's `PaginationResponse`
 * and its tests' samples, src/types/common.ts and tests/clients/*.test.ts).
 */
import { V2_DEFAULT_PAGE_SIZE, V2_MAX_PAGE_SIZE } from '../../limits.js';
import { badRequest } from './v2-errors.js';

export interface PageRequest {
  limit: number;
  /** Items with a greater id than this; undefined: from the first. */
  cursorId: number | undefined;
}

export interface Page<T> {
  items: T[];
  pagination: { next: string; previous: string };
}

export function readPageRequest(query: Readonly<Record<string, unknown>>): PageRequest {
  const limitText = query.limit;
  const cursorText = query.cursorId;
  let limit = V2_DEFAULT_PAGE_SIZE;
  if (limitText !== undefined) {
    if (typeof limitText !== 'string' || !/^\d{1,4}$/.test(limitText) || Number(limitText) < 1 || Number(limitText) > V2_MAX_PAGE_SIZE) {
      throw badRequest(`limit must be a whole number from 1 to ${V2_MAX_PAGE_SIZE}, got ${JSON.stringify(limitText)}`);
    }
    limit = Number(limitText);
  }
  let cursorId: number | undefined;
  if (cursorText !== undefined) {
    if (typeof cursorText !== 'string' || !/^\d{1,16}$/.test(cursorText) || !Number.isSafeInteger(Number(cursorText))) {
      throw badRequest(`cursorId must be the id of the last item of the previous page (a whole number), got ${JSON.stringify(cursorText)}`);
    }
    cursorId = Number(cursorText);
  }
  return { limit, cursorId };
}

/**
 * One page of `sorted` (in increasing `idOf`), with the URLs of its neighbours: `pageUrl` is the
 * endpoint's absolute URL, to which `limit` and `cursorId` are added.
 */
export function cursorPage<T>(sorted: readonly T[], idOf: (item: T) => number, request: PageRequest, pageUrl: string): Page<T> {
  const { limit, cursorId } = request;
  const start = cursorId === undefined ? 0 : countUpTo(sorted, idOf, cursorId);
  const items = sorted.slice(start, start + limit);
  const link = (cursor: number | undefined): string => `${pageUrl}?limit=${limit}${cursor === undefined ? '' : `&cursorId=${cursor}`}`;
  const last = items.at(-1);
  const next = last !== undefined && start + limit < sorted.length ? link(idOf(last)) : '';
  let previous = '';
  if (start > 0) {
    const previousStart = Math.max(0, start - limit);
    const before = sorted[previousStart - 1];
    previous = link(before === undefined ? undefined : idOf(before));
  }
  return { items, pagination: { next, previous } };
}

/** How many items have an id up to `id`. */
function countUpTo<T>(sorted: readonly T[], idOf: (item: T) => number, id: number): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (idOf(sorted[middle] as T) <= id) low = middle + 1;
    else high = middle;
  }
  return low;
}
