/**
 * `forget --platform` (docs/personal-data.md, "Erasure reaches the platform"): an erasure request
 * that reaches the third party. A kind of the one run engine (`run/run-engine.ts`), whose units are
 * the keys: each key's contacts are found (the one the state store knows, learnt on this surface,
 * and each the platform's lookup of the key by the job's key field finds: a contact the store
 * forgot, and duplicates), planned by the pure `erasure-plan.ts`, deleted through the one writer
 * (`row/write.ts`; a 404 is a contact gone already, counted deleted), and only then is the key
 * erased from the store: a failure on the way leaves the store knowing what a re-run deletes.
 * On a surface that cannot delete (v1) nothing is deleted: the store is erased, and the contacts
 * are listed for a person to delete (exit 1). No value is journalled: the deletes are given no
 * journal hook, and the run's line holds counts only.
 */
import { NoSuchContactError, type ApiError } from '../../api/errors.js';
import type { ContactsApi } from '../../api/contacts-api.js';
import type { Job } from '../../config/job-types.js';
import { trustedOn } from '../../state/known-contact.js';
import type { ErasedKey, KeyReads, PersonalDataStore, RunJournalStore } from '../../state/state-port.js';
import { abortReason } from '../abort-reason.js';
import type { JobAbortError } from '../job-abort.js';
import { normalKey } from '../map/key-value.js';
import { contactSpacingMs } from '../real-run-estimate.js';
import { CountedApi } from '../row/counted-api.js';
import { findContactsByKey } from '../row/match.js';
import { executePlan } from '../row/write.js';
import { RowDispatcher } from '../run/row-dispatcher.js';
import { runEngine, type RunKind } from '../run/run-engine.js';
import { startJournal } from '../run/run-journal-lines.js';
import { StopPolicy } from '../run/stop-policy.js';
import type { RunStatus } from '../../state/run-journal.js';
import { erasureOutcome, needsLook, planErasure, type ErasureOutcome, type ErasurePlan } from './erasure-plan.js';

/** The part of the state store `forget --platform` uses: the key's record, the erasure, its own line in the journal of runs. */
export type ErasureStore = KeyReads & PersonalDataStore & RunJournalStore;

export interface PlatformErasureOptions {
  readonly job: Job;
  readonly api: ContactsApi;
  /** The job's state store; undefined where it keeps none (`state: false`, or no run yet): the lookup alone finds the contacts. */
  readonly state: ErasureStore | undefined;
  readonly keys: readonly string[];
  /** Look up and count, change nothing: no delete, the store untouched. */
  readonly dryRun: boolean;
  readonly signal?: AbortSignal | undefined;
  /** ms since the Unix epoch: take no key after it (`--max-duration`). */
  readonly deadline?: number | undefined;
  /** The journal's command line: flags and counts, never a key. */
  readonly argv: string;
  /** @default () => new Date() */
  readonly now?: () => Date;
}

/** What became of one key. */
export interface KeyErasureResult {
  readonly key: string;
  readonly outcome: ErasureOutcome;
  /** Every contact found holding the key (the store's and the lookup's). */
  readonly contactIds: readonly string[];
  /** Deleted now (a dry run: to delete). */
  readonly deleted: readonly string[];
  /** Gone already (404): counted deleted. */
  readonly gone: readonly string[];
  /** A surface that cannot delete: a person's to delete. */
  readonly byHand: readonly string[];
  /** What left the store (a dry run: would leave); undefined when it was not erased (a failure, not reached) or there is no store. */
  readonly store: ErasedKey | undefined;
  readonly error?: { readonly code: string; readonly message: string } | undefined;
}

export interface PlatformErasure {
  readonly keys: readonly KeyErasureResult[];
  readonly status: RunStatus;
  readonly exitCode: number;
  readonly abort?: { readonly code: string; readonly message: string } | undefined;
}

/** One key's search and its one delete: what `--max-duration` reckons a key at (duplicates make more). */
const KEY_ERASURE_CALLS = 2;

type ErasedUnit = KeyErasureResult & { readonly calls: number; readonly abort?: JobAbortError | undefined };

