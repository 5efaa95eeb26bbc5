/**
 * `undo`: puts back what one run changed (docs/undo.md). The same shape as a run: the journal of
 * the undone run is its source (folded per contact by `foldRunChanges`), the pure `planUndo` its
 * decision, the row writer (`row/write.ts`) runs the calls through the job's client and limiter, the
 * dispatcher (`row-dispatcher.ts`) keeps `concurrency` contacts in flight, and the undo is a run of
 * its own in the state store: its writes are journalled under its own id, so an undo can be undone.
 * Each contact the run changed is read first (one call): a field changed since the run is a
 * conflict, left as it is; one it created is only tagged (one call, no read), and so is one an undo
 * only tagged for deletion, untagged (undoing an undo). Killed and run again,
 * it finds what it already put back `unchanged`, and writes the rest. Every contact it reads or
 * tags has its state refreshed with no hashes, so the next run compares its file with it.
 * With `--delete-created` (a surface that deletes), a created contact is read and deleted unless
 * changed since the run (a conflict, kept); the deletion is journalled with its values, so undoing
 * this undo creates the contact again (`recreateDeleted`) and the store knows the new id.
 */
import { resolve } from 'node:path';
import { NoSuchContactError, type ApiError } from '../../api/errors.js';
import type { ContactsApi } from '../../api/contacts-api.js';
import type { Job } from '../../config/job-types.js';
import type { UndoStore } from '../../state/state-port.js';
import { abortReason } from '../abort-reason.js';
import type { JobAbortError } from '../job-abort.js';
import { closedUnitReport, reportWriteAbort, writeUnitReport } from '../run/unit-report.js';
import { UndoReport, type UndoContactResult, type UndoSummary } from '../report/undo-report.js';
import { jobMasker } from '../report/mask.js';
import { RowDispatcher } from '../run/row-dispatcher.js';
import { callsByOperation } from '../report/summary-figures.js';
import { contactSpacingMs } from '../real-run-estimate.js';
import { runEngine, type RunKind } from '../run/run-engine.js';
import { startJournal } from '../run/run-journal-lines.js';
import { StopPolicy } from '../run/stop-policy.js';
import { CountedApi } from '../row/counted-api.js';
import { trustedOn, type IdSurface, type KnownContact, type StoredContact } from '../../state/known-contact.js';
import type { Operation } from '../row/plan.js';
import { executePlan, writeKnownContact } from '../row/write.js';
import { DELETED_ALREADY_LINE, DELETED_SINCE_LINE, foldRunChanges, GONE_LINE, planDeleteCreated, planRecreate, planTagForDeletion, planUndo, planUntagUndone, undoCallsAtMost, UNDONE_TAG, untagsOnly, type RunChange } from './undo-plan.js';

/**
 * The part of the state store undo uses: the run's changes, what is known of their keys (refreshed
 * after each), the change journal of its own calls and its own line in the journal of runs.
 */

export interface RunUndoOptions {
  readonly job: Job;
  readonly api: ContactsApi;
  /** The job's state store, the part undo uses: the journal read, and where the undo journals its own writes. */
  readonly state: UndoStore;
  /** The run to undo (it exists in `state`; the command checks). */
  readonly runId: number;
  /** Put back fields changed since the run, and values before the run did not read, too. @default false */
  readonly force?: boolean;
  /** `--key`: undo only these keys' contacts (the command checks the run changed each). @default every key */
  readonly keys?: readonly string[];
  /** `--keep-created`: leave the contacts the run created alone (no tag for deletion). @default false */
  readonly keepCreated?: boolean;
  /**
   * `--delete-created`: delete the contacts the run created (read first; one changed since is a
   * conflict, kept) instead of tagging them. Only on a surface that `deletes` (the command refuses
   * it elsewhere, before any call). @default false
   */
  readonly deleteCreated?: boolean;
  /** Read and plan, write nothing (not to the platform, not to the state). @default false */
  readonly dryRun?: boolean;
  readonly reportDir: string;
  /** Stop taking contacts (a signal); those in flight finish. */
  readonly signal?: AbortSignal;
  /** ms since the Unix epoch: take no contact after it (`--max-duration`). */
  readonly deadline?: number;
  /** The command line for the state's run journal, with no secret. */
  readonly argv?: string;
  /** @default () => new Date() */
  readonly now?: () => Date;
}

