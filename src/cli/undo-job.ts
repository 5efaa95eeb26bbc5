/**
 * One job of `contact-sync undo` in its run session (`undo-command.ts`: the session's locks,
 * limiters, signals and report folder), with the pipeline's undo (`pipeline/undo/run-undo.ts`) in
 * place of the row pipeline. Checks that the job keeps a state store holding the run, then prints
 * what was put back.
 */
import { existsSync } from 'node:fs';
import type { Job } from '../config/job-types.js';
import { runUndo } from '../pipeline/undo/run-undo.js';
import { undoSurfaceRefusal } from '../pipeline/undo/undo-plan.js';
import type { UndoSummary } from '../pipeline/report/undo-report.js';
import { noStateYet, openExistingState, runLockHolder } from './open-state.js';
import type { StateAdmin, StateTransfer, UndoStore } from '../state/state-port.js';
import type { JobScope } from './run-session.js';
import { UsageError } from './usage-error.js';
import { counted } from '../pipeline/report/counted.js';

export interface UndoArgs {
  readonly jobsFile: string;
  /** The run to undo, as `state show` and summary.json's `runId` give it. */
  readonly runId: number;
  readonly force: boolean;
  readonly dryRun: boolean;
  /** `--key` (repeatable): undo only these keys' contacts. @default every key the run changed */
  readonly keys?: readonly string[];
  /** `--keep-created`: leave the contacts the run created alone. */
  readonly keepCreated?: boolean;
  /** `--delete-created`: delete the contacts the run created (a surface that deletes: API v2). */
  readonly deleteCreated?: boolean;
}

/**
 * Refuses (exit 2) a job with no state store to undo from, before the session takes its locks: a
 * lock taken for it would leave a lock file (and the state's folder) where no state store is. A
 * database is asked in `undoJob`, once the job's locks are held (it leaves no file behind).
 */
export function refuseWithoutState(jobs: readonly Job[], jobsFile: string): void {
  for (const job of jobs) if (job.state === false || (typeof job.state === 'string' && !existsSync(job.state))) throw noStateToUndo(job, jobsFile);
}

/** Why a job with no state, or none yet, cannot be undone. */
function noStateToUndo(job: Job, jobsFile: string): UsageError {
  const why = job.state === false ? 'has state: false, so no run of it was journalled' : `has no state store yet (${noStateYet(job)})`;
  return new UsageError(`${jobsFile}: job "${job.name}" ${why}; undo puts back what a journalled run changed; nothing was done`);
}

export async function undoJob(run: JobScope, args: UndoArgs): Promise<number> {
  const { job } = run;
  if (job.state === false) throw noStateToUndo(job, args.jobsFile);
  // A database that does not hold the job is left as it was found (no schema, no identity made).
  const state: (StateAdmin & UndoStore & StateTransfer) | undefined = await openExistingState(job, { runLock: runLockHolder(run.argv) });
  if (state === undefined) throw noStateToUndo(job, args.jobsFile);
  run.defer(() => state.close());
  const undone = state.run(args.runId);
  if (undone === undefined) {
    throw new UsageError(`${args.jobsFile}: job "${job.name}" has no run ${args.runId} in its state store; \`contact-sync state show ${args.jobsFile} --job ${job.name}\` lists its runs; nothing was done`);
  }
  if (undone.prunedAt !== null) {
    // Exit 2: nothing can be put back, and saying "nothing to undo" would hide what the run did.
    throw new UsageError(
      `${args.jobsFile}: job "${job.name}": the change journal of run ${args.runId} was pruned by \`contact-sync state prune\` on ${new Date(undone.prunedAt).toISOString()}; ` +
        `what it changed is no longer known, so it cannot be undone (\`state show\` still lists the run); nothing was done`,
    );
  }
  if (undone.journalExpiredAt !== null) {
    // Exit 2, as a pruned run: its values were deleted on purpose, and are nowhere to be read back.
    const setting = job.retention === undefined ? 'retention.journal (a setting the jobs file no longer has)' : `retention.journal ${job.retention.journal} (${job.retention.setAt})`;
    throw new UsageError(
      `${args.jobsFile}: job "${job.name}": the change journal of run ${args.runId} expired on ${new Date(undone.journalExpiredAt).toISOString()} by ${setting}: ` +
        `the run started ${new Date(undone.startedAt).toISOString()}, longer ago than the retention, so what it changed is no longer known and it cannot be undone (\`state show\` still lists the run and its counts); nothing was done`,
    );
  }
  // Exit 2: the ids the journal names are the undone run's surface's, never written to on another.
  const refusal = undoSurfaceRefusal(undone, run.api.surface.name);
  if (refusal !== undefined) throw new UsageError(`${args.jobsFile}: job "${job.name}": ${refusal}; nothing was done`);
  // Exit 2 before any call: the surface has no delete (API v1).
  if (args.deleteCreated === true && !run.api.surface.deletes) {
    throw new UsageError(
      `--delete-created: job "${job.name}" speaks API ${run.api.surface.name}, which cannot delete a contact; without --delete-created, undo tags the contacts run ${args.runId} created ` +
        `contact-sync-undone for a person to delete in the platform's interface (--keep-created leaves them alone); nothing was done`,
    );
  }
  // The run's record says it wrote, its journal holds nothing: saying "nothing to undo" would
  // hide what it did (a run from before the journal, or pruned by an earlier contact-sync).
  const wrote = (undone.rows?.created ?? 0) + (undone.rows?.updated ?? 0);
  if (wrote > 0 && state.changeCountOfRun(args.runId) === 0) {
    throw new UsageError(
      `${args.jobsFile}: job "${job.name}": run ${args.runId} created or updated ${counted(wrote, 'row')} (\`state show\` lists its counts) but its change journal holds no line: ` +
        `it ran before the journal existed, or an earlier contact-sync's \`state prune\` dropped it; it cannot be undone; nothing was done`,
    );
  }
  const missing = (args.keys ?? []).filter((key) => !state.runChangedKey(args.runId, key));
  if (missing.length > 0) {
    throw new UsageError(
      `--key: run ${args.runId} of job "${job.name}" changed no contact of ${missing.map((key) => JSON.stringify(key)).join(', ')}; ` +
        `\`contact-sync history ${args.jobsFile} --job ${job.name} --run ${args.runId}\` lists what it changed; nothing was done`,
    );
  }
  run.logger.info({ job: job.name, run: args.runId, dryRun: args.dryRun, force: args.force, keys: args.keys?.length, keepCreated: args.keepCreated === true, deleteCreated: args.deleteCreated === true }, 'undo started');
  const result = await runUndo({
    job,
    api: run.api,
    state,
    runId: args.runId,
    force: args.force,
    dryRun: args.dryRun,
    ...(args.keys === undefined ? {} : { keys: args.keys }),
    keepCreated: args.keepCreated === true,
    deleteCreated: args.deleteCreated === true,
    reportDir: run.reportDir,
    signal: run.signal,
    argv: run.argv,
    ...(run.deadline === undefined ? {} : { deadline: run.deadline }),
  });
  run.io.stdout.write(formatUndo(result.summary, result.reportFiles));
  if (result.summary.aborted !== undefined) run.logger.error({ job: job.name, code: result.summary.aborted.code }, `undo aborted: ${result.summary.aborted.message}`);
  run.logger.info({ job: job.name, lines: result.summary.lines, apiCalls: result.summary.apiCalls.total, exitCode: result.exitCode }, 'undo finished');
  return result.exitCode;
}

