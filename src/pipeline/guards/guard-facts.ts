/**
 * The guards' read of the input, before any call: the data rows counted, and, with a state store,
 * each row mapped and its fields compared with what the state knows the job wrote last. The state's
 * knowledge is what judges `maxChange` without a call: a nightly run with a state store settles
 * most rows by it anyway, and a field the state never recorded is not counted (its platform value
 * is not known without a read). One more read of the input, no more memory than a set of keys
 * per changing field and 8 bytes a key of the input (docs/decisions.md, "Guards before writes").
 *
 * The same read counts the input's keys the state knows and those it does not (a re-keyed export
 * replaces the one with the other), the tags `tags.prune` would remove from known keys, and keeps
 * the first FIRST_READ_KEYS rows of keys the state does not know: the first read of the platform
 * (`first-read.ts`) judges those before any write.
 */
import type { Job } from '../../config/job-types.js';
import type { StoredContact } from '../../state/known-contact.js';
import { KeySighting } from '../kinds/key-sighting.js';
import { mapRow } from '../map/map.js';
import { droppedTags } from '../row/decide.js';
import { pruneFacts } from '../row/key-facts.js';
import { UNDONE_TAG } from '../row/undone-tag.js';
import { openCheckedSource } from '../source/checked-source.js';
import type { ContactDraft } from '../map/contact-draft.js';
import { FIRST_READ_KEYS, GUARD_SAMPLES, type ChangeSample, type FieldChanges, type GuardFacts } from './guard-verdict.js';

/** The part of the state store the guards read: the fields and the job's tags last written for a key, and whether it departed. */
export interface GuardState {
  get(key: string): Pick<StoredContact, 'contact' | 'jobTags'> | undefined;
  departedRecord(key: string): unknown;
}

export interface GuardScanOptions {
  /** Compare fields with it (for `maxChange`); without it only the rows are counted. */
  readonly state?: GuardState;
  /** Keys the state knows, of this shard: the share's whole. */
  readonly knownKeys: number;
  /** Whether a key is this run's (its shard's). */
  readonly mine: (key: string) => boolean;
  /**
   * Whether the run will take the key's row as it is, so that a read made for it now is one the
   * row would make (its key on one row of the input, within `--limit`). @default every key
   */
  readonly takesRow?: (key: string, dataRow: number) => boolean;
  /** The input is a part of the export (`--partial`, a rejected file fed back): the keys it lacks are not missing. @default false */
  readonly partOfExport?: boolean;
}

/** What the guards' read found, and the rows of the first keys the state does not know, for the platform's first read. */
export interface GuardScan {
  readonly facts: GuardFacts;
  readonly unknownRows: readonly ContactDraft[];
}

export async function scanGuardFacts(job: Job, options: GuardScanOptions): Promise<GuardScan> {
  const { state, mine } = options;
  const judges = job.guards?.maxChangePercent !== undefined;
  const compare = state !== undefined && options.knownKeys > 0 && judges;
  const changed = new Map<string, { keys: Set<string>; samples: ChangeSample[] }>();
  const tags: { keys: number; samples: ChangeSample[] } = { keys: 0, samples: [] };
  const prune = pruneFacts(job).prune;
  const seen = judges ? new KeySighting() : undefined;
  const keys = { known: 0, unknown: 0, newSamples: [] as string[] };
  const unknownRows: ContactDraft[] = [];
  let rows = 0;
  const source = await openCheckedSource(job);
  try {
    for await (const record of source.records) {
      rows += 1;
      if (!judges || record.kind !== 'row') continue;
      const mapped = mapRow(record, job);
      if (!mapped.ok || !mine(mapped.draft.key)) continue;
      const { draft } = mapped;
      // A key on several rows counts once, by its first row.
      const first = seen?.seenBefore(draft.key) !== true;
      const stored = state?.get(draft.key);
      if (first && (stored === undefined || state?.departedRecord(draft.key) !== undefined)) {
        keys.unknown += 1;
        if (keys.newSamples.length < GUARD_SAMPLES) keys.newSamples.push(draft.key);
        if (stored === undefined && unknownRows.length < FIRST_READ_KEYS && (options.takesRow?.(draft.key, rows) ?? true)) unknownRows.push(draft);
      } else if (first) {
        keys.known += 1;
      }
      if (!compare || stored === undefined) continue;
      const written = stored.contact.custom_fields;
      for (const [field, value] of Object.entries(draft.fields)) {
        const before = written[field];
        if (before === undefined || before === value) continue;
        // A rule that keeps the value the contact holds changes nothing of it.
        const rule = draft.writeRules?.[field];
        if (rule === 'on-create' || (rule === 'fill-empty' && before !== '')) continue;
        let entry = changed.get(field);
        if (entry === undefined) changed.set(field, (entry = { keys: new Set(), samples: [] }));
        if (entry.keys.has(draft.key)) continue;
        entry.keys.add(draft.key);
        if (entry.samples.length < GUARD_SAMPLES) entry.samples.push({ key: draft.key, written: before, file: value });
      }
      // tags.prune takes from the contact the job's tags its row no longer carries (row/decide.ts).
      if (prune !== undefined && first) {
        const { contact, jobTags } = stored;
        const removed = droppedTags({ draft, prune, state: { kind: 'known', contact, jobTags, draftHash: '' } }, contact).filter((tag) => tag !== UNDONE_TAG);
        if (removed.length > 0) countTagRemoval(tags, draft, removed);
      }
    }
  } finally {
    await source.close();
  }
  const changes: FieldChanges[] = [...changed].map(([field, entry]) => ({ field, keys: entry.keys.size, samples: entry.samples }));
  return {
    facts: {
      rows,
      knownKeys: options.knownKeys,
      changes,
      ...(prune !== undefined && compare ? { tagsRemoved: tags } : {}),
      ...(state !== undefined && judges && options.partOfExport !== true ? { keys } : {}),
    },
    unknownRows,
  };
}

/** One key whose row would remove `removed` from its contact. */
export function countTagRemoval(tags: { keys: number; samples: ChangeSample[] }, draft: Pick<ContactDraft, 'key' | 'tagsToAdd'>, removed: readonly string[]): void {
  tags.keys += 1;
  if (tags.samples.length < GUARD_SAMPLES) tags.samples.push({ key: draft.key, written: removed.join(';'), file: draft.tagsToAdd.join(';') });
}
