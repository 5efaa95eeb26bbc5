/**
 * The guards of a run (`guards:`), checked once before the first write and on dry runs: the facts
 * read (`guard-facts.ts`; for the keys the state does not know, the platform's first read,
 * `first-read.ts`), the pure verdict (`guard-verdict.ts`), and a refusal thrown as exit 2 before
 * the reports are opened or the run journalled: a refused night did nothing. A refusal `--allow`
 * let past is returned, for the run to say and summary.json to keep.
 */
import type { Job } from '../../config/job-types.js';
import type { JobAbortError } from '../job-abort.js';
import type { FirstReads, RowSyncContext } from '../row/sync-row.js';
import { readFirstKeys } from './first-read.js';
import { scanGuardFacts, type GuardState } from './guard-facts.js';
import { GuardRefusedError } from './guard-refused-error.js';
import { guardVerdict, type ChangeSample, type FieldChanges, type GuardFacts, type GuardName, type GuardRefusal, type TagRemovals } from './guard-verdict.js';
import { jobMasker, type Masker } from '../report/mask.js';

export interface GuardCheck {
  /** The job's state store, when it has one (a dry run's too: it only reads). */
  readonly state?: GuardState;
  /** Keys the state knows, of this shard. */
  readonly knownKeys: number;
  readonly mine: (key: string) => boolean;
  /** `--allow NAME`: the guards this run may go past. */
  readonly allow: ReadonlySet<GuardName>;
  /** Whether the run takes a key's row as it is (one row of the key, within --limit): only such a row's read is made ahead. */
  readonly takesRow?: (key: string, dataRow: number) => boolean;
  /** The input is a part of the export (`--partial`, a rejected file fed back): no key it lacks was replaced. */
  readonly partOfExport?: boolean;
  /**
   * What a row reads (the platform, the state, the prefetch index), for the platform's first read
   * of the keys the state does not know; without it they are not read.
   */
  readonly rows?: { readonly context: RowSyncContext; readonly concurrency: number };
  /** SIGINT, SIGTERM: the first read stops, and nothing is judged (the run is interrupted before its first row). */
  readonly signal?: AbortSignal;
}

/** What the guards leave the run: the refusals it was let past, and the searches made for its rows. */
export interface GuardPassage {
  /** Each refusal `--allow` let past, as it would have refused the run. */
  readonly allowed: readonly GuardRefusal[];
  readonly firstReads?: FirstReads;
  /** The first read met a failure that stops the job: the run takes no row and says why in its reports. */
  readonly abort?: JobAbortError;
}

/** Throws a GuardRefusedError when a guard the run may not go past refuses it. */
export async function checkGuards(job: Job, check: GuardCheck): Promise<GuardPassage> {
  const guards = job.guards;
  if (guards === undefined) return { allowed: [] };
  const scan = await scanGuardFacts(job, {
    ...(check.state === undefined ? {} : { state: check.state }),
    knownKeys: check.knownKeys,
    mine: check.mine,
    ...(check.takesRow === undefined ? {} : { takesRow: check.takesRow }),
    ...(check.partOfExport === true ? { partOfExport: true } : {}),
  });
  const read = check.rows === undefined || scan.unknownRows.length === 0 ? undefined : await readFirstKeys(scan.unknownRows, check.rows.context, check.rows.concurrency, check.signal);
  // Interrupted while reading: a part of the facts is not judged; the run takes no row and says it was interrupted.
  if (check.signal?.aborted === true) return { allowed: [] };
  const facts = read?.facts === undefined ? scan.facts : { ...scan.facts, firstRead: read.facts };
  // privacy.mask: a refusal's examples (keys, values before and after) are shown masked; the counts decide.
  const verdict = guardVerdict(guards, shownFacts(facts, jobMasker(job)), job.input.label ?? job.input.path);
  const refusals = verdict.filter((refusal) => !check.allow.has(refusal.guard));
  if (refusals.length > 0) throw new GuardRefusedError(job.name, refusals);
  return {
    allowed: verdict.filter((refusal) => check.allow.has(refusal.guard)),
    ...(read === undefined ? {} : { firstReads: read.reads }),
    ...(read?.abort === undefined ? {} : { abort: read.abort }),
  };
}

/** The facts with their samples as the outputs show them (`privacy.mask`): the keys and the masked fields' values masked, every count as it was. */
function shownFacts(facts: GuardFacts, masker: Masker): GuardFacts {
  if (!masker.active) return facts;
  const sample = (field: string) => (one: ChangeSample): ChangeSample => ({ key: masker.key(one.key), written: masker.field(field, one.written), file: masker.field(field, one.file) });
  const changes = (list: readonly FieldChanges[]): FieldChanges[] => list.map((change) => ({ ...change, samples: change.samples.map(sample(change.field)) }));
  const removals = (tags: TagRemovals): TagRemovals => ({ ...tags, samples: tags.samples.map(sample('tags')) });
  return {
    ...facts,
    changes: changes(facts.changes),
    ...(facts.tagsRemoved === undefined ? {} : { tagsRemoved: removals(facts.tagsRemoved) }),
    ...(facts.keys === undefined ? {} : { keys: { ...facts.keys, newSamples: facts.keys.newSamples.map((key) => masker.key(key)) } }),
    ...(facts.firstRead === undefined ? {} : { firstRead: { ...facts.firstRead, changes: changes(facts.firstRead.changes), tagsRemoved: removals(facts.firstRead.tagsRemoved) } }),
  };
}

