/**
 * The verification step (`verify: { share }`, issue 38), run by a job after a complete read of
 * its rows (after the departed step): it spends at most floor(share x the keys the state trusts)
 * calls re-reading contacts the state trusts and this run did not touch, least recently verified
 * first (by the `match.prefetch` marker's pages, round robin, when they read everyone sooner), and
 * repairs what differs to what the state says the job last wrote. A kind of the run engine
 * (`run/run-engine.ts`): its units are the keys (or the pages) to read, under a stop policy on the
 * run's signal and deadline (cut short, the rest is the next night's; the run's status stays); its row work a read, the pure `verify-plan.ts` verdict, and the repair through the one
 * writer (`writeKnownContact`), each call journalled (undo takes a repair back); its report lines
 * go to changes.csv, its figures to summary.json `verified`, `drift` and `verification`.
 *
 * A dry run reads nothing (docs/decisions.md, "Verification within the budget"): it says how many
 * reads the real run would make, and adds them to its estimate of the real run.
 */
import { ApiError, NoSuchContactError } from '../../api/errors.js';
import type { ContactsApi } from '../../api/contacts-api.js';
import type { Job, VerifySpec } from '../../config/job-types.js';
import { trustedOn, type KnownContact, type StoredContact } from '../../state/known-contact.js';
import type { VerifyStore } from '../../state/state-port.js';
import { abortReason } from '../abort-reason.js';
import { knownKeysNow } from '../departed/settle-departed.js';
import type { JobAbortError } from '../job-abort.js';
import type { WithheldCalls } from '../real-run-estimate.js';
import { RowDispatcher } from '../run/row-dispatcher.js';
import { CountedApi } from '../row/counted-api.js';
import { writeKnownContact } from '../row/write.js';
import { runEngine, type RunKind } from '../run/run-engine.js';
import type { StopPolicy } from '../run/stop-policy.js';
import type { UnitIntake } from '../run/unit-loop.js';
import type { ChangeLine } from '../report/row-outcome.js';
import type { Operation } from '../row/plan.js';
import { chooseVerifyReads, nextPageAfter, verifyBudget, verifyContact, type VerifyReads } from './verify-plan.js';

/** The part of the state store verification uses: the trusted keys by when they were verified, the pages' round robin, the journal. */

export interface VerifyStepOptions {
  readonly api: ContactsApi;
  readonly job: Job & { verify: VerifySpec };
  readonly state: VerifyStore;
  /** Plan and count, read and write nothing. */
  readonly dryRun: boolean;
  /** The keys this run answers for (its shard's). */
  readonly inScope: (key: string) => boolean;
  /** A key whose record was written at or after this time (ms, the state's clock) was touched by this run: not re-read. */
  readonly touchedSince: number;
  /** Its stop policy, on the run's signal and deadline: keys it does not take are verified by a later run. */
  readonly policy: StopPolicy;
  /** Dry run: the reads it would make, for its estimate of the real run. */
  readonly withheld?: WithheldCalls | undefined;
  /** A contact repaired: its changes.csv lines (the platform's value, the state's) and the writes it took. */
  readonly onRepair: (key: string, changes: readonly ChangeLine[], writes: readonly Operation[]) => void;
}

/** summary.json `verification`. */
export interface VerifySummary {
  /** `verify.share`, percent. */
  sharePercent: number;
  /** Keys the state trusts (known, not departed, in this run's scope). */
  trustedKeys: number;
  /** floor(share x trustedKeys): the most reads this run may make. */
  budget: number;
  /** `contacts` (one GET a key), `pages` (the marker's pages) or `none`. */
  by: VerifyReads['by'];
  reason: string;
  /** The marker's pages read, when by pages. */
  pages?: number[];
  /** Reads made (a dry run: the reads the real run would make, none made). */
  reads: number;
  /** Contacts re-read and compared. */
  verified: number;
  /** Of those, contacts found different from what the state says the job wrote, and repaired. */
  drift: number;
  /** Contacts whose read or repair failed (the next run tries again). */
  failed: number;
  /** Trusted keys whose contact no longer exists: the state forgot them (the next run's row searches again). */
  gone: number;
  /** Write calls of the repairs. */
  repairCalls: number;
  /** Units (keys or pages) the run stopped before, or did not read once the reads' requests (retries included) reached the budget. */
  notReached: number;
  dryRun: boolean;
}

export interface VerifyStep {
  readonly summary: VerifySummary;
}

/** A unit read, as the engine counts it. */
interface UnitRead {
  readonly calls: number;
  readonly abort?: JobAbortError;
  readonly verified: number;
  readonly drift: number;
  readonly failed: number;
  readonly gone: number;
  readonly repairCalls: number;
}