export interface UndoRun {
  readonly summary: UndoSummary;
  readonly reportFiles: string[];
  readonly exitCode: number;
}

export async function runUndo(options: RunUndoOptions): Promise<UndoRun> {
  const { job, state } = options;
  const now = options.now ?? (() => new Date());
  const startedAt = now();
  const dryRun = options.dryRun === true;
  const only = options.keys === undefined ? undefined : new Set(options.keys);
  const ofKeys = foldRunChanges(state.changesOfRun(options.runId)).filter((change) => only === undefined || only.has(change.key));
  const keepCreated = options.keepCreated === true;
  const changes = keepCreated ? ofKeys.filter((change) => !change.created) : ofKeys;
  const keptCreated = ofKeys.length - changes.length;
  const deleteCreated = options.deleteCreated === true;
  if (deleteCreated && !options.api.surface.deletes) throw new Error('runUndo: --delete-created on a surface that cannot delete (the command refuses it before any call)');
  const report = new UndoReport(options.reportDir, job.name, jobMasker(job));
  // The port's pace (v2: the limits learnt so far, or the first guess), not v1's rates.
  const policy = new StopPolicy({ signal: options.signal, deadline: options.deadline, now, spacingMs: contactSpacingMs(options.api.pace()) });
  // The undo is a run of its own: its writes are journalled under its id, so it can be undone.
  const started = dryRun ? undefined : startJournal(state, { job: job.name, argv: options.argv ?? `undo --run ${options.runId}`, full: false, surface: options.api.surface.name, reportDir: resolve(options.reportDir) }, job);
  const undoRunId = started?.runId;
  policy.abortWith(started?.abort);
  let summaryWritten = true;

  const undo: RunKind<RunChange, UndoneContact, UndoSummary> = {
    units: changes,
    work: {
      callsAtMost: (change) => undoCallsAtMost(change, options.api.surface, deleteCreated),
      intake: (change) => ({ kind: 'dispatch', key: change.key, callsAtMost: undoCallsAtMost(change, options.api.surface, deleteCreated), run: () => undoContact(change, options, dryRun), notSent: (abort) => notSentContact(change, abort) }),
      finish: (done) => {
        policy.abortWith(writeUnitReport(() => report.add(done), CONTACTS_LEFT));
      },
    },
    closeUnits: () => closedUnitReport(report.closeLines(), CONTACTS_LEFT),
    journalRows: (notReached) => ({ total: changes.length, ...report.lines, notReached }),
    // A conflict left, a value put back unverified or a failed contact needs a person's look.
    needsLook: () => report.lines.conflict + report.lines.unverified + report.lines.failed > 0,
    summarize: ({ status, abort, notReached }) => {
      // privacy.mask: undo.json, the console and the log take this object, its keys and texts masked.
      const summary: UndoSummary = report.masker.deep({
        job: job.name,
        undoneRunId: String(options.runId),
        runId: undoRunId === undefined ? null : String(undoRunId),
        dryRun,
        force: options.force === true,
        startedAt: startedAt.toISOString(),
        finishedAt: now().toISOString(),
        contacts: { total: changes.length, notReached, keptCreated, ...report.contacts },
        ...(options.keys === undefined ? {} : { keys: options.keys.map((key) => report.masker.key(key)) }),
        keepCreated,
        deleteCreated,
        lines: { ...report.lines },
        createdContacts: [...report.createdContacts],
        apiCalls: { total: options.api.stats.total(), byOperation: callsByOperation(options.api) },
        status,
        ...(abort === undefined ? {} : { aborted: { code: abort.code, message: abort.message } }),
      });
      const failure = report.writeSummary(summary);
      if (failure === undefined) return { summary };
      summaryWritten = false;
      const failed = reportWriteAbort(failure, CONTACTS_LEFT);
      return { summary: { ...summary, status: 'aborted', aborted: summary.aborted ?? { code: failed.code, message: failed.message } }, abort: failed };
    },
  };
  const run = await runEngine(undo, { policy, dispatcher: new RowDispatcher(job.concurrency), signal: options.signal, journal: undoRunId === undefined ? undefined : { state, runId: undoRunId, job } });
  return { summary: run.summary, reportFiles: summaryWritten ? [report.paths.csv, report.paths.summary] : [report.paths.csv], exitCode: run.exitCode };
}

