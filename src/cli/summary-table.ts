/** The table printed when a job ends: rows by outcome, calls by operation, 429s, retries, time. */
import { advisesMaxMissing } from '../pipeline/departed/departure-plan.js';
import type { DepartedSummary } from '../pipeline/departed/settle-departed.js';
import type { JobSummary } from '../pipeline/report/job-summary.js';
import { differingKeys, type ReconcileSummary } from '../pipeline/report/reconcile-summary.js';
import { counted } from '../pipeline/report/counted.js';
import { formatDuration } from './progress-display.js';

/** What the command asked of the run, where the summary alone cannot tell (a threshold crossed at the end of --limit's rows). */
export interface RunAsked {
  /** `--limit`: the rows the run was to take at most. */
  readonly limit?: number | undefined;
}

export function formatSummary(summary: JobSummary, reportFiles: readonly string[], asked: RunAsked = {}): string {
  const lines: string[] = [''];
  const shard = typeof summary.shard === 'string' ? ` (shard ${summary.shard})` : '';
  const title = `Job ${summary.job}${shard}${summary.dryRun ? ' (dry run: nothing was written)' : ''}`;
  lines.push(title, '-'.repeat(title.length));
  const outcomes = ['created', 'updated', 'unchanged', 'skipped', 'failed'] as const;
  const width = 16;
  for (const outcome of outcomes) lines.push(`${outcome.padEnd(width)}${String(summary.rows[outcome]).padStart(8)}`);
  lines.push(`${'rows'.padEnd(width)}${String(summary.rows.total).padStart(8)}`);
  // A job that stopped says how much of the input it left (rows.notReached).
  if ((summary.rows.notReached ?? 0) > 0) lines.push(`${'not reached'.padEnd(width)}${String(summary.rows.notReached).padStart(8)}`);
  lines.push('');
  for (const [operation, calls] of Object.entries(summary.apiCalls.byOperation)) {
    if (calls > 0) lines.push(`${operation.padEnd(width)}${String(calls).padStart(8)}`);
  }
  lines.push(`${'API calls'.padEnd(width)}${String(summary.apiCalls.total).padStart(8)}`);
  lines.push(`${'429s'.padEnd(width)}${String(summary.rateLimited).padStart(8)}`);
  lines.push(`${'retries'.padEnd(width)}${String(summary.retries).padStart(8)}`);
  lines.push(`${'duration'.padEnd(width)}${formatDuration(summary.durationMs).padStart(8)}`);
  // The id that `history --run` and `undo --run` take (summary.json's runId): none without a state store.
  if (summary.runId !== null) lines.push(`${'run id'.padEnd(width)}${summary.runId.padStart(8)}`);
  const estimate = estimateLine(summary);
  if (estimate !== undefined) lines.push('', estimate);
  if (summary.prefetch !== undefined) {
    const { used, reason, contacts, calls, searchesSaved } = summary.prefetch;
    lines.push('', used ? `prefetch: ${counted(contacts, 'contact')} read in ${counted(calls, 'call')}, ${counted(searchesSaved, 'search', 'searches')} saved` : `prefetch: not used (${reason})`);
  }
  if (summary.messages !== undefined) {
    const { sent, skipped, failed, unknown } = summary.messages;
    lines.push('', `messages: ${sent} sent, ${skipped} skipped, ${failed} failed, ${unknown} unknown`);
  }
  if (summary.fieldsSkipped !== undefined) {
    const byField = Object.entries(summary.fieldsSkipped.byField).map(([field, count]) => `${field} ${count}`).join(', ');
    lines.push('', `fields skipped (onInvalid: skip-field): ${counted(summary.fieldsSkipped.rows, 'row')} written without ${byField}; results.csv's fields_skipped names each value`);
  }
  if (summary.phoneExtensionsDropped !== undefined) {
    const byField = Object.entries(summary.phoneExtensionsDropped.byField).map(([field, count]) => `${field} ${count}`).join(', ');
    lines.push('', `phone extensions not written (E.164 has none): ${counted(summary.phoneExtensionsDropped.rows, 'row')} (${byField}); results.csv's warnings names each, and the phone transform's extensionField keeps them in a field of their own`);
  }
  if (summary.tagsDifferingInCase !== undefined) lines.push('', tagCaseLine(summary.tagsDifferingInCase));
  const departed = departedLine(summary);
  if (departed !== undefined) lines.push('', departed);
  const verification = verificationLine(summary);
  if (verification !== undefined) lines.push('', verification);
  if (summary.aborted !== undefined) lines.push('', `ABORTED (${summary.aborted.code}): ${summary.aborted.message}`);
  if (summary.interrupted !== undefined) lines.push('', `Interrupted by ${summary.interrupted}: the rows taken were finished and reported.`);
  lines.push('', 'Reports:', ...reportFiles.map((file) => `  ${file}`));
  lines.push('', whatNext(summary, reportFiles, asked));
  return `${lines.join('\n')}\n`;
}