export async function erasePlatformContacts(options: PlatformErasureOptions): Promise<PlatformErasure> {
  const { job, api, state } = options;
  const now = options.now ?? (() => new Date());
  const policy = new StopPolicy({ signal: options.signal, deadline: options.deadline, now, spacingMs: contactSpacingMs(api.pace()) });
  // The erasure is a run of the job: its line holds counts only (an erasure keeps no key, no value).
  const started = options.dryRun || state === undefined ? undefined : startJournal(state, { job: job.name, argv: options.argv, full: false, surface: api.surface.name }, job);
  policy.abortWith(started?.abort);
  const done = new Map<string, KeyErasureResult>();
  const kind: RunKind<string, ErasedUnit, PlatformErasure['keys']> = {
    units: options.keys,
    work: {
      callsAtMost: () => KEY_ERASURE_CALLS,
      intake: (key) => ({
        kind: 'dispatch',
        key,
        callsAtMost: KEY_ERASURE_CALLS,
        run: () => eraseKey(key, options),
        notSent: (abort) => ({ ...untouched(key, 'not-reached'), error: { code: 'ABORTED', message: `not sent: the forget stopped (${abort.code}): ${abort.message}` }, calls: 0 }),
      }),
      finish: (unit) => {
        const { calls: _calls, abort: _abort, ...result } = unit;
        done.set(unit.key, result);
      },
    },
    closeUnits: () => undefined,
    journalRows: (notReached) => {
      const results = [...done.values()];
      const count = (outcome: ErasureOutcome): number => results.filter((result) => result.outcome === outcome).length;
      return {
        total: options.keys.length,
        erased: results.filter((result) => result.store?.known === true).length,
        deleted: results.reduce((sum, result) => sum + result.deleted.length + result.gone.length, 0),
        byHand: results.reduce((sum, result) => sum + result.byHand.length, 0),
        unknown: count('unknown'),
        failed: count('failed'),
        notReached: notReached + count('not-reached'),
      };
    },
    needsLook: () => needsLook([...done.values()].map((result) => result.outcome)),
    summarize: () => ({ summary: options.keys.map((key) => done.get(key) ?? untouched(key, 'not-reached')) }),
  };
  const run = await runEngine(kind, { policy, dispatcher: new RowDispatcher(job.concurrency), signal: options.signal, journal: started?.runId === undefined || state === undefined ? undefined : { state, runId: started.runId, job } });
  const abort = policy.abort;
  return { keys: run.summary, status: run.status, exitCode: run.exitCode, ...(abort === undefined ? {} : { abort: { code: abort.code, message: abort.message } }) };
}

function untouched(key: string, outcome: ErasureOutcome): KeyErasureResult {
  return { key, outcome, contactIds: [], deleted: [], gone: [], byHand: [], store: undefined };
}

/** One key: its contacts found, deleted (or listed), then the store erased unless a delete failed. */
async function eraseKey(key: string, options: PlatformErasureOptions): Promise<ErasedUnit> {
  const api = new CountedApi(options.api);
  const { job, state } = options;
  let plan: ErasurePlan | undefined;
  const deleted: string[] = [];
  const gone: string[] = [];
  try {
    const known = state?.get(key);
    const storeId = known !== undefined && trustedOn(known, api.surface.name) ? known.contact.id : undefined;
    const found = await findContactsByKey(api, job.key.field, normalKey(job.key.field, key));
    plan = planErasure({ storeId, found: found.map((contact) => contact.id), deletes: api.surface.deletes });
    if (options.dryRun) {
      const store = state?.eraseKeys([key], { dryRun: true })[0];
      const outcome = erasureOutcome({ storeKnew: store?.known === true, plan, failed: false, reached: true });
      return { key, outcome, contactIds: plan.contactIds, deleted: plan.deletions.map((deletion) => deletion.contactId ?? ''), gone, byHand: [...plan.byHand], store, calls: api.calls };
    }
    for (const deletion of plan.deletions) {
      const id = deletion.contactId ?? '';
      try {
        // No `confirmed` hook: the delete is not journalled (an erasure keeps no value).
        await executePlan(api, deletion, key, { findByKey: () => Promise.resolve([]) }, { contactId: id });
        deleted.push(id);
      } catch (error) {
        if (!(error instanceof NoSuchContactError)) throw error;
        gone.push(id);
      }
    }
    // Every contact holding the key is gone from the platform (or a person's to delete): now the store.
    const store = state?.eraseKeys([key])[0];
    const outcome = erasureOutcome({ storeKnew: store?.known === true, plan, failed: false, reached: true });
    return { key, outcome, contactIds: plan.contactIds, deleted, gone, byHand: [...plan.byHand], store, calls: api.calls };
  } catch (error) {
    const abort = abortReason(error, job, `erasing the contacts of key ${key}`);
    const failure = abort ?? (error as ApiError);
    return {
      key,
      outcome: erasureOutcome({ storeKnew: true, plan, failed: true, reached: true }),
      contactIds: plan?.contactIds ?? [],
      deleted,
      gone,
      byHand: [],
      store: undefined,
      error: { code: failure.code, message: failure.message },
      calls: api.calls,
      ...(abort === undefined ? {} : { abort }),
    };
  }
}
