/** `--max-duration`: when to stop taking rows so those in flight finish by the deadline. */
import { type PlatformSurface } from '../../src/api/platform-surface.js';
import { V1_SURFACE } from '../../src/api/v1/surface.js';
import { V2_SURFACE } from '../../src/api/v2/surface.js';
import { pastTakingTime, timeToFinishMs, type FinishEstimate } from '../../src/pipeline/run/deadline.js';
import { rowCallsAtMost, unreadRowCallsAtLeast } from '../../src/pipeline/row/row-calls.js';
import type { ContactDraft } from '../../src/pipeline/map/contact-draft.js';

describe('the deadline', () => {
  // 100 calls a minute: 600 ms between calls.
  const estimate: FinishEstimate = { inFlight: 8, callsPerRow: 2, callsAtMost: 24, spacingMs: 600, slowestRowMs: 1500 };

  it('rows in flight need their calls at the allowed pace, plus the slowest row seen', () => {
    // 8 rows x 2 calls x 600 ms + 1.5 s.
    expect(timeToFinishMs(estimate)).toBe(11_100);
  });

  it('takes a row only while it and those in flight can still finish before the deadline', () => {
    const deadline = 1_000_000;
    expect(pastTakingTime(deadline - 11_101, deadline, estimate)).toBe(false);
    expect(pastTakingTime(deadline - 11_100, deadline, estimate)).toBe(true);
    expect(pastTakingTime(deadline - 60_000, deadline, { ...estimate, inFlight: 100 })).toBe(true);
  });

  // Issue 29: `--max-duration 10s` at 100/min ran 15 to 31 s. The rows are taken at once, before any
  // finished; at the old guess of 2 calls a row, 8 new rows (a search, a create, a tag call: 3
  // calls each) looked like 9.6 s and took 14.4 s of calls at the limiter's pace.
  test.each([
    { name: 'before any row finished: the most calls the rows in flight can make', taken: 8, callsPerRow: undefined, callsAtMost: 8 * 3, ms: 14_400, takesNext: false },
    { name: 'before any row finished: 5 new rows fit in 10 s (15 calls, 9 s)', taken: 5, callsPerRow: undefined, callsAtMost: 5 * 3, ms: 9_000, takesNext: true },
    { name: 'once rows finished: their calls per row', taken: 8, callsPerRow: 3, callsAtMost: 8 * 5, ms: 14_400, takesNext: false },
  ])('$name', ({ taken, callsPerRow, callsAtMost, ms, takesNext }) => {
    const reckoning: FinishEstimate = { inFlight: taken, callsPerRow, callsAtMost, spacingMs: 600, slowestRowMs: 0 };
    expect(timeToFinishMs(reckoning)).toBe(ms);
    // Started at 0 with --max-duration 10s.
    expect(pastTakingTime(0, 10_000, reckoning)).toBe(!takesNext);
  });
});

describe('rowCallsAtMost', () => {
  const draft = (fields: number, tagsToAdd: number, tagsToRemove = 0): ContactDraft => ({
      line: 2,
      key: 'K1',
      keyField: 'customerid',
      fields: Object.fromEntries(Array.from({ length: fields }, (_v, i) => [`f${i}`, 'x'])),
      tagsToAdd: Array.from({ length: tagsToAdd }, (_v, i) => `t${i}`),
      tagsToRemove: Array.from({ length: tagsToRemove }, (_v, i) => `r${i}`),
      templateValues: {},
    });

  test.each([
    { name: 'a search, a create and a tag call', fields: 3, tags: 2, remove: 0, calls: 3 },
    { name: 'no tags: a search and a create', fields: 3, tags: 0, remove: 0, calls: 2 },
    { name: '40 fields: the create carries 30 with the key, an update the rest; 11 tags in 2 calls', fields: 40, tags: 11, remove: 0, calls: 5 },
    { name: 'tags removed: an update of a known contact can be the wider plan', fields: 3, tags: 1, remove: 25, calls: 6 },
  ])('$name: $calls on v1 and on v2 (10 tags a call on both)', ({ fields, tags, remove, calls }) => {
    expect([rowCallsAtMost(draft(fields, tags, remove), V1_SURFACE), rowCallsAtMost(draft(fields, tags, remove), V2_SURFACE)]).toEqual([calls, calls]);
  });

  it('v2: a create by the row\'s email or phone, the key another field, reads the holder first: one call more', () => {
    const withEmail: ContactDraft = { ...draft(3, 2), fields: { firstName: 'Ada', email: 'ada@example.com' } };
    const byEmailKey: ContactDraft = { ...withEmail, key: 'ada@example.com', keyField: 'email', fields: { firstName: 'Ada' } };
    expect([rowCallsAtMost(withEmail, V1_SURFACE), rowCallsAtMost(withEmail, V2_SURFACE), rowCallsAtMost(byEmailKey, V2_SURFACE)]).toEqual([3, 4, 3]);
  });

  it('chunks the tags by the surface it is given, not by a number of its own', () => {
    // 11 tags: 2 calls at 10 a call, 4 at 3 a call; the create and the search are the same.
    const threeTags: PlatformSurface = { ...V1_SURFACE, tagsPerCall: 3 };
    expect([rowCallsAtMost(draft(3, 11), V1_SURFACE), rowCallsAtMost(draft(3, 11), threeTags)]).toEqual([4, 6]);
  });
});

describe('unreadRowCallsAtLeast: the fewest calls of a row not read yet', () => {
  test.each<{ surface: PlatformSurface; keyField: string; calls: number; why: string }>([
    { surface: V1_SURFACE, keyField: 'customerid', calls: 2, why: 'v1: a search, then a write' },
    { surface: V1_SURFACE, keyField: 'email', calls: 2, why: 'v1 reads no key directly, whatever its field' },
    { surface: V2_SURFACE, keyField: 'email', calls: 1, why: 'v2, a key in email: one create_or_update' },
    { surface: V2_SURFACE, keyField: 'phone', calls: 1, why: 'v2, a key in phone: one create_or_update' },
    { surface: V2_SURFACE, keyField: 'customerid', calls: 2, why: 'v2, a key in a custom field: a list filtered on it, then a write' },
  ])('$surface.name, key in $keyField: $calls ($why)', ({ surface, keyField, calls }) => {
    expect(unreadRowCallsAtLeast(surface, keyField)).toBe(calls);
  });
});