/** A dry run's estimate of the real run: its calls by operation and their time at the rate limit. */
function estimateLine(summary: JobSummary): string | undefined {
  const estimate = summary.realRunEstimate;
  if (estimate === undefined) return undefined;
  const byOperation = Object.entries(estimate.calls.byOperation)
    .filter(([, calls]) => calls > 0)
    .map(([operation, calls]) => `${operation} ${calls}`)
    .join(', ');
  const notReached = (summary.rows.notReached ?? 0) > 0 ? ` (the rows this dry run took; ${summary.rows.notReached} not reached are not in it)` : '';
  const recased = estimate.recasedContacts === undefined ? '' : `; ${counted(estimate.recasedContacts, 'contact')} re-tagged with tags ${estimate.recasedContacts === 1 ? 'it holds' : 'they hold'} in another case (tags.case)`;
  return (
    `the real run (estimate${notReached}): ${counted(estimate.calls.total, 'API call')}${byOperation === '' ? '' : ` (${byOperation})`}, ` +
    `about ${formatDuration(estimate.durationMs)} at ${paceText(estimate.limits ?? [], estimate.contactsPerMinute)}${recased}`
  );
}

/**
 * The limits an estimate was reckoned at: `100/min` for one contact budget (v1), else the slowest
 * contact budget's the calls use, how many there are, and where their numbers came from (v2's endpoints).
 */
function paceText(limits: ReadonlyArray<{ readonly operations: readonly string[]; readonly source: string; readonly calls: number }>, slowestPerMinute: number): string {
  // The budgets the calls use: a v2 endpoint the run never calls paces nothing.
  const contacts = limits.filter((limit) => limit.calls > 0 && limit.operations.some((operation) => operation !== 'sendMessage'));
  if (contacts.length <= 1) return `${slowestPerMinute}/min`;
  const sources = [...new Set(contacts.map((limit) => SOURCE_WORDS[limit.source] ?? limit.source))].join(', ');
  return `${slowestPerMinute}/min or more on each of ${contacts.length} endpoints (${sources})`;
}

const SOURCE_WORDS: Readonly<Record<string, string>> = {
  configured: 'configured',
  learnt: 'learnt from the answers',
  'earlier-run': 'learnt by an earlier run',
  ceiling: 'the configured ceiling',
  'first-guess': 'a first guess of 5 a second where nothing is learnt yet',
};

/** The warning of tags that differ only in case: each spelling is a tag of its own. */
export function tagCaseLine(found: { rows: number; firstLine: number; example: readonly string[] }): string {
  return (
    `WARNING: ${counted(found.rows, 'row')} ${found.rows === 1 ? 'carries' : 'carry'} tags that differ only in case (line ${found.firstLine}: ${found.example.join(', ')}): the platform keeps each spelling as a tag of its own; ` +
    `set tags.case: lower to write them as one (${found.example[0]?.toLowerCase() ?? ''}), or fix the export`
  );
}

/** What verification (verify.share) re-read and repaired, or why it did not run. */
function verificationLine(summary: JobSummary): string | undefined {
  const verification = summary.verification;
  if (verification === undefined) return undefined;
  if (verification.applied === false) return `verification: not done: ${String(verification.reason)}`;
  if (verification.dryRun === true) return `verification: a dry run reads nothing; the real run would re-read with ${counted(Number(verification.reads), 'call')} (${String(verification.reason)})`;
  const failed = Number(verification.failed) > 0 ? `, ${Number(verification.failed)} failed (the next run tries again)` : '';
  return `verification: ${counted(summary.verified ?? 0, 'contact')} re-read in ${counted(Number(verification.reads), 'call')} (share ${Number(verification.sharePercent)}% of ${Number(verification.trustedKeys)} trusted keys), ${summary.drift ?? 0} drifted and repaired${failed}`;
}

