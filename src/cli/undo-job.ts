/**
 * `contact-sync undo`'s job: the run command's locks, limiters, signals and report folder
 * (`run-command.ts`), with the pipeline's undo (`pipeline/undo/run-undo.ts`) in place of the row
 * pipeline. Checks that the job keeps a state store holding the run, then prints what was put back.
 */
import { existsSync } from 'node:fs';
import type { Logger } from 'pino';
import type { ContactsApi } from '../api/contacts-api.js';
import type { Job } from '../config/job-types.js';
import { runUndo } from '../pipeline/undo/run-undo.js';
import type { UndoSummary } from '../pipeline/report/undo-report.js';
import { StateStore } from '../state/state-store.js';
import type { CliIo } from './cli-io.js';
import { UsageError } from './usage-error.js';

export interface UndoArgs {
  readonly jobsFile: string;
  /** The run to undo, as `state show` and summary.json's `runId` give it. */
  readonly runId: number;
  readonly force: boolean;
  readonly dryRun: boolean;
}

export async function undoJob(
  job: Job,
  args: UndoArgs,
  run: { readonly api: ContactsApi; readonly io: CliIo; readonly logger: Logger; readonly reportDir: string; readonly signal: AbortSignal; readonly deadline: number | undefined; readonly argv: string },
): Promise<number> {
  if (job.state === false || !existsSync(job.state)) {
    const why = job.state === false ? 'has state: false, so no run of it was journalled' : `has no state store yet (no file at ${job.state})`;
    throw new UsageError(`${args.jobsFile}: job "${job.name}" ${why}; undo puts back what a journalled run changed; nothing was done`);
  }
  const state = StateStore.open(job.state, { job: job.name, keyField: job.key.field });
  try {
    if (state.run(args.runId) === undefined) {
      throw new UsageError(`${args.jobsFile}: job "${job.name}" has no run ${args.runId} in its state store; \`contact-sync state show ${args.jobsFile} --job ${job.name}\` lists its runs; nothing was done`);
    }
    run.logger.info({ job: job.name, run: args.runId, dryRun: args.dryRun, force: args.force }, 'undo started');
    const undone = await runUndo({
      job,
      api: run.api,
      state,
      runId: args.runId,
      force: args.force,
      dryRun: args.dryRun,
      reportDir: run.reportDir,
      signal: run.signal,
      argv: run.argv,
      ...(run.deadline === undefined ? {} : { deadline: run.deadline }),
    });
    run.io.stdout.write(formatUndo(undone.summary, undone.reportFiles));
    if (undone.summary.aborted !== undefined) run.logger.error({ job: job.name, code: undone.summary.aborted.code }, `undo aborted: ${undone.summary.aborted.message}`);
    run.logger.info({ job: job.name, lines: undone.summary.lines, apiCalls: undone.summary.apiCalls.total, exitCode: undone.exitCode }, 'undo finished');
    return undone.exitCode;
  } finally {
    state.close();
  }
}

/** What a person reads at the end of an undo: the counts, the contacts to delete by hand, the files. */
export function formatUndo(summary: UndoSummary, reportFiles: readonly string[]): string {
  const { lines } = summary;
  const would = summary.dryRun ? ' (dry run: nothing was written)' : '';
  const text = [
    `${summary.job}: undo of run ${summary.undoneRunId}${would}: ${summary.contacts.total} contacts; ${lines.restored} put back, ${lines['tagged-for-deletion']} tagged for deletion, ${lines.unchanged} already as before, ${lines.conflict} conflicts, ${lines.failed} failed${summary.contacts.notReached > 0 ? `; ${summary.contacts.notReached} contacts not reached` : ''}; ${summary.apiCalls.total} API calls`,
  ];
  if (summary.contacts.total === 0) text.push(`  run ${summary.undoneRunId} has no line in the change journal (it wrote nothing, was a dry run or a reconcile, ran before the journal existed, or its journal was pruned): nothing to undo`);
  if (summary.runId !== null) text.push(`  this undo is run ${summary.runId} (it can be undone in turn)`);
  if (lines.conflict > 0) text.push(`  conflicts: fields changed on the platform since run ${summary.undoneRunId} were left as they are; undo.csv lists them (--force puts them back too)`);
  if (summary.createdContacts.length > 0) {
    text.push(`  ${summary.createdContacts.length} contacts the run created carry the tag contact-sync-undone: delete them in the platform's interface (the API cannot)`);
  }
  for (const file of reportFiles) text.push(`  ${file}`);
  return `${text.join('\n')}\n`;
}
