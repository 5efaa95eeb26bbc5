/**
 * The one sentence a chat webhook shows when a job ends (`notify:`, docs/operations.md): which job,
 * on which host, how it ended, the figures that matter, and what to do, the same advice the
 * console prints (`advice`, from the CLI's summary). Pure, with a table test.
 */
import type { JobSummary } from '../pipeline/report/job-summary.js';

export interface NotifyFacts {
  /** The job's report name (`crm`, `crm.shard-1-of-2`). */
  syncJob: string;
  host: string;
  exitCode: number;
  /** summary.json; absent when the job failed before it wrote one. */
  summary?: JobSummary;
  /** Without a summary: the failure's code and message, as the log says them. */
  failure?: { code: string; message: string };
  /** What to do next, as the console says it. */
  advice?: string;
}

/** Whether a webhook with `on` is told of a job that ended with `exitCode`. */
export function shouldNotify(on: 'failure' | 'always', exitCode: number): boolean {
  return on === 'always' || exitCode !== 0;
}

export function notifyText(facts: NotifyFacts): string {
  const who = `contact-sync: job "${facts.syncJob}" on ${facts.host}`;
  const { summary } = facts;
  if (summary === undefined) {
    const failure = facts.failure === undefined ? '' : ` (${facts.failure.code}): ${facts.failure.message}`;
    return `${who} failed before any row, exit ${facts.exitCode}${failure}`;
  }
  const rows = summary.rows;
  // One row is "1 row" (the watchers may not import report/counted.ts: eslint.boundaries.mjs).
  const counts = [`${rows.total} row${rows.total === 1 ? '' : 's'}`, `${rows.created} created`, `${rows.updated} updated`, `${rows.unchanged} unchanged`];
  if (rows.skipped > 0) counts.push(`${rows.skipped} skipped`);
  if (rows.failed > 0) counts.push(`${rows.failed} failed`);
  if ((rows.notReached ?? 0) > 0) counts.push(`${rows.notReached} not reached`);
  const how = `${ending(summary)}${summary.dryRun ? ' (dry run: nothing was written)' : ''}, exit ${facts.exitCode}`;
  const why = summary.aborted === undefined ? '' : `; ${summary.aborted.code}: ${summary.aborted.message}`;
  return `${who} ${how}: ${counts.join(', ')}${why}.${facts.advice === undefined ? '' : ` ${facts.advice}`}`;
}

/** How the run ended, in words. */
function ending(summary: JobSummary): string {
  switch (summary.status) {
    case 'aborted':
      return 'stopped before the end of its input';
    case 'deadline':
      return 'stopped at --max-duration';
    case 'interrupted':
      return `was interrupted (${summary.interrupted ?? 'a signal'})`;
    default:
      return summary.rows.failed > 0 ? 'ended with failed rows' : 'ended well';
  }
}