/** What the departed step (onMissing) did, or why it did not run. */
function departedLine(summary: JobSummary): string | undefined {
  const departed = summary.departed as DepartedSummary | { applied: false; reason: string } | undefined;
  if (departed === undefined) return undefined;
  if ('applied' in departed) return `departed keys: not looked at: ${departed.reason}`;
  if (departed.refused) return `departed keys: REFUSED: ${departed.message ?? ''}`;
  const counts = `${departed.updated} ${summary.dryRun ? 'would change' : 'changed'}, ${departed.unchanged} unchanged, ${departed.skipped} skipped, ${departed.failed} failed`;
  const left = departed.notReached > 0 ? `, ${departed.notReached} left for the next complete run` : '';
  return `departed keys (onMissing: ${departed.action}): ${departed.missing} of ${departed.knownKeys} known keys left the file: ${counts}${left}`;
}

/** The one plain sentence a summary ends with: what is left, and what to run. */
export function whatNext(summary: JobSummary, reportFiles: readonly string[], asked: RunAsked = {}): string {
  const left = summary.rows.notReached ?? 0;
  const failed = summary.rows.failed;
  const rejected = reportFiles.find((file) => file.endsWith('.rejected.csv')) ?? 'the rejected rows file';
  // A summary without failedRows (written before it existed) counts every failed row as to fix.
  const toFix = summary.failedRows?.toFix ?? failed;
  const toRunAgain = summary.failedRows?.toRunAgain ?? 0;
  const rows = (n: number) => counted(n, 'row');
  // Saved from a spreadsheet as UTF-8, a windows-1252 file would be misread by the job's own input.encoding.
  const encoding = summary.failedRows?.rejectedEncoding ?? 'utf-8';
  const savedAs = encoding === 'utf-8' ? '' : ` (written in ${encoding}, as the input: save it in ${encoding})`;
  // One sentence for one row or several: the words that change with the count.
  const words = (n: number) => ({ its: n === 1 ? 'its' : 'their', it: n === 1 ? 'it' : 'them', row: n === 1 ? 'the row' : 'the rows' });
  const fixes = toFix === 0 ? '' : `${rows(toFix)} failed for ${words(toFix).its} data: fix ${words(toFix).it} in ${rejected}${savedAs} and feed it back as input (--input)`;
  const again =
    toRunAgain === 0
      ? ''
      : `${rows(toRunAgain)} failed for a cause outside ${words(toRunAgain).its} data (the job stopped, or the platform refused or failed): nothing in ${words(toRunAgain).row} to fix; ` +
        `results.csv gives ${toRunAgain === 1 ? 'its error_code' : 'the error_code of each'}, and the same command run again takes ${words(toRunAgain).it} once that is fixed`;
  const failures = [fixes, again].filter((part) => part !== '').join('; ');
  const fix = failures === '' ? '' : `; ${failures}`;
  if (summary.dryRun) return `Dry run: nothing was written; run it without --dry-run to make these changes.`;
  switch (summary.status) {
    case 'aborted':
      // Every row --limit was to take was taken: the rows not reached were left by the limit, not by the stop.
      if (asked.limit !== undefined && summary.rows.total >= asked.limit) {
        return `Took the ${rows(asked.limit)} asked for (--limit; ${rows(left)} of the input beyond it not reached)${fix}; ended ${summary.aborted?.code ?? 'aborted'}: fix the cause above, then run again.`;
      }
      return `Stopped (${summary.aborted?.code ?? 'aborted'}) with ${rows(left)} not reached${fix}: fix the cause above, then run the same command again.`;
    case 'interrupted':
      return `Interrupted with ${rows(left)} not reached${fix}: run the same command again to go on.`;
    case 'deadline':
      return `Stopped at --max-duration with ${rows(left)} not reached${fix}: run the same command again to go on.`;
    default:
      if (left > 0) return `Took the rows asked for; ${rows(left)} of the input not reached${fix}.`;
      if (departedRefused(summary)) return `The rows are done${fix}, but the departed step was refused: ${departedWayOn(summary)}.`;
      return failed > 0 ? `Done, but ${failures}.` : 'Done: every row ended well; nothing is left to run.';
  }
}

