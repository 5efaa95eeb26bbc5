/**
 * The `match.prefetch` step of a run (issue 25): the pages are read only when they can save calls.
 * While onDuplicateRows' first read of the file goes by (`source/repeated-keys.ts`), it counts the
 * keys of this run that the state store does not know, up to the pages the known keys would take;
 * then the pure choice (`row/prefetch-choice.ts`) decides, and the step pages or not.
 */
import type { ContactsApi } from '../api/contacts-api.js';
import { listPagesFor, type PlatformSurface } from '../api/platform-surface.js';
import { PageLimitError } from '../api/errors.js';
import type { Job } from '../config/job-types.js';
import type { PrefetchStore } from '../state/state-port.js';
import { abortReason } from './abort-reason.js';
import { JobAbortError } from './job-abort.js';
import type { JobSummary } from './report/job-summary.js';
import { prefetchContacts, type ContactIndex } from './row/contact-index.js';
import { CountedApi } from './row/counted-api.js';
import { isFresh, type FreshReads } from './row/fresh-read.js';
import { choosePrefetch, type PrefetchChoice } from './row/prefetch-choice.js';

/** The part of the state store the prefetch choice reads: how many keys it knows, and whether it knows (or a fresh reconcile read) a key. */

export class PrefetchStep {
  #unknown = 0;
  readonly #limit: number;
  readonly #knownKeys: number;
  #counted = false;

  /** The step of a job with `match.prefetch`; undefined without one. */
  static of(
    job: Job,
    run: {
      readonly state?: PrefetchStore;
      readonly full: boolean;
      readonly mine: (key: string) => boolean;
      readonly freshReads?: FreshReads;
      /** The platform's surface (`api.surface`): how many contacts one page of its list holds; a key whose id came from another surface is searched, as an unknown one. */
      readonly surface: Pick<PlatformSurface, 'name' | 'listPageSize'>;
    },
  ): PrefetchStep | undefined {
    if (job.match.prefetch === undefined) return undefined;
    const noStore = run.state !== undefined ? undefined : job.state === false ? 'state-false' : 'not-created';
    return new PrefetchStep(job.match.prefetch, job.key.field, run.state, noStore, run.full, run.mine, run.freshReads, run.surface);
  }

  private constructor(
    private readonly marker: { field: string; value: string },
    private readonly keyField: string,
    private readonly state: PrefetchStore | undefined,
    /** Why `state` is undefined: the job keeps no store, or its file is not there yet (a dry run before the first run). */
    private readonly noStore: 'state-false' | 'not-created' | undefined,
    private readonly full: boolean,
    private readonly mine: (key: string) => boolean,
    private readonly freshReads: FreshReads | undefined,
    private readonly surface: Pick<PlatformSurface, 'name' | 'listPageSize'>,
  ) {
    this.#knownKeys = state === undefined || full ? 0 : state.summary().keys;
    this.#limit = listPagesFor(surface, this.#knownKeys);
  }

  /**
   * For the first read of the file: each row's key. Past the limit the count stops (paging wins
   * already), so a file of new keys costs no lookup past it.
   */
  readonly see = (key: string): void => {
    this.#counted = true;
    if (this.state === undefined || this.full || this.#unknown > this.#limit || !this.mine(key)) return;
    // A key the reconcile right before this run read absent needs no search either (row/fresh-read.ts).
    if (this.state.knows(key, this.surface.name) || (this.freshReads !== undefined && isFresh(this.state.absentRead(key), this.freshReads))) return;
    this.#unknown++;
  };

  /** Which way the run goes, and why. */
  choice(): PrefetchChoice {
    // No first read (`mode: message` reads no keys ahead): page as before, not knowing better.
    if (!this.#counted && this.state !== undefined && !this.full && this.#knownKeys > 0) return { use: true, reason: 'the keys of the file were not read ahead (mode: message)' };
    return choosePrefetch({ searchesEveryKey: this.state === undefined || this.full, full: this.full, ...(this.noStore === undefined ? {} : { noStore: this.noStore }), knownKeys: this.#knownKeys, unknownKeys: this.#unknown }, this.surface);
  }

  /**
   * Pages when the choice says so; the index, if any, and the summary.json entry. A listing that
   * cannot finish (a list that grew past its cap, a refused token) is the job's abort, returned,
   * so the run takes no row and still writes every report saying why. A listing `signal`
   * interrupts (SIGINT, SIGTERM) asks for no further page and gives no index: the run it belongs
   * to is interrupted too, and takes no row.
   */
  async run(
    api: ContactsApi,
    choice: PrefetchChoice,
    job: Job,
    signal?: AbortSignal,
  ): Promise<{ index?: ContactIndex; abort?: JobAbortError; summarize: () => NonNullable<JobSummary['prefetch']> }> {
    if (!choice.use) return { summarize: () => ({ used: false, reason: choice.reason, contacts: 0, calls: 0, searchesSaved: 0 }) };
    const counted = new CountedApi(api);
    try {
      const index = await prefetchContacts(counted, this.marker, this.keyField, signal);
      if (index === undefined) {
        const reason = `${choice.reason}; the listing was interrupted (${String(signal?.reason)}) after ${counted.calls} call${counted.calls === 1 ? '' : 's'}`;
        return { summarize: () => ({ used: false, reason, contacts: 0, calls: counted.calls, searchesSaved: 0 }) };
      }
      return { index, summarize: () => ({ used: true, reason: choice.reason, contacts: index.size, calls: index.calls, searchesSaved: index.hits }) };
    } catch (error) {
      const abort = listingAbort(error, job);
      if (abort === undefined) throw error;
      const reason = `${choice.reason}; the listing stopped after ${counted.calls} call${counted.calls === 1 ? '' : 's'} (${abort.code}), see aborted`;
      return { abort, summarize: () => ({ used: false, reason, contacts: 0, calls: counted.calls, searchesSaved: 0 }) };
    }
  }
}

/** Why a listing of the marked contacts stops the job; undefined for an API failure it leaves to the caller. */
function listingAbort(error: unknown, job: Job): JobAbortError | undefined {
  if (error instanceof PageLimitError) return new JobAbortError('PAGE_LIMIT', `the marked contacts (match.prefetch) could not be listed: ${error.message}`, { cause: error });
  return abortReason(error, job, 'when listing the marked contacts (match.prefetch)');
}
