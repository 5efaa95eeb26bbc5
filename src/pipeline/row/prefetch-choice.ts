/**
 * Whether a run of a job with `match.prefetch` pages through the marked contacts, from what is
 * cheap to know before the first call (issue 25). The pages cost about one call per page of the
 * surface's list (`PlatformSurface.listPageSize`: 10 contacts on v1, 100 on v2); what they can
 * save is a search for each key of the file the run would otherwise search: every key without a
 * state store or under `--full`, else the keys the state store does not know (a known key is
 * matched from the state, never searched). Pure: counts and the surface's
 * page size in, choice out; test/pipeline/row/prefetch-choice.test.ts is its table, on each surface.
 */
import { listPagesFor, type PlatformSurface } from '../../api/platform-surface.js';

/** What the choice is made from. */
export interface PrefetchCounts {
  /** The run matches every key on the platform: no state store, or `--full`. */
  readonly searchesEveryKey: boolean;
  /** `--full` (said in the reason); meaningful with searchesEveryKey. */
  readonly full: boolean;
  /**
   * Why the run has no state store, said in the reason: the job keeps none (`state: false`), or
   * its file is not there yet (a dry run before the first run, which creates it). Undefined when
   * the run has one.
   */
  readonly noStore?: 'state-false' | 'not-created';
  /** Keys the state store knows: at least as many contacts carry the job's marker. */
  readonly knownKeys: number;
  /** Keys of the file the state store does not know (counting may stop past `listPagesFor(surface, knownKeys)`). */
  readonly unknownKeys: number;
}

export interface PrefetchChoice {
  /** Page through the marked contacts before the rows. */
  readonly use: boolean;
  /** Why, for summary.json and the log. */
  readonly reason: string;
}

/** `surface`: the page size its list holds (the planner reads the number, never the surface's name). */
export function choosePrefetch(counts: PrefetchCounts, surface: Pick<PlatformSurface, 'listPageSize'>): PrefetchChoice {
  if (counts.searchesEveryKey) {
    return { use: true, reason: `${counts.full ? '--full' : noStoreReason(counts.noStore)}: every key is matched on the platform` };
  }
  if (counts.knownKeys === 0) return { use: true, reason: 'the state store knows no key yet (a first import)' };
  // The state's keys are a floor on the marked contacts, so `pages` is a floor on what paging costs:
  // when the unknown keys are not more than it, searching them is never dearer than the pages.
  const pages = listPagesFor(surface, counts.knownKeys);
  if (counts.unknownKeys > pages) {
    return { use: true, reason: `more than ${pages} keys the state store does not know: their searches would cost more than the pages (about ${pages})` };
  }
  return {
    use: false,
    reason: `${counts.unknownKeys} key(s) the state store does not know: ${counts.unknownKeys} search(es) at most, fewer than the pages (at least ${pages} for the ${counts.knownKeys} known contacts)`,
  };
}

/** Why there is no state store, as the reason says it. */
function noStoreReason(noStore: PrefetchCounts['noStore']): string {
  switch (noStore) {
    case 'state-false':
      return 'state: false (the job keeps no state store)';
    case 'not-created':
      return 'no state store yet (a dry run before the first run, which creates it)';
    case undefined:
      return 'no state store';
  }
}
