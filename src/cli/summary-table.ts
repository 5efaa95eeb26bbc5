/** The table printed when a job ends: rows by outcome, calls by operation, 429s, retries, time. */
import type { JobSummary } from '../pipeline/report/report.js';
import { formatDuration } from './progress-display.js';

export function formatSummary(summary: JobSummary, reportFiles: readonly string[]): string {
  const lines: string[] = [''];
  const shard = typeof summary.shard === 'string' ? ` (shard ${summary.shard})` : '';
  const title = `Job ${summary.job}${shard}${summary.dryRun ? ' (dry run: nothing was written)' : ''}`;
  lines.push(title, '-'.repeat(title.length));
  const outcomes = ['created', 'updated', 'unchanged', 'skipped', 'failed'] as const;
  const width = 16;
  for (const outcome of outcomes) lines.push(`${outcome.padEnd(width)}${String(summary.rows[outcome]).padStart(8)}`);
  lines.push(`${'rows'.padEnd(width)}${String(summary.rows.total).padStart(8)}`);
  // A job that stopped says how much of the input it left (rows.notReached).
  if (summary.rows.notReached !== undefined) lines.push(`${'not reached'.padEnd(width)}${String(summary.rows.notReached).padStart(8)}`);
  lines.push('');
  for (const [operation, calls] of Object.entries(summary.apiCalls.byOperation)) {
    if (calls > 0) lines.push(`${operation.padEnd(width)}${String(calls).padStart(8)}`);
  }
  lines.push(`${'API calls'.padEnd(width)}${String(summary.apiCalls.total).padStart(8)}`);
  lines.push(`${'429s'.padEnd(width)}${String(summary.rateLimited).padStart(8)}`);
  lines.push(`${'retries'.padEnd(width)}${String(summary.retries).padStart(8)}`);
  lines.push(`${'duration'.padEnd(width)}${formatDuration(summary.durationMs).padStart(8)}`);
  if (summary.prefetch !== undefined) {
    const { contacts, calls, searchesSaved } = summary.prefetch;
    lines.push('', `prefetch: ${contacts} contacts read in ${calls} calls, ${searchesSaved} searches saved`);
  }
  if (summary.messages !== undefined) {
    const { sent, skipped, failed, unknown } = summary.messages;
    lines.push('', `messages: ${sent} sent, ${skipped} skipped, ${failed} failed, ${unknown} unknown`);
  }
  if (summary.aborted !== undefined) lines.push('', `ABORTED (${summary.aborted.code}): ${summary.aborted.message}`);
  if (summary.interrupted !== undefined) lines.push('', `Interrupted by ${summary.interrupted}: the rows taken were finished and reported.`);
  lines.push('', 'Reports:', ...reportFiles.map((file) => `  ${file}`));
  return `${lines.join('\n')}\n`;
}