/** A contact queued when the undo aborted: not sent, as a row of a run is not. */
function notSentContact(change: RunChange, abort: JobAbortError): UndoneContact {
  return { key: change.key, contactId: change.contactId, lines: [], error: { code: 'ABORTED', message: `not sent: the undo stopped (${abort.code}): ${abort.message}` }, calls: 0 };
}

/** One contact undone: its report lines, the calls it made, and the reason the undo must stop when it met one. */
type UndoneContact = UndoContactResult & { readonly calls: number; readonly abort?: JobAbortError };

async function undoContact(change: RunChange, options: RunUndoOptions, dryRun: boolean): Promise<UndoneContact> {
  const api = new CountedApi(options.api);
  return { ...(await undoWith(api, change, options, dryRun)), calls: api.calls };
}

/**
 * Reads one contact (tags one the run created, with no read), plans its undo, writes it
 * (journalled), and brings the state in step with what the platform holds now.
 */
async function undoWith(api: CountedApi, change: RunChange, options: RunUndoOptions, dryRun: boolean): Promise<UndoContactResult & { abort?: JobAbortError }> {
  let lines: UndoContactResult['lines'] = [];
  // The surface of the ids the journal names (the command checked it is the undone run's).
  const surface = api.surface.name;
  // Writes a plan to the contact; false when the contact was deleted since (the state forgets it).
  const writeUnlessGone = async (plan: Parameters<typeof writeKnownContact>[1]): Promise<boolean> => {
    try {
      await writeKnownContact(api, plan, change.key, change.contactId, options.state);
      return true;
    } catch (error) {
      if (!(error instanceof NoSuchContactError)) throw error;
      forgetIfKnown(options.state, change, surface);
      return false;
    }
  };
  try {
    if (change.deleted !== undefined) return await recreateDeleted(api, change, options, dryRun);
    if (change.created && options.deleteCreated === true) {
      let current: KnownContact | undefined;
      try {
        current = await api.getContact(change.contactId);
      } catch (error) {
        if (!(error instanceof NoSuchContactError)) throw error;
      }
      const undo = planDeleteCreated(change, current, { force: options.force === true });
      lines = undo.lines;
      if (dryRun) return { key: change.key, contactId: change.contactId, lines };
      if (current === undefined || undo.plan.operations.length === 0) {
        if (current === undefined) forgetIfKnown(options.state, change, surface);
        return { key: change.key, contactId: change.contactId, lines };
      }
      // Deleted between the read and the delete: where undo wants it, with nothing journalled.
      if (!(await writeUnlessGone(undo.plan))) return { key: change.key, contactId: change.contactId, lines: [DELETED_ALREADY_LINE] };
      forgetIfKnown(options.state, change, surface);
      return { key: change.key, contactId: change.contactId, lines };
    }
    if (change.created) {
      const undo = planTagForDeletion(change, { alreadyTagged: knownTagged(options.state, change, surface) });
      lines = undo.lines;
      if (dryRun) return { key: change.key, contactId: change.contactId, lines };
      if (!(await writeUnlessGone(undo.plan))) return { key: change.key, contactId: change.contactId, lines: [DELETED_SINCE_LINE] };
      recordTagged(options.state, change, surface);
      return { key: change.key, contactId: change.contactId, lines };
    }
    if (untagsOnly(change)) {
      // An undo's tag for deletion: taken off with one call and no read.
      const undo = planUntagUndone(change, { alreadyUntagged: knownAs(options.state, change, surface)?.contact.tags.includes(UNDONE_TAG) === false });
      lines = undo.lines;
      if (dryRun) return { key: change.key, contactId: change.contactId, lines };
      if (!(await writeUnlessGone(undo.plan))) return { key: change.key, contactId: change.contactId, lines: [GONE_LINE] };
      recordUntagged(options.state, change, surface);
      return { key: change.key, contactId: change.contactId, lines };
    }
    let current: KnownContact | undefined;
    try {
      current = await api.getContact(change.contactId);
    } catch (error) {
      if (!(error instanceof NoSuchContactError)) throw error;
    }
    const undo = planUndo(change, current, { force: options.force === true, limits: api.surface });
    lines = undo.lines;
    if (dryRun) return { key: change.key, contactId: change.contactId, lines };
    if (current === undefined) {
      // Deleted on the platform: what the store knows of it is gone too.
      forgetIfKnown(options.state, change, surface);
      return { key: change.key, contactId: change.contactId, lines };
    }
    const confirmed: Operation[] = [];
    try {
      await writeKnownContact(api, undo.plan, change.key, change.contactId, options.state, confirmed);
    } finally {
      // What was read, then what was confirmed written, even when a later call failed.
      recordRead(options.state, change, current, confirmed, surface);
    }
    return { key: change.key, contactId: change.contactId, lines };
  } catch (error) {
    const abort = abortReason(error, options.job, `undoing the contact of key ${change.key}`);
    const failure = abort ?? (error as ApiError);
    return { key: change.key, contactId: change.contactId, lines, error: { code: failure.code, message: failure.message }, ...(abort === undefined ? {} : { abort }) };
  }
}

