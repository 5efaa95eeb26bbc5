/**
 * The guards' read of the input, before any call: the data rows counted, and, with a state store,
 * each row mapped and its fields compared with what the state knows the job wrote last. The state's
 * knowledge is what judges `maxChange` without a call: a nightly run with a state store settles
 * most rows by it anyway, and a field the state never recorded is not counted (its platform value
 * is not known without a read). One more read of the input, no more memory than a set of keys
 * per changing field (docs/decisions.md, "Guards before writes").
 */
import type { Job } from '../../config/job-types.js';
import type { StoredContact } from '../../state/known-contact.js';
import { mapRow } from '../map/map.js';
import { openCheckedSource } from '../source/checked-source.js';
import { GUARD_SAMPLES, type ChangeSample, type FieldChanges, type GuardFacts } from './guard-verdict.js';

/** The part of the state store the guards read: the fields last written for a key. */
export interface GuardState {
  get(key: string): Pick<StoredContact, 'contact'> | undefined;
}

export interface GuardScanOptions {
  /** Compare fields with it (for `maxChange`); without it only the rows are counted. */
  readonly state?: GuardState;
  /** Keys the state knows, of this shard: the share's whole. */
  readonly knownKeys: number;
  /** Whether a key is this run's (its shard's). */
  readonly mine: (key: string) => boolean;
}

export async function scanGuardFacts(job: Job, options: GuardScanOptions): Promise<GuardFacts> {
  const { state, mine } = options;
  const compare = state !== undefined && options.knownKeys > 0 && job.guards?.maxChangePercent !== undefined;
  const changed = new Map<string, { keys: Set<string>; samples: ChangeSample[] }>();
  let rows = 0;
  const source = await openCheckedSource(job);
  try {
    for await (const record of source.records) {
      rows += 1;
      if (!compare || record.kind !== 'row') continue;
      const mapped = mapRow(record, job);
      if (!mapped.ok || !mine(mapped.draft.key)) continue;
      const written = state.get(mapped.draft.key)?.contact.custom_fields;
      if (written === undefined) continue;
      for (const [field, value] of Object.entries(mapped.draft.fields)) {
        const before = written[field];
        if (before === undefined || before === value) continue;
        // A rule that keeps the value the contact holds changes nothing of it.
        const rule = mapped.draft.writeRules?.[field];
        if (rule === 'on-create' || (rule === 'fill-empty' && before !== '')) continue;
        let entry = changed.get(field);
        if (entry === undefined) changed.set(field, (entry = { keys: new Set(), samples: [] }));
        if (entry.keys.has(mapped.draft.key)) continue;
        entry.keys.add(mapped.draft.key);
        if (entry.samples.length < GUARD_SAMPLES) entry.samples.push({ key: mapped.draft.key, written: before, file: value });
      }
    }
  } finally {
    await source.close();
  }
  const changes: FieldChanges[] = [...changed].map(([field, entry]) => ({ field, keys: entry.keys.size, samples: entry.samples }));
  return { rows, knownKeys: options.knownKeys, changes };
}