type Unit = { readonly kind: 'contact'; readonly record: StoredContact } | { readonly kind: 'page'; readonly page: number };

export async function verifyTrusted(options: VerifyStepOptions): Promise<VerifyStep> {
  const { job, state, policy } = options;
  const trustedKeys = knownKeysNow(state, options.inScope);
  const budget = verifyBudget(job.verify.sharePercent, trustedKeys);
  const marker = job.match.prefetch;
  const pagesKnown = state.verifyPages();
  const candidates = budget === 0 ? [] : leastRecentlyVerified(state, options, budget);
  const reads = chooseVerifyReads({
    budget,
    trustedKeys,
    candidates: candidates.length,
    marker: marker !== undefined,
    listPageSize: options.api.surface.listPageSize,
    markerPages: pagesKnown.known,
    nextPage: pagesKnown.next,
  });
  const summary: VerifySummary = {
    sharePercent: job.verify.sharePercent,
    trustedKeys,
    budget,
    by: reads.by,
    reason: reads.reason,
    ...(reads.by === 'pages' ? { pages: [...reads.pages] } : {}),
    reads: 0,
    verified: 0,
    drift: 0,
    failed: 0,
    gone: 0,
    repairCalls: 0,
    notReached: 0,
    dryRun: options.dryRun,
  };
  if (reads.by === 'none') return { summary };
  if (options.dryRun) {
    // A dry run reads nothing: the reads are the real run's, counted in its estimate.
    summary.reads = reads.calls;
    if (options.withheld !== undefined) options.withheld.byOperation[reads.by === 'pages' ? 'searchContacts' : 'getContact'] += reads.calls;
    return { summary };
  }

  // The budget is of requests, retries included (issue 42: under 429s the reads promised as 40
  // made 200): each unit started is its first request, and every retry of a read one more; a unit
  // that would start with the budget spent is not read, the next run reads it.
  const { byOperation } = options.api.stats;
  const readRetries = (): number => byOperation.getContact.retries + byOperation.searchContacts.retries;
  const retriesBefore = readRetries();
  let started = 0;
  let overBudget = 0;
  const withinBudget = (read: () => Promise<UnitRead>): Promise<UnitRead> => {
    if (started + readRetries() - retriesBefore >= budget) {
      overBudget += 1;
      return Promise.resolve({ ...NOTHING, calls: 0 });
    }
    started += 1;
    return read();
  };
  const units: Unit[] = reads.by === 'pages' ? reads.pages.map((page) => ({ kind: 'page', page })) : candidates.slice(0, reads.calls).map((record) => ({ kind: 'contact', record }));
  const pages = { last: 0, known: pagesKnown.known };
  const verifying: RunKind<Unit, UnitRead, VerifySummary> = {
    units,
    work: {
      callsAtMost: () => 1,
      intake: (unit): UnitIntake<UnitRead> => ({
        kind: 'dispatch',
        key: unit.kind === 'contact' ? unit.record.key : `page ${unit.page}`,
        callsAtMost: 1,
        run: () => withinBudget(() => (unit.kind === 'contact' ? verifyByGet(unit.record, options) : verifyPage(unit.page, pages, options))),
        // Queued when the run aborted: a later run verifies it.
        notSent: () => undefined,
      }),
      finish: (read) => {
        summary.reads += read.calls - read.repairCalls;
        summary.verified += read.verified;
        summary.drift += read.drift;
        summary.failed += read.failed;
        summary.gone += read.gone;
        summary.repairCalls += read.repairCalls;
      },
    },
    closeUnits: () => undefined,
    journalRows: () => ({}),
    needsLook: () => summary.failed > 0,
    summarize: ({ notReached }) => {
      summary.notReached = notReached + overBudget;
      return { summary };
    },
  };
  // Pages one at a time, in order: a page past the marker's last is not read, and the next run starts after the last read.
  const dispatcher = new RowDispatcher(reads.by === 'pages' ? 1 : job.concurrency);
  const ended = await runEngine(verifying, { policy, dispatcher });
  if (reads.by === 'pages' && pages.last > 0 && pages.known !== undefined) state.recordVerifyPages(nextPageAfter(pages.last, pages.known), pages.known);
  return { summary: ended.summary };
}

/**
 * The trusted keys in scope this run did not touch, least recently verified first, at most `count`.
 * A key whose id came from the other surface is not trusted here: its next row matches it again.
 */