/**
 * Undoing a deletion: the contact created again from its values (`planRecreate`), through the one
 * writer (a create whose answer is lost is settled by searching the key), journalled as this
 * undo's create; the state store then knows the key by the new id.
 */
async function recreateDeleted(api: CountedApi, change: RunChange, options: RunUndoOptions, dryRun: boolean): Promise<UndoContactResult> {
  const surface = api.surface.name;
  const known = options.state.get(change.key);
  const recreatedAs = known !== undefined && known.contact.id !== change.contactId && trustedOn(known, surface) ? known.contact.id : undefined;
  const values = change.deleted ?? { fields: {}, tags: [] };
  // Where a create lands on the holder of its email or phone (v2), that holder is read first.
  const landsOn = recreatedAs === undefined ? api.surface.createLandsOn(values.fields) : undefined;
  const holder = landsOn === undefined ? undefined : await holderOf(api, landsOn, values.fields[landsOn] ?? '');
  const undo = planRecreate(change, { recreatedAs, heldBy: holder === undefined || landsOn === undefined ? undefined : { field: landsOn, contactId: holder } }, api.surface);
  if (dryRun || undo.plan.operations.length === 0) return { key: change.key, contactId: recreatedAs ?? change.contactId, lines: undo.lines };
  const keyField = options.job.key.field;
  const progress: { contactId: string } = { contactId: change.contactId };
  const id = await executePlan(
    api,
    undo.plan,
    change.key,
    {
      findByKey: async (key) => {
        const found: KnownContact[] = [];
        for await (const page of api.searchContacts(keyField, key)) found.push(...page.filter((contact) => (contact.custom_fields[keyField] ?? '') === key));
        return found;
      },
      confirmed: (contactId, entry) => options.state.journalChange(change.key, contactId, entry),
    },
    progress,
  );
  // What it held when deleted, written back now: not read since (a later run compares and writes where it differs).
  options.state.recordObserved(change.key, { contactId: id, surface, fields: { ...values.fields }, tags: [...values.tags], tagsAdded: [...values.tags], tagsRemoved: [], draftHash: null, rowHash: null, unread: true });
  return { key: change.key, contactId: id, lines: undo.lines.map((line) => ({ ...line, to: id })) };
}