function departedRefused(summary: JobSummary): boolean {
  const departed = summary.departed as Partial<DepartedSummary> | undefined;
  return departed?.refused === true;
}

/** After a refused departed step: never a share that would act on most of the keys (departure-plan.ts). */
function departedWayOn(summary: JobSummary): string {
  const departed = summary.departed as Partial<DepartedSummary> | undefined;
  return advisesMaxMissing(departed?.missingPercent ?? 100)
    ? 'check the export, then run again (a part of it with --partial; or with --max-missing if the keys really left)'
    : 'most of the known keys are missing, so this input is not the whole export: run a part of it with --partial, or export it again';
}

/** The table printed when a reconcile of a job ends: keys by how they stand, the calls, the files. */
export function formatReconcile(summary: ReconcileSummary, reportFiles: readonly string[]): string {
  const { finish } = summary;
  const wrote = finish !== undefined && !finish.dryRun;
  const title = `Reconcile ${summary.job} (${wrote ? 'merges and tags written as asked; nothing else' : 'nothing was written to the platform'})`;
  const width = 24;
  const line = (name: string, n: number) => `${name.padEnd(width)}${String(n).padStart(8)}`;
  const { keys } = summary;
  const lines = ['', title, '-'.repeat(title.length)];
  lines.push(line('keys in the file', keys.inFile), line('agree', keys.same), line('differ', keys.differs), line('missing on the platform', keys.missing));
  lines.push(summary.extra.listed ? line('on the platform only', keys.extra) : `on the platform only: not listed (${summary.extra.reason ?? ''})`);
  lines.push(line('several contacts', keys.duplicate), line('rows not compared', keys.failed));
  if (summary.notReached > 0) lines.push(line('rows not reached', summary.notReached));
  const fields = Object.entries(summary.fields);
  if (fields.length > 0) lines.push('', `fields that differ: ${fields.slice(0, 8).map(([field, n]) => `${field} ${n}`).join(', ')}${fields.length > 8 ? ', ...' : ''}`);
  if (finish?.merges !== undefined) {
    const { merges } = finish;
    lines.push('', finish.dryRun ? `--merge-duplicates (dry run): ${merges.keys} key(s) would be merged into one contact each (${merges.contactsMerged} contact(s) merged away); diff.csv's action says would-merge, the survivor first` : `--merge-duplicates: ${merges.keys} key(s) merged into one contact each (${merges.contactsMerged} contact(s) merged away), ${merges.failed} failed; diff.csv's action says which`);
  }
  if (finish?.tagExtras !== undefined) {
    const tagged = finish.tagExtras;
    lines.push(finish.dryRun ? `--tag-extras (dry run): ${tagged.tagged} contact(s) the file lacks would get ${tagged.tag}, ${tagged.alreadyTagged} have it` : `--tag-extras: ${tagged.tagged} contact(s) the file lacks got ${tagged.tag}, ${tagged.alreadyTagged} had it, ${tagged.failed} failed${summary.runId === null ? '' : `; \`undo --run ${summary.runId}\` takes it away`}`);
  }
  lines.push('', line('API calls', summary.apiCalls.total));
  if (summary.aborted !== undefined) lines.push('', `ABORTED (${summary.aborted.code}): ${summary.aborted.message}`);
  lines.push('', 'Reports:', ...reportFiles.map((file) => `  ${file}`));
  const differences = differingKeys(keys);
  const next =
    summary.status !== 'completed' || summary.notReached > 0
      ? 'Stopped before the end of the file: run the same command again for a complete answer.'
      : differences === 0
        ? 'The file and the platform agree.'
        : `The file and the platform differ on ${differences} key(s): see the diff; \`contact-sync run\` repairs the fields, tags and missing contacts (the state store now knows what differs).`;
  lines.push('', next);
  return `${lines.join('\n')}\n`;
}