/** What a person reads at the end of an undo: the counts, the contacts to delete by hand, the files. */
export function formatUndo(summary: UndoSummary, reportFiles: readonly string[]): string {
  const { lines } = summary;
  const would = summary.dryRun ? ' (dry run: nothing was written)' : '';
  const text = [
    `${summary.job}: undo of run ${summary.undoneRunId}${would}: ${counted(summary.contacts.total, 'contact')}; ${lines.restored} put back, ${lines['tagged-for-deletion']} tagged for deletion, ${summary.deleteCreated ? `${summary.contacts.deleted} ${summary.dryRun ? 'to delete' : 'deleted'}, ` : ''}${lines.unchanged} already as before, ${counted(lines.conflict, 'conflict')}, ${lines.unverified} unverified, ${lines.failed} failed${summary.contacts.notReached > 0 ? `; ${counted(summary.contacts.notReached, 'contact')} not reached` : ''}; ${counted(summary.apiCalls.total, 'API call')}`,
  ];
  if (summary.contacts.total === 0 && summary.contacts.keptCreated === 0) text.push(`  run ${summary.undoneRunId} has no line in the change journal (it wrote nothing, was a dry run or a reconcile, or ran before the journal existed): nothing to undo`);
  if (summary.keys !== undefined) text.push(`  only the contacts of ${counted(summary.keys.length, 'key')} (--key) were undone; the run's other changes stand`);
  if (summary.contacts.keptCreated > 0) text.push(`  ${counted(summary.contacts.keptCreated, 'contact')} the run created ${summary.contacts.keptCreated === 1 ? 'was' : 'were'} left alone (--keep-created): not tagged for deletion`);
  if (lines.conflict > 0) text.push(`  conflicts: fields changed on the platform since run ${summary.undoneRunId} were left as they are${summary.deleteCreated ? ' (a created contact changed since is kept, not deleted)' : ''}; undo.csv lists them (--force puts them back too)`);
  if (summary.deleteCreated && summary.contacts.deleted > 0) {
    text.push(
      summary.dryRun
        ? `  ${counted(summary.contacts.deleted, 'contact')} the run created would be deleted (--delete-created); none is yet`
        : `  ${counted(summary.contacts.deleted, 'contact')} the run created ${summary.contacts.deleted === 1 ? 'was' : 'were'} deleted; undoing this undo creates ${summary.contacts.deleted === 1 ? 'it' : 'them'} again (new ids)`,
    );
  }
  if (lines.unverified > 0) {
    text.push(`  unverified: run ${summary.undoneRunId} wrote by what the state store knew, without reading the platform, so the values before it are not known to have been there; left as they are; undo.csv lists them (--force puts them back anyway)`);
  }
  if (summary.createdContacts.length > 0) {
    const one = summary.createdContacts.length === 1;
    // A dry run tagged none: it says what the undo would do.
    text.push(
      summary.dryRun
        ? `  ${counted(summary.createdContacts.length, 'contact')} the run created would carry the tag contact-sync-undone once the undo runs (none is tagged yet): then delete ${one ? 'it' : 'them'} in the platform's interface (the API cannot)`
        : `  ${counted(summary.createdContacts.length, 'contact')} the run created ${one ? 'carries' : 'carry'} the tag contact-sync-undone: delete ${one ? 'it' : 'them'} in the platform's interface (the API cannot)`,
    );
  }
  for (const file of reportFiles) text.push(`  ${file}`);
  // Last, where a person's eye lands: the id that history and undo take.
  if (summary.runId !== null) text.push(`run id: ${summary.runId} (this undo; it can be undone in turn with --run ${summary.runId})`);
  return `${text.join('\n')}\n`;
}
