/**
 * Verification within the budget (`verify: { share }`, issue 38), its decisions, pure: how many
 * calls a run may spend re-reading the contacts the state store trusts, whether it reads them by
 * the `match.prefetch` marker's pages or one GET a contact, which keys or pages this run reads
 * (least recently verified first; the pages round robin), and what a read contact that differs
 * from the state needs: the calls that repair it to what the state says the job last wrote, under
 * the fields' write rules. The executor (`verify-step.ts`) reads, writes through the one writer and
 * journals. test/pipeline/verify/verify-plan.test.ts is the table. See docs/decisions.md,
 * "Verification within the budget".
 */
import type { Job, WriteRule } from '../../config/job-types.js';
import type { KnownContact, StoredContact } from '../../state/known-contact.js';
import { changeLines } from '../row/row-result.js';
import { planUpdate, type CallLimits, type ContactPlan } from '../row/plan.js';
import type { ChangeLine } from '../report/row-outcome.js';
import type { ContactDraft } from '../map/contact-draft.js';

/** The most reads a run spends: floor(share x the keys the state trusts). */
export function verifyBudget(sharePercent: number, trustedKeys: number): number {
  // In hundredths of a percent, so 20% of 100 is 20, not 19.999...
  return Math.floor((Math.round(sharePercent * 100) * trustedKeys) / 10_000);
}

/** How this run's reads go. */
export type VerifyReads =
  /** Nothing to read: no budget, or nothing trusted. */
  | { readonly by: 'none'; readonly calls: 0; readonly reason: string }
  /** One GET a contact, of `calls` keys. */
  | { readonly by: 'contacts'; readonly calls: number; readonly reason: string }
  /** The marker's pages `pages`, in order (round robin from where the last run stopped). */
  | { readonly by: 'pages'; readonly calls: number; readonly pages: readonly number[]; readonly reason: string };

export interface VerifyFacts {
  readonly budget: number;
  /** Keys the state trusts (known, not departed, in this run's scope). */
  readonly trustedKeys: number;
  /** Keys the state trusts that this run did not touch: the most a run of GETs can verify. */
  readonly candidates: number;
  /** The job has a `match.prefetch` marker. */
  readonly marker: boolean;
  /** Contacts one page of the marker holds (`api.surface.listPageSize`). */
  readonly listPageSize: number;
  /** The marker's pages when a run last read them; undefined before any (then the trusted keys' pages, a floor). */
  readonly markerPages?: number | undefined;
  /** The page the last run by pages stopped before (1-based). */
  readonly nextPage: number;
}

/** Nights a whole round takes at `budget` calls a night. */
function nights(calls: number, budget: number): number {
  return Math.ceil(calls / budget);
}

/**
 * Pages or GETs: the marker's pages when a round of them (every marked contact) takes no more
 * nights than a round of GETs (every trusted key), else GETs. The marker may hold many more
 * contacts than the job's keys (a marker shared with other jobs), which the pages read first
 * tells: until then, the trusted keys' pages stand for it (a floor).
 */
export function chooseVerifyReads(facts: VerifyFacts): VerifyReads {
  const { budget } = facts;
  if (facts.trustedKeys === 0) return { by: 'none', calls: 0, reason: 'the state trusts no key yet' };
  if (budget === 0) return { by: 'none', calls: 0, reason: `the share of ${facts.trustedKeys} trusted keys is less than one call` };
  // Every trusted key written or read by this run's rows (a first import): nothing to re-read, whichever way.
  if (facts.candidates === 0) return { by: 'none', calls: 0, reason: 'every trusted key was touched by this run' };
  const pages = facts.markerPages ?? Math.max(1, Math.ceil(facts.trustedKeys / facts.listPageSize));
  if (facts.marker && nights(pages, budget) <= nights(facts.trustedKeys, budget)) {
    const calls = Math.min(budget, pages);
    return {
      by: 'pages',
      calls,
      pages: roundRobin(facts.nextPage, pages, calls),
      reason: `the marker's ${pages} page(s) of ${facts.listPageSize} are read in ${nights(pages, budget)} run(s) at ${budget} call(s) a run, one GET a key in ${nights(facts.trustedKeys, budget)}`,
    };
  }
  const calls = Math.min(budget, facts.candidates);
  const why = facts.marker ? `the marker's ${pages} pages take more runs than one GET a key` : 'no match.prefetch marker';
  return { by: 'contacts', calls, reason: `${why}: ${calls} of ${facts.trustedKeys} trusted keys, least recently verified first` };
}

/** `count` pages from `next`, wrapping after `pages` (each page at most once). */
export function roundRobin(next: number, pages: number, count: number): number[] {
  const start = next >= 1 && next <= pages ? next : 1;
  return Array.from({ length: Math.min(count, pages) }, (_unused, index) => ((start - 1 + index) % pages) + 1);
}

/** The page after the last page read, wrapping after the marker's last page. */
export function nextPageAfter(lastRead: number, markerPages: number): number {
  return lastRead >= markerPages ? 1 : lastRead + 1;
}

/** What a trusted key's contact, read, needs. */
export type VerifyVerdict =
  /** It holds what the state says the job wrote (or differs only where the write rules let the platform win). */
  | { readonly status: 'same' }
  /** It differs: the calls that repair it, and the changes.csv lines (the platform's value and the state's). */
  | { readonly status: 'drift'; readonly plan: ContactPlan; readonly changes: readonly ChangeLine[] }
  /** The contact read is not the key's (another id: a duplicate, or the key moved): not this key's to judge. */
  | { readonly status: 'other-contact' };

/**
 * What the state store says the job last wrote to the key's contact, as a draft: the job's own
 * fields (and the key field) with the values the state holds, the tags the job added and has not
 * removed since, the tags every row removes; the fields' write rules as the job has them.
 */
export function stateDraft(record: StoredContact, job: Pick<Job, 'key' | 'fields' | 'tags'>): ContactDraft {
  const known = record.contact.custom_fields;
  const fields: Record<string, string> = {};
  let writeRules: Record<string, WriteRule> | undefined;
  for (const name of [job.key.field, ...job.fields.map((spec) => spec.name)]) {
    const value = known[name];
    if (value !== undefined) fields[name] = value;
  }
  for (const spec of job.fields) if (spec.write !== undefined) (writeRules ??= {})[spec.name] = spec.write;
  const tagsToAdd = [...(record.jobTags ?? [])];
  const added = new Set(tagsToAdd);
  const draft: ContactDraft = {
    line: 0,
    key: record.key,
    keyField: job.key.field,
    fields,
    tagsToAdd,
    tagsToRemove: job.tags.remove.filter((tag) => tag !== '' && !added.has(tag)),
    templateValues: {},
  };
  if (writeRules !== undefined) draft.writeRules = writeRules;
  return draft;
}

/**
 * Compares a key's contact as read with what the state says the job last wrote, by the row
 * decision's own plan (`planUpdate`: only the fields that differ and may be written, `fill-empty`
 * only over an emptied value, `on-create` never; the job's tags the contact lost; the removed tags
 * it holds again). The contact was read in this run: the journal's "before" is vouched for.
 */
export function verifyContact(record: StoredContact, read: KnownContact, job: Pick<Job, 'key' | 'fields' | 'tags'>, limits: CallLimits): VerifyVerdict {
  if (read.id !== record.contact.id) return { status: 'other-contact' };
  const plan = planUpdate(stateDraft(record, job), read, [], true, limits);
  if (plan.action === 'unchanged') return { status: 'same' };
  return { status: 'drift', plan, changes: changeLines([plan]) };
}
