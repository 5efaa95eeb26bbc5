/**
 * `maxChange` for the keys the state does not know (issue 41): a migration's first run into
 * existing contacts, where the state knows nothing and the platform everything. Before the first
 * write, the rows of the first FIRST_READ_KEYS such keys are planned from what each row would read
 * anyway: the prefetch index when the run pages, else the row's own search, made now and handed to
 * the row (`RowSyncContext.firstReads`), so a run that passes makes the calls it always made. The
 * pure `firstReadFacts` says, of the contacts found, how many each field's value would change or
 * clear on; the verdict (`guard-verdict.ts`) judges the share among them.
 */
import { abortReason } from '../abort-reason.js';
import type { JobAbortError } from '../job-abort.js';
import type { RowPlan } from '../row/decide.js';
import { planBeforeWrites, type FirstRead, type FirstReads, type RowSyncContext } from '../row/sync-row.js';
import { UNDONE_TAG } from '../row/undone-tag.js';
import type { ContactDraft } from '../map/contact-draft.js';
import { countTagRemoval } from './guard-facts.js';
import { GUARD_SAMPLES, type ChangeSample, type GuardFacts } from './guard-verdict.js';

/** One key read before the first write: its row and the plan the row would run. */
export interface PlannedRow {
  readonly draft: Pick<ContactDraft, 'key' | 'fields' | 'tagsToAdd'>;
  readonly plan: Pick<RowPlan, 'contacts' | 'writes' | 'withheld'>;
}

/**
 * Plans the rows of `rows` (the first keys the state does not know), `concurrency` at a time. A
 * key whose search failed is not judged (its row searches again and meets the failure as its
 * own); a failure that stops the job (an invalid token, a platform that stopped answering: the
 * row's `abortReason`) ends the reading and is returned, for the run to stop on before its first
 * row, with every report written. An aborted `signal` (SIGINT, SIGTERM) ends it too: the keys in
 * flight finish, no other is read.
 */
export async function readFirstKeys(
  rows: readonly ContactDraft[],
  context: RowSyncContext,
  concurrency: number,
  signal?: AbortSignal,
): Promise<{ facts: NonNullable<GuardFacts['firstRead']> | undefined; reads: FirstReads; abort?: JobAbortError }> {
  const searched = new Map<string, FirstRead>();
  const planned: PlannedRow[] = [];
  let next = 0;
  let abort: JobAbortError | undefined;
  const worker = async (): Promise<void> => {
    // Interrupted (SIGINT, SIGTERM): no further key is read; the run takes no row.
    while (abort === undefined && signal?.aborted !== true && next < rows.length) {
      const draft = rows[next++]!;
      try {
        const { plan, searched: read } = await planBeforeWrites(draft, context);
        planned.push({ draft, plan });
        if (read !== undefined) searched.set(draft.key, read);
      } catch (error) {
        abort ??= abortReason(error, context.job, `when reading the contacts of key ${JSON.stringify(draft.key)} before the first write (guards.maxChange)`);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, rows.length)) }, worker));
  const reads: FirstReads = {
    take(key) {
      const read = searched.get(key);
      searched.delete(key);
      return read;
    },
    has: (key) => searched.has(key),
  };
  // The rows in file order, as the samples name them.
  const order = new Map(rows.map((draft, index) => [draft.key, index]));
  planned.sort((a, b) => (order.get(a.draft.key) ?? 0) - (order.get(b.draft.key) ?? 0));
  return { facts: planned.length === 0 ? undefined : firstReadFacts(planned), reads, ...(abort === undefined ? {} : { abort }) };
}

/**
 * Of the rows planned before the first write: the keys read, those a contact on the platform
 * holds, and per field the contacts whose value (not empty) the row would change or clear; the
 * tags the row would remove. A field the contact has no value in is filled, not changed.
 */
export function firstReadFacts(rows: readonly PlannedRow[]): NonNullable<GuardFacts['firstRead']> {
  const changed = new Map<string, { keys: number; samples: ChangeSample[] }>();
  const tags = { keys: 0, samples: [] as ChangeSample[] };
  let found = 0;
  for (const { draft, plan } of rows) {
    if (!plan.contacts.some((target) => target !== 'created')) continue;
    found += 1;
    const updates = [...plan.writes, ...plan.withheld].filter((write) => write.action === 'update');
    const fields = new Map<string, string>();
    for (const write of updates) {
      for (const [field, before] of Object.entries(write.before)) if (before !== null && before !== '') fields.set(field, before);
    }
    for (const [field, before] of fields) {
      let entry = changed.get(field);
      if (entry === undefined) changed.set(field, (entry = { keys: 0, samples: [] }));
      entry.keys += 1;
      if (entry.samples.length < GUARD_SAMPLES) entry.samples.push({ key: draft.key, written: before, file: draft.fields[field] ?? '' });
    }
    const removed = [...new Set(updates.flatMap((write) => write.tagsRemoved))].filter((tag) => tag !== UNDONE_TAG);
    if (removed.length > 0) countTagRemoval(tags, draft, removed);
  }
  return { keys: rows.length, found, changes: [...changed].map(([field, entry]) => ({ field, ...entry })), tagsRemoved: tags };
}