function leastRecentlyVerified(state: VerifyStore, options: VerifyStepOptions, count: number): StoredContact[] {
  const found: StoredContact[] = [];
  const surface = options.api.surface.name;
  state.scanByVerified((key) => {
    if (!key.departed && trustedOn(key, surface) && options.inScope(key.key) && key.record.updatedAt < options.touchedSince) found.push(key.record);
    return found.length < count;
  });
  return found;
}

const NOTHING = { verified: 0, drift: 0, failed: 0, gone: 0, repairCalls: 0 } as const;

/** One key: its contact read by id, compared, repaired when it drifted. */
async function verifyByGet(record: StoredContact, options: VerifyStepOptions): Promise<UnitRead> {
  const api = new CountedApi(options.api);
  let read: KnownContact;
  try {
    read = await api.getContact(record.contact.id);
  } catch (error) {
    if (error instanceof NoSuchContactError) {
      // Deleted on the platform: the key's next row searches (or creates) it again.
      options.state.forget(record.key);
      return { ...NOTHING, calls: api.calls, gone: 1 };
    }
    return { ...failedRead(error, options.job, record.key), calls: api.calls };
  }
  return settleRead(record, read, api, options);
}

/** One page of the marker: every contact on it the state trusts (and this run did not touch) compared, the drifted repaired. */
async function verifyPage(page: number, pages: { last: number; known: number | undefined }, options: VerifyStepOptions): Promise<UnitRead> {
  // The marker has fewer pages than this run planned (it learnt so from an earlier page): nothing to read.
  if (pages.known !== undefined && pages.last > 0 && page > pages.known) return { ...NOTHING, calls: 0 };
  const marker = options.job.match.prefetch;
  if (marker === undefined) return { ...NOTHING, calls: 0 };
  const api = new CountedApi(options.api);
  let contacts: KnownContact[];
  try {
    const answer = await api.searchContactsPage(marker.field, marker.value, page);
    contacts = answer.items;
    pages.known = Math.max(1, answer.pages ?? answer.next ?? page);
    pages.last = page;
  } catch (error) {
    return { ...failedRead(error, options.job, `page ${page} of the marker`), calls: api.calls };
  }
  const tally = { ...NOTHING, calls: 0 } as { -readonly [K in keyof UnitRead]: UnitRead[K] };
  for (const contact of contacts) {
    const key = contact.custom_fields[options.job.key.field];
    if (key === undefined || !options.inScope(key)) continue;
    const record = options.state.get(key);
    if (record === undefined || !trustedOn(record, options.api.surface.name) || record.updatedAt >= options.touchedSince || options.state.departedRecord(key) !== undefined) continue;
    const settled = await settleRead(record, contact, api, options);
    tally.verified += settled.verified;
    tally.drift += settled.drift;
    tally.failed += settled.failed;
    tally.repairCalls += settled.repairCalls;
    if (settled.abort !== undefined) return { ...tally, calls: api.calls, abort: settled.abort };
  }
  return { ...tally, calls: api.calls };
}

/** A key's contact read: the verdict, the repair through the writer (journalled), the key marked verified. */
async function settleRead(record: StoredContact, read: KnownContact, api: CountedApi, options: VerifyStepOptions): Promise<UnitRead> {
  const verdict = verifyContact(record, read, options.job, options.api.surface);
  if (verdict.status === 'other-contact') return { ...NOTHING, calls: api.calls };
  if (verdict.status === 'same') {
    options.state.markVerified([[record.key, record.contact.id]]);
    return { ...NOTHING, calls: api.calls, verified: 1 };
  }
  const before = api.calls;
  const confirmed: Operation[] = [];
  try {
    // The same writer as a sync's update, each call journalled: undo takes a repair back.
    await writeKnownContact(api, verdict.plan, record.key, record.contact.id, options.state, confirmed);
  } catch (error) {
    if (confirmed.length > 0) options.onRepair(record.key, verdict.changes, confirmed);
    return { ...failedRead(error, options.job, record.key), calls: api.calls, verified: 1, repairCalls: api.calls - before };
  }
  options.state.markVerified([[record.key, record.contact.id]]);
  options.onRepair(record.key, verdict.changes, confirmed);
  return { ...NOTHING, calls: api.calls, verified: 1, drift: 1, repairCalls: api.calls - before };
}

/** A read or repair that failed: the job's abort when it is one (a refused token...), else the key's failure. */
function failedRead(error: unknown, job: Job, what: string): Omit<UnitRead, 'calls'> {
  const abort = abortReason(error, job, `when verifying ${what}`);
  if (abort !== undefined) return { ...NOTHING, failed: 1, abort };
  if (error instanceof ApiError) return { ...NOTHING, failed: 1 };
  throw error;
}
