/**
 * The guards' verdict (`guards:` on a job, docs/configuration.md "Guards"): a pure function of what
 * the first read of the input saw and what the state store knows, to the guards that refuse the
 * run. Checked before the first write and on dry runs; each refusal names what it saw and how to
 * let one run through (`--allow NAME`).
 */
import type { GuardsSpec } from '../../config/job-types.js';
import { describeShare } from '../../config/missing-share.js';
import { counted } from '../report/counted.js';

/** The guards `--allow` names. */
export const GUARD_NAMES = ['minRows', 'maxChange'] as const;
export type GuardName = (typeof GUARD_NAMES)[number];

/** How many samples a refusal shows. */
export const GUARD_SAMPLES = 5;

/** The keys the state does not know that the guards read on the platform before the first write (fewer when the input has fewer). */
export const FIRST_READ_KEYS = 100;

/** One key whose field the input would change: the value the state knows was written, and the file's. */
export interface ChangeSample {
  readonly key: string;
  readonly written: string;
  readonly file: string;
}

/** One field's changes over the keys the state knows. */
export interface FieldChanges {
  readonly field: string;
  /** Keys the state knows whose value of the field the input would change or clear. */
  readonly keys: number;
  /** The first of them, in file order (at most GUARD_SAMPLES). */
  readonly samples: readonly ChangeSample[];
}

/** Keys whose tags the input would remove (`tags.prune`): the tags removed as `written`, the row's tags as `file`. */
export interface TagRemovals {
  readonly keys: number;
  readonly samples: readonly ChangeSample[];
}

/** What the first read saw. */
export interface GuardFacts {
  /** Data rows of the input, readable or not. */
  readonly rows: number;
  /** Keys the state store knows (of this shard). */
  readonly knownKeys: number;
  /** Per field with at least one change; empty without a state store. */
  readonly changes: readonly FieldChanges[];
  /** With `tags.prune`: the known keys whose row would remove tags the job set. */
  readonly tagsRemoved?: TagRemovals;
  /**
   * The input's distinct keys (of this shard): how many the state knows (`known`, not departed)
   * and how many it does not (`unknown`, the first few as `newSamples`). Absent without a state store.
   */
  readonly keys?: { readonly known: number; readonly unknown: number; readonly newSamples: readonly string[] };
  /**
   * The platform read before the first write, for the keys the state does not know (a first run
   * into existing contacts): the first FIRST_READ_KEYS of them (`keys`), those a contact holds
   * (`found`), and per field the contacts whose value the row would change or clear. Absent when
   * no such key was read (every key known, or `mode: create`).
   */
  readonly firstRead?: { readonly keys: number; readonly found: number; readonly changes: readonly FieldChanges[]; readonly tagsRemoved: TagRemovals };
}

export interface GuardRefusal {
  readonly guard: GuardName;
  readonly message: string;
}

/** The refusals of the guards the run was not allowed past, worst first; none when the run may write. */
export function guardRefusals(guards: GuardsSpec, facts: GuardFacts, allowed: ReadonlySet<GuardName>, input: string): GuardRefusal[] {
  return guardVerdict(guards, facts, input).filter((refusal) => !allowed.has(refusal.guard));
}

/** Every refusal the guards make of what the first read saw, `--allow` aside, worst first. */
export function guardVerdict(guards: GuardsSpec, facts: GuardFacts, input: string): GuardRefusal[] {
  const refusals: GuardRefusal[] = [];
  const { minRows, maxChangePercent } = guards;
  if (minRows !== undefined && facts.rows < minRows) {
    refusals.push({
      guard: 'minRows',
      message:
        `${input} has ${counted(facts.rows, 'data row')}, fewer than guards.minRows (${minRows}): an empty or cut-short export? ` +
        'Check the export (and that the pipe that wrote it failed loudly); to run with this file once, add --allow minRows',
    });
  }
  if (maxChangePercent === undefined) return refusals;
  const limit = `guards.maxChange ${describeShare(maxChangePercent)}`;
  const pastIt = 'Check the export and the mapping; to run with them once, add --allow maxChange';
  if (facts.knownKeys > 0) {
    const whole = counted(facts.knownKeys, 'key');
    // A re-keyed export: the known keys go missing while as many new ones come, each created again.
    const keys = facts.keys;
    const replaced = keys === undefined ? 0 : Math.min(facts.knownKeys - keys.known, keys.unknown);
    if (keys !== undefined && over(replaced, facts.knownKeys, maxChangePercent)) {
      refusals.push({
        guard: 'maxChange',
        message:
          `the input lacks ${facts.knownKeys - keys.known} of the ${whole} the state knows and brings ${counted(keys.unknown, 'key')} it does not know, each a contact created again (${describeShare((100 * replaced) / facts.knownKeys)} of the known keys replaced, more than ${limit}): ` +
          `a re-keyed export (another key column, a new id scheme)? New keys such as ${keys.newSamples.map((key) => JSON.stringify(key)).join(', ')}. ` +
          'Check the key column of the export and key.column; to run with them once, add --allow maxChange',
      });
    }
    refusals.push(...fieldRefusals(facts.changes, facts.knownKeys, maxChangePercent, (change) => `the input would change field "${change.field}" on ${change.keys} of the ${whole} the state knows`, limit, pastIt));
    if (facts.tagsRemoved !== undefined && over(facts.tagsRemoved.keys, facts.knownKeys, maxChangePercent)) {
      refusals.push(tagRefusal(`the input would remove tags (tags.prune) from ${facts.tagsRemoved.keys} of the ${whole} the state knows`, facts.tagsRemoved, facts.knownKeys, limit));
    }
  }
  const read = facts.firstRead;
  if (read !== undefined && read.found > 0) {
    const whole = `the ${counted(read.found, 'contact')} that hold the first ${counted(read.keys, 'key')} the state does not know, read on the platform before any write`;
    refusals.push(...fieldRefusals(read.changes, read.found, maxChangePercent, (change) => `the input would change field "${change.field}" on ${change.keys} of ${whole}`, limit, pastIt));
    if (over(read.tagsRemoved.keys, read.found, maxChangePercent)) {
      refusals.push(tagRefusal(`the input would remove tags (tags.prune) from ${read.tagsRemoved.keys} of ${whole}`, read.tagsRemoved, read.found, limit));
    }
  }
  return refusals;
}

