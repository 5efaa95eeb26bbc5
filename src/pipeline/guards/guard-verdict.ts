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

/** What the first read saw. */
export interface GuardFacts {
  /** Data rows of the input, readable or not. */
  readonly rows: number;
  /** Keys the state store knows (of this shard). */
  readonly knownKeys: number;
  /** Per field with at least one change; empty without a state store. */
  readonly changes: readonly FieldChanges[];
}

export interface GuardRefusal {
  readonly guard: GuardName;
  readonly message: string;
}

/** The refusals of the guards the run was not allowed past, worst first; none when the run may write. */
export function guardRefusals(guards: GuardsSpec, facts: GuardFacts, allowed: ReadonlySet<GuardName>, input: string): GuardRefusal[] {
  const refusals: GuardRefusal[] = [];
  const { minRows, maxChangePercent } = guards;
  if (minRows !== undefined && facts.rows < minRows && !allowed.has('minRows')) {
    refusals.push({
      guard: 'minRows',
      message:
        `${input} has ${counted(facts.rows, 'data row')}, fewer than guards.minRows (${minRows}): an empty or cut-short export? ` +
        'Check the export (and that the pipe that wrote it failed loudly); to run with this file once, add --allow minRows',
    });
  }
  if (maxChangePercent !== undefined && facts.knownKeys > 0 && !allowed.has('maxChange')) {
    const over = facts.changes
      .map((change) => ({ ...change, percent: (100 * change.keys) / facts.knownKeys }))
      .filter((change) => change.percent > maxChangePercent)
      .sort((a, b) => b.percent - a.percent || a.field.localeCompare(b.field));
    for (const change of over) {
      refusals.push({
        guard: 'maxChange',
        message:
          `the input would change field "${change.field}" on ${change.keys} of the ${counted(facts.knownKeys, 'key')} the state knows (${describeShare(change.percent)}, more than guards.maxChange ${describeShare(maxChangePercent)}): ` +
          `a mapping or an export gone wrong? For example ${change.samples.map(describeSample).join('; ')}. ` +
          'Check the export and the mapping; to run with them once, add --allow maxChange',
      });
    }
  }
  return refusals;
}

/** `--allow NAME`: a guard's name, or the problem with it. */
export function parseGuardName(text: string): GuardName | { problem: string } {
  const found = GUARD_NAMES.find((name) => name.toLowerCase() === text.trim().toLowerCase());
  return found ?? { problem: `"${text}" is not a guard; write one of ${GUARD_NAMES.join(', ')}` };
}

function describeSample(sample: ChangeSample): string {
  return `${JSON.stringify(sample.key)}: ${JSON.stringify(sample.written)} -> ${sample.file === '' ? '"" (cleared)' : JSON.stringify(sample.file)}`;
}
