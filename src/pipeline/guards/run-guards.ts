/**
 * The guards of a run (`guards:`), checked once before the first write and on dry runs: the facts
 * read (`guard-facts.ts`), the pure verdict (`guard-verdict.ts`), and a refusal thrown as exit 2
 * before the reports are opened or the run journalled: a refused night did nothing.
 */
import type { Job } from '../../config/job-types.js';
import { scanGuardFacts, type GuardState } from './guard-facts.js';
import { GuardRefusedError } from './guard-refused-error.js';
import { guardRefusals, type GuardName } from './guard-verdict.js';

export interface GuardCheck {
  /** The job's state store, when it has one (a dry run's too: it only reads). */
  readonly state?: GuardState;
  /** Keys the state knows, of this shard. */
  readonly knownKeys: number;
  readonly mine: (key: string) => boolean;
  /** `--allow NAME`: the guards this run may go past. */
  readonly allow: ReadonlySet<GuardName>;
}

/** Throws a GuardRefusedError when a guard the run may not go past refuses it. */
export async function assertGuards(job: Job, check: GuardCheck): Promise<void> {
  const guards = job.guards;
  if (guards === undefined) return;
  const facts = await scanGuardFacts(job, { ...(check.state === undefined ? {} : { state: check.state }), knownKeys: check.knownKeys, mine: check.mine });
  const refusals = guardRefusals(guards, facts, check.allow, job.input.label ?? job.input.path);
  if (refusals.length > 0) throw new GuardRefusedError(job.name, refusals);
}