function over(keys: number, whole: number, maxChangePercent: number): boolean {
  return whole > 0 && (100 * keys) / whole > maxChangePercent;
}

/** Each field changed on more than the share of `whole`, worst first. */
function fieldRefusals(changes: readonly FieldChanges[], whole: number, maxChangePercent: number, saw: (change: FieldChanges) => string, limit: string, pastIt: string): GuardRefusal[] {
  return changes
    .map((change) => ({ ...change, percent: (100 * change.keys) / whole }))
    .filter((change) => change.percent > maxChangePercent)
    .sort((a, b) => b.percent - a.percent || a.field.localeCompare(b.field))
    .map((change) => ({
      guard: 'maxChange' as const,
      message: `${saw(change)} (${describeShare(change.percent)}, more than ${limit}): a mapping or an export gone wrong? For example ${change.samples.map(describeSample).join('; ')}. ${pastIt}`,
    }));
}

function tagRefusal(saw: string, removals: TagRemovals, whole: number, limit: string): GuardRefusal {
  return {
    guard: 'maxChange',
    message:
      `${saw} (${describeShare((100 * removals.keys) / whole)}, more than ${limit}): an emptied or renamed tag column? ` +
      `For example ${removals.samples.map((sample) => `${JSON.stringify(sample.key)}: loses ${sample.written}, the row has ${sample.file === '' ? 'no tag' : sample.file}`).join('; ')}. ` +
      'Check the tag column of the export and tags.column; to run with them once, add --allow maxChange',
  };
}

/** `--allow NAME` (every job of the command) or `--allow JOB:NAME` (that job only). */
export interface AllowFlag {
  readonly guard: GuardName;
  /** The job it applies to; undefined: every job the command runs. */
  readonly job?: string;
}

/** `--allow [JOB:]NAME`: the guard and the job, or the problem with it (job names have no `:`). */
export function parseAllow(text: string): AllowFlag | { problem: string } {
  const colon = text.lastIndexOf(':');
  const guard = parseGuardName(colon < 0 ? text : text.slice(colon + 1));
  if (typeof guard !== 'string') return guard;
  if (colon < 0) return { guard };
  const job = text.slice(0, colon).trim();
  return job === '' ? { problem: `"${text}" names no job before ":"; write JOB:${guard}, or ${guard} for every job` } : { guard, job };
}

/** summary.json `guardsAllowed`: a guard `--allow` let this job's run go past, and what it would have said. */
export interface AllowedGuard {
  readonly guard: GuardName;
  /** Whether the job has this guard (`guards.minRows`, `guards.maxChange`). */
  readonly configured: boolean;
  /** How many refusals it let past (0: the guard would not have refused this run). */
  readonly refusals: number;
  readonly messages: readonly string[];
}

/** The guards `allow` names, each with the refusals of `passed` it let past, in the order named. */
export function allowedGuards(guards: GuardsSpec | undefined, allow: ReadonlySet<GuardName>, passed: readonly GuardRefusal[]): AllowedGuard[] {
  return [...allow].map((guard) => {
    const messages = passed.filter((refusal) => refusal.guard === guard).map((refusal) => refusal.message);
    const configured = guard === 'minRows' ? guards?.minRows !== undefined : guards?.maxChangePercent !== undefined;
    return { guard, configured, refusals: messages.length, messages };
  });
}

/** `--allow NAME`: a guard's name, or the problem with it. */
export function parseGuardName(text: string): GuardName | { problem: string } {
  const found = GUARD_NAMES.find((name) => name.toLowerCase() === text.trim().toLowerCase());
  return found ?? { problem: `"${text}" is not a guard; write one of ${GUARD_NAMES.join(', ')}` };
}

function describeSample(sample: ChangeSample): string {
  return `${JSON.stringify(sample.key)}: ${JSON.stringify(sample.written)} -> ${sample.file === '' ? '"" (cleared)' : JSON.stringify(sample.file)}`;
}