/** The id of the contact holding `value` in identifier field `field`, if any (one search call). */
async function holderOf(api: CountedApi, field: string, value: string): Promise<string | undefined> {
  for await (const page of api.searchContacts(field, value)) {
    const [found] = page;
    if (found !== undefined) return found.id;
  }
  return undefined;
}

/**
 * The state store knows the key's contact is this one: the same id, learnt on the surface of the
 * undone run (the command refuses a run of another surface: `undoSurfaceRefusal`).
 */
function knownAs(state: UndoStore, change: RunChange, surface: IdSurface): StoredContact | undefined {
  const known = state.get(change.key);
  return known !== undefined && sameContact(known, change, surface) ? known : undefined;
}

function sameContact(known: StoredContact, change: RunChange, surface: IdSurface): boolean {
  return known.contact.id === change.contactId && trustedOn(known, surface);
}

/** An earlier undo recorded the tag for deletion on this contact (what makes undoing twice write nothing). */
function knownTagged(state: UndoStore, change: RunChange, surface: IdSurface): boolean {
  return knownAs(state, change, surface)?.contact.tags.includes(UNDONE_TAG) === true;
}

function forgetIfKnown(state: UndoStore, change: RunChange, surface: IdSurface): void {
  if (knownAs(state, change, surface) !== undefined) state.forget(change.key);
}

/**
 * A created contact tagged for deletion: the store keeps the key (a later run must find the
 * contact, not create another) with the tag, and no hashes: a run whose row takes the contact back
 * compares with it and removes the tag (docs/undo.md).
 */
function recordTagged(state: UndoStore, change: RunChange, surface: IdSurface): void {
  const known = state.get(change.key);
  if (known !== undefined && !sameContact(known, change, surface)) return;
  const tags = [...new Set([...(known?.contact.tags ?? []), UNDONE_TAG])];
  // Not read (the tag call alone): a later run does not take this record for a read.
  state.recordObserved(change.key, { contactId: change.contactId, surface, fields: known?.contact.custom_fields ?? {}, tags, tagsAdded: [], tagsRemoved: [], draftHash: null, rowHash: null, unread: true });
}

/** An undo's tag for deletion taken off: the store's record (when it knows the contact) loses it; not read. */
function recordUntagged(state: UndoStore, change: RunChange, surface: IdSurface): void {
  const known = knownAs(state, change, surface);
  if (known === undefined) return;
  const tags = known.contact.tags.filter((tag) => tag !== UNDONE_TAG);
  state.recordObserved(change.key, { contactId: change.contactId, surface, fields: known.contact.custom_fields, tags, tagsAdded: [], tagsRemoved: [], draftHash: null, rowHash: null, unread: true });
}

/**
 * The contact as undo read it, then as its confirmed calls left it, with no draft or row hash:
 * the next run compares its file with what the platform holds (a conflict left by undo included)
 * and writes the file's values again where they differ (docs/undo.md).
 */
function recordRead(state: UndoStore, change: RunChange, current: KnownContact, confirmed: readonly Operation[], surface: IdSurface): void {
  const known = state.get(change.key);
  if (known !== undefined && !sameContact(known, change, surface)) return;
  const fields: Record<string, string> = { ...current.custom_fields };
  const tags = new Set(current.tags);
  // Tags put back were the contact's before the run, not the job's; tags taken away leave the job's.
  const removed: string[] = [];
  for (const operation of confirmed) {
    if (operation.kind === 'updateContact') Object.assign(fields, operation.fields);
    else if (operation.kind === 'addTags') for (const tag of operation.tags) tags.add(tag);
    else if (operation.kind === 'removeTags') {
      for (const tag of operation.tags) tags.delete(tag);
      removed.push(...operation.tags);
    }
  }
  state.recordObserved(change.key, { contactId: change.contactId, surface, fields, tags: [...tags], tagsRemoved: removed, draftHash: null, rowHash: null });
}

/** What undo's report keeps when a write fails (`run/unit-report.ts`, the one rule). */
const CONTACTS_LEFT = 'no line was left half written, and the contacts after it were not taken';
