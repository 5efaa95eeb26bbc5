/**
 * Every `RowResult` is built here: the line a row gets in results.csv (docs/reports.md), from the
 * reader's fault, the mapper's, the onDuplicateRows stage, the row hash, a plan, or an abort. One
 * place, so that each outcome's fields are set alike wherever the row ended.
 */
import type { ApiErrorCode } from '../../api/errors.js';
import type { JobAbortError } from '../job-abort.js';
import type { ChangeLine, RowResult } from '../report/row-outcome.js';
import type { ContactDraft } from '../map/contact-draft.js';
import type { RowPlan } from './decide.js';
import type { ContactPlan, Operation } from './plan.js';

/** A row that has not ended well yet: `failed` with no code, until its plan or its error says more. */
export function pendingResult(line: number, key: string, cells: string[]): RowResult {
  return {
    line,
    key,
    outcome: 'failed',
    contactId: '',
    fieldsChanged: [],
    tagsAdded: [],
    tagsRemoved: [],
    apiCalls: 0,
    errorCode: '',
    errorMessage: '',
    messageStatus: '',
    messageError: '',
    cells,
  };
}

/** A mapped row that has not ended yet, naming the fields its draft left out (`onInvalid: skip-field`). */
export function draftResult(draft: ContactDraft, cells: string[]): RowResult {
  const row = pendingResult(draft.line, draft.key, cells);
  if (draft.fieldsSkipped !== undefined) row.fieldsSkipped = draft.fieldsSkipped;
  if (draft.phoneExtensions !== undefined) row.phoneExtensions = draft.phoneExtensions;
  if (draft.tagCaseVariants !== undefined) row.tagCaseVariants = draft.tagCaseVariants;
  return row;
}

/** A row that failed before any call (unreadable, unmappable, a duplicate row refused). */
export function failedResult(line: number, key: string, cells: string[], code: RowResult['errorCode'], message: string): RowResult {
  return { ...pendingResult(line, key, cells), errorCode: code, errorMessage: message };
}

/** An unchanged row settled by its row hash (`row-lookahead.ts`), without being mapped. */
export function unchangedResult(line: number, key: string, cells: string[], contactId: string): RowResult {
  return { ...pendingResult(line, key, cells), outcome: 'unchanged', contactId };
}

/**
 * A row the surface could not create on the last run, unchanged since (`row-lookahead.ts`
 * `uncreatable`): failed again with the same code, with no call, saying so.
 */
export function uncreatableResult(line: number, key: string, cells: string[], failure: { readonly code: ApiErrorCode; readonly message: string }): RowResult {
  const message = `${failure.message} (the same row failed so on the last run and no contact holds its key: not searched again; fix the row, or run with --full to search for its key)`;
  return failedResult(line, key, cells, failure.code, message);
}

/** A row another line of its key wins (or takes in) under onDuplicateRows: `message` names it. */
export function skippedResult(draft: ContactDraft, cells: string[], message: string): RowResult {
  return { ...pendingResult(draft.line, draft.key, cells), outcome: 'skipped', errorMessage: message };
}

/** A row the job did not send because it had stopped: `ABORTED`, naming the reason. */
export function notSentResult(draft: ContactDraft, cells: string[], abort: JobAbortError): RowResult {
  return failedResult(draft.line, draft.key, cells, 'ABORTED', `not sent: the job stopped (${abort.code}): ${abort.message}`);
}

/** What a row's plan says of it: its outcome, what changed, and its reason. */
export function planResult(plan: RowPlan): Pick<RowResult, 'outcome' | 'fieldsChanged' | 'tagsAdded' | 'tagsRemoved' | 'errorCode' | 'errorMessage' | 'changes'> {
  const changes = changeLines(plan.writes.length > 0 ? plan.writes : plan.withheld);
  return {
    outcome: plan.outcome,
    fieldsChanged: [...plan.fieldsChanged],
    tagsAdded: [...plan.tagsAdded],
    tagsRemoved: [...plan.tagsRemoved],
    errorCode: plan.errorCode,
    errorMessage: plan.reason,
    ...(changes.length === 0 ? {} : { changes }),
  };
}

/**
 * The changes of the contacts' plans (a dry run's withheld ones: what the real run would write),
 * each field with the value the plan knew the platform held (null for none, and for a create) and
 * the file's value; the tags as one line, the removed ones as the platform's, the added as the file's.
 */
export function changeLines(plans: readonly ContactPlan[]): ChangeLine[] {
  return plans.flatMap((contact) => {
    const written: Record<string, string> = {};
    for (const operation of contact.operations) {
      if (operation.kind === 'createContact' || operation.kind === 'updateContact') Object.assign(written, operation.fields);
    }
    const contactId = contact.contactId ?? '';
    const lines: ChangeLine[] = contact.fieldsChanged.map((field) => ({ contactId, field, platformValue: contact.before[field] ?? null, fileValue: written[field] ?? null }));
    if (contact.tagsAdded.length > 0 || contact.tagsRemoved.length > 0) {
      lines.push({ contactId, field: 'tags', platformValue: tagList(contact.tagsRemoved), fileValue: tagList(contact.tagsAdded) });
    }
    return lines;
  });
}

/**
 * What the calls the platform confirmed did, when the row stopped after them for a reason of this
 * machine's (the state store could not journal them): a confirmed create is reported `created`,
 * with exactly the fields and tags those calls wrote.
 */
export function confirmedResult(confirmed: readonly Operation[]): Pick<RowResult, 'outcome' | 'fieldsChanged' | 'tagsAdded' | 'tagsRemoved'> {
  const fields = new Set<string>();
  const tagsAdded: string[] = [];
  const tagsRemoved: string[] = [];
  for (const operation of confirmed) {
    if (operation.kind === 'addTags') tagsAdded.push(...operation.tags);
    else if (operation.kind === 'removeTags') tagsRemoved.push(...operation.tags);
    else if (operation.kind === 'deleteContact') continue;
    else for (const name of Object.keys(operation.fields)) fields.add(name);
  }
  return { outcome: confirmed.some((operation) => operation.kind === 'createContact') ? 'created' : 'updated', fieldsChanged: [...fields], tagsAdded, tagsRemoved };
}

/** A tags cell of changes.csv: the tags joined by `;`, or null (absent) for none. */
function tagList(tags: readonly string[]): string | null {
  return tags.length === 0 ? null : tags.join(';');
}
