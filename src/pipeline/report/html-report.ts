/**
 * `<job>.report.html`: the run at a glance for a person after a night's run or a migration. One
 * self-contained file: no script, no font, no request of any kind (its Content-Security-Policy
 * forbids them); the chart is inline SVG. Built from the summary and the run digest, so it says
 * nothing the CSV files do not. See docs/reports.md.
 */
import { basename } from 'node:path';
import { CODE_HELP } from './code-help.js';
import { failureCause } from './failure-cause.js';
import { formatDuration } from './duration.js';
import { escapeHtml as escape, pageHead } from './html-page.js';
import type { JobSummary, ReportPaths } from './job-summary.js';
import type { RunDigest } from './run-digest.js';
import type { PaceLimit } from '../real-run-estimate.js';
import { counted } from './counted.js';

export interface HtmlReportInput {
  summary: JobSummary;
  digest: RunDigest;
  /** Requests started in each minute of the run. */
  callsPerMinute: readonly number[];
  /** The budgets the calls went at (summary.json `limits`): the chart's limit line is the contact calls'. */
  limits: readonly PaceLimit[];
  paths: ReportPaths;
}

const OUTCOMES = ['created', 'updated', 'unchanged', 'skipped', 'failed'] as const;
const OUTCOME_COLOURS: Record<(typeof OUTCOMES)[number], string> = {
  created: '#2e7d32',
  updated: '#1565c0',
  unchanged: '#9e9e9e',
  skipped: '#f9a825',
  failed: '#c62828',
};

/** A docs cell as text: `code` spans become <code>. */
function withCode(text: string): string {
  return escape(text).replace(/`([^`]*)`/g, '<code>$1</code>');
}

export function renderHtmlReport(input: HtmlReportInput): string {
  const { summary } = input;
  const title = `contact-sync: ${summary.job}${summary.dryRun ? ' (dry run)' : ''}`;
  return `${pageHead(title)}
<h1>${escape(title)}</h1>
<p class="meta">${runIdText(summary)}${escape(summary.startedAt)} to ${escape(summary.finishedAt)} (${escape(formatDuration(summary.durationMs))}) ${statusBadge(summary)}</p>
${stoppedBanner(summary)}${outcomesSection(summary)}
${callsSection(input)}
${chartSection(input)}
${failuresSection(input.digest)}
${changesSection(input)}
${messagesSection(summary)}
${departedSection(summary)}
${verificationSection(summary)}
${filesSection(input.paths, summary)}
</body>
</html>
`;
}

/** The id `history --run` and `undo --run` take; none for a job without a state store. */
function runIdText(summary: JobSummary): string {
  return summary.runId === null ? '' : `run <span class="run-id">${escape(summary.runId)}</span>, `;
}

function statusBadge(summary: JobSummary): string {
  if (summary.aborted !== undefined) return `<span class="status" style="background:#c62828">stopped: ${escape(summary.aborted.code)}</span> ${escape(summary.aborted.message)}`;
  if (summary.interrupted !== undefined) return `<span class="status" style="background:#f9a825">interrupted (${escape(summary.interrupted)})</span>`;
  const ok = summary.rows.failed === 0;
  return `<span class="status" style="background:${ok ? '#2e7d32' : '#c62828'}">${ok ? 'every row ended well' : `${counted(summary.rows.failed, 'row')} failed`}</span>`;
}

/**
 * A run that stopped before the end of its input says so at the top, before any figure that
 * could pass for the whole file's (issue 34): why, the rows not reached, and what to do.
 */
function stoppedBanner(summary: JobSummary): string {
  const notReached = summary.rows.notReached ?? 0;
  const left = `${notReached} row${notReached === 1 ? '' : 's'} of the input ${notReached === 1 ? 'was' : 'were'} not reached`;
  const again = 'run the same command again to go on: the rows already written settle with no call';
  let words: string;
  switch (summary.status) {
    case 'deadline':
      words = `Stopped at --max-duration: ${left}; ${again}.`;
      break;
    case 'interrupted':
      words = `Interrupted${summary.interrupted === undefined ? '' : ` by ${summary.interrupted}`}: ${left}; ${again}.`;
      break;
    case 'aborted':
      words = `Stopped by ${summary.aborted?.code ?? 'an abort'}: ${left}; fix what stopped it (its message is above), then ${again}.`;
      break;
    default:
      if (notReached === 0) return '';
      // --limit: a run asked to take part of the input.
      words = `Not the whole input (--limit): ${left}; run without --limit to take them.`;
  }
  return `<p id="stopped" role="alert" style="border-left:4px solid #c62828;padding:.5rem .75rem;background:#fff3f3"><strong>${escape(words)}</strong></p>\n`;
}

function outcomesSection(summary: JobSummary): string {
  const total = Math.max(1, summary.rows.total);
  const segments = OUTCOMES.filter((outcome) => summary.rows[outcome] > 0)
    .map((outcome) => `<div title="${outcome} ${summary.rows[outcome]}" style="width:${((summary.rows[outcome] / total) * 100).toFixed(2)}%;background:${OUTCOME_COLOURS[outcome]}"></div>`)
    .join('');
  const rows = OUTCOMES.map(
    (outcome) => `<tr><td><span style="color:${OUTCOME_COLOURS[outcome]}">&#9632;</span> ${outcome}</td><td class="n">${summary.rows[outcome]}</td></tr>`,
  ).join('');
  return `<h2 id="outcomes">Rows</h2>
<div class="bar">${segments}</div>
<table><tbody>${rows}<tr><th>total</th><th class="n">${summary.rows.total}</th></tr></tbody></table>`;
}

function callsSection(input: HtmlReportInput): string {
  const { summary, digest } = input;
  const minimum = digest.minimumWrites as Record<string, number>;
  const rows = Object.entries(summary.apiCalls.byOperation)
    .filter(([operation, calls]) => calls > 0 || (minimum[operation] ?? 0) > 0)
    .map(([operation, calls]) => {
      const least = minimum[operation];
      return `<tr><td>${escape(operation)}</td><td class="n">${calls}</td><td class="n">${least === undefined ? '<span class="meta">lookup</span>' : least}</td></tr>`;
    })
    .join('');
  const leastTotal = Object.values(minimum).reduce((sum, n) => sum + n, 0);
  return `<h2 id="calls">API calls</h2>
<table><thead><tr><th>operation</th><th class="n">calls</th><th class="n">least the data needed</th></tr></thead>
<tbody>${rows}<tr><th>total</th><th class="n">${summary.apiCalls.total}</th><th class="n">${counted(leastTotal, 'write')}</th></tr></tbody></table>
${endpointsLine(summary)}<p class="meta">Retries ${summary.retries}, 429 answers ${summary.rateLimited}. Searches and reads are the lookups of keys the state store did not know; the writes are what the changes needed at the least (a create per new contact, an update per 30 fields, a tag call per 10 tags, a send per message, and the departed keys' calls).</p>`;
}

/** On a surface that names its calls by endpoint (API v2), the calls by endpoint, in one line. */
function endpointsLine(summary: JobSummary): string {
  const entries = Object.entries(summary.apiCalls.byEndpoint ?? {});
  if (entries.length === 0) return '';
  return `<p class="meta">By endpoint: ${entries.map(([endpoint, calls]) => `<code>${escape(endpoint)}</code> ${calls}`).join(', ')}.</p>\n`;
}

function chartSection(input: HtmlReportInput): string {
  const series = input.callsPerMinute;
  if (series.length === 0) return '<h2 id="rate">Calls per minute</h2>\n<p class="meta">No call was made.</p>';
  const width = 720;
  const height = 200;
  const { perMinute: limitPerMinute, label } = contactLimit(input.limits, input.summary.apiCalls.byOperation);
  const top = Math.max(limitPerMinute, ...series) * 1.1;
  const step = width / series.length;
  const y = (value: number): number => height - (value / top) * height;
  const bars = series
    .map((calls, minute) => `<rect x="${(minute * step + 1).toFixed(1)}" y="${y(calls).toFixed(1)}" width="${Math.max(1, step - 2).toFixed(1)}" height="${(height - y(calls)).toFixed(1)}" fill="#1565c0"><title>minute ${minute + 1}: ${counted(calls, 'call')}</title></rect>`)
    .join('');
  const limit = y(limitPerMinute).toFixed(1);
  return `<h2 id="rate">Calls per minute</h2>
<svg role="img" aria-label="calls per minute against the limit" viewBox="0 0 ${width} ${height + 20}" width="100%" xmlns="http://www.w3.org/2000/svg">
<rect x="0" y="0" width="${width}" height="${height}" fill="#fafafa"/>
${bars}
<line x1="0" x2="${width}" y1="${limit}" y2="${limit}" stroke="#c62828" stroke-dasharray="6 4"/>
<text x="4" y="${Math.max(12, Number(limit) - 4)}" font-size="12" fill="#c62828">${escape(label)}</text>
<text x="4" y="${height + 16}" font-size="12" fill="#616161">${series.length} minute${series.length === 1 ? '' : 's'}; the last one partial</text>
</svg>`;
}

/**
 * What the budgets the contact calls used allow a minute together (sends have a budget of their
 * own; a v2 endpoint never called paces nothing), and the chart's words for it.
 */
function contactLimit(limits: readonly PaceLimit[], calls: Readonly<Record<string, number>>): { perMinute: number; label: string } {
  const all = limits.filter((limit) => limit.operations.some((operation) => operation !== 'sendMessage'));
  const used = all.filter((limit) => limit.operations.some((operation) => (calls[operation] ?? 0) > 0));
  const contacts = used.length > 0 ? used : all;
  const perMinute = Math.round(contacts.reduce((sum, limit) => sum + limit.perMinute, 0) * 10) / 10;
  const sources = [...new Set(contacts.map((limit) => limit.source))].join(', ');
  if (contacts.length === 0) return { perMinute: 0, label: 'no limit known' };
  if (contacts.length === 1) return { perMinute, label: `limit ${perMinute}/min (${sources})` };
  return { perMinute, label: `limit ${perMinute}/min, ${contacts.length} endpoints together (${sources})` };
}

function failuresSection(digest: RunDigest): string {
  const groups = digest.failures();
  if (groups.length === 0) return '<h2 id="failures">Failures</h2>\n<p>No row failed.</p>';
  const blocks = groups
    .map((group) => {
      const help = CODE_HELP[group.code];
      const lines = group.first
        .map((row) => `<tr><td class="n">${row.line}</td><td>${escape(row.key)}</td><td>${escape(row.message)}</td></tr>`)
        .join('');
      return `<h3><code>${escape(group.code)}</code>: ${group.count} row${group.count === 1 ? '' : 's'}</h3>
<p>${withCode(help.meaning)}. <strong>Fix:</strong> ${withCode(help.fix)}.</p>
<table><thead><tr><th class="n">line</th><th>key</th><th>message</th></tr></thead><tbody>${lines}</tbody></table>${
        group.count > group.first.length
          ? `<p class="meta">and ${group.count - group.first.length} more in ${failureCause(group.code) === 'fix' ? 'the rejected rows file' : 'results.csv (failed for a cause outside their data: run again)'}.</p>`
          : ''
      }`;
    })
    .join('\n');
  return `<h2 id="failures">Failures</h2>\n${blocks}`;
}

/** The first lines of changes.csv: each field with the platform's value and the file's, what a migration checks before it writes. */
function changesSection(input: HtmlReportInput): string {
  const { first, count } = input.digest.changes;
  const would = input.summary.dryRun ? 'would change (a dry run: nothing was written)' : 'changed';
  if (count === 0) return `<h2 id="changes">Changes</h2>\n<p>No field or tag ${input.summary.dryRun ? 'would change' : 'changed'}.</p>`;
  const lines = first
    .map((change) => `<tr><td>${escape(change.key)}</td><td>${escape(change.contactId)}</td><td>${escape(change.field)}</td><td>${escape(change.platformValue)}</td><td>${escape(change.fileValue)}</td></tr>`)
    .join('');
  const file = basename(input.paths.changes);
  return `<h2 id="changes">Changes</h2>
<p>${count} field${count === 1 ? '' : 's'} or tag set${count === 1 ? '' : 's'} ${would}${count > first.length ? `; the first ${first.length} here, every one in <code>${escape(file)}</code>` : ''}. For tags, the platform's column names the tags removed and the file's the tags added.</p>
<table><thead><tr><th>key</th><th>contact</th><th>field</th><th>platform's value</th><th>file's value</th></tr></thead><tbody>${lines}</tbody></table>`;
}

function messagesSection(summary: JobSummary): string {
  if (summary.messages === undefined) return '';
  const rows = Object.entries(summary.messages)
    .map(([status, count]) => `<tr><td>${escape(status)}</td><td class="n">${count}</td></tr>`)
    .join('');
  return `<h2 id="messages">Messages</h2>\n<table><tbody>${rows}</tbody></table>`;
}

/** What verification re-read and repaired (summary.json `verified`, `drift`, `verification`). */
function verificationSection(summary: JobSummary): string {
  const verification = summary.verification;
  if (verification === undefined) return '';
  if (verification.applied === false) return `<h2 id="verification">Verification</h2>\n<p>Not done: ${escape(verification.reason)}.</p>`;
  const failed = Number(verification.failed ?? 0) > 0 ? ` ${escape(verification.failed)} could not be read or repaired: the next run tries again.` : '';
  const gone = Number(verification.gone ?? 0) > 0 ? ` ${escape(verification.gone)} no longer exist on the platform: the state forgot them.` : '';
  const dry = verification.dryRun === true ? ' A dry run reads nothing: these are the reads the real run would make.' : '';
  return (
    `<h2 id="verification">Verification</h2>\n<p>${escape(counted(Number(summary.verified), 'contact'))} the state trusts ${Number(summary.verified) === 1 ? 'was' : 'were'} re-read in ${escape(counted(Number(verification.reads), 'call'))} ` +
    `(at most ${escape(verification.budget)}: ${escape(verification.sharePercent)}% of ${escape(verification.trustedKeys)} trusted keys, by ${escape(verification.by)}); ` +
    `<strong>${escape(summary.drift)}</strong> had drifted from what the job last wrote and were repaired (in changes.csv with both values).${failed}${gone}${dry}</p>\n<p class="meta">${escape(verification.reason)}</p>`
  );
}

/** What `onMissing` did with the keys that left the file (summary.json `departed`). */
function departedSection(summary: JobSummary): string {
  const departed = summary.departed as Record<string, unknown> | undefined;
  if (departed === undefined) return '';
  if (departed.applied === false) return `<h2 id="departed">Departed keys</h2>\n<p>Not looked at: ${escape(departed.reason)}.</p>`;
  const counts = ['updated', 'unchanged', 'skipped', 'failed', 'notReached']
    .map((outcome) => `<tr><td>${escape(outcome)}</td><td class="n">${escape(departed[outcome])}</td></tr>`)
    .join('');
  const head = `<p>${escape(departed.missing)} of ${escape(departed.knownKeys)} known keys left the file (${escape(departed.missingPercent)}%; onMissing: ${escape(departed.action)}).</p>`;
  const refused = departed.refused === true ? `<p><span class="status" style="background:#c62828">refused</span> ${escape(departed.message)}</p>` : '';
  return `<h2 id="departed">Departed keys</h2>\n${head}${refused}<table><tbody>${counts}</tbody></table>`;
}

function filesSection(paths: ReportPaths, summary: JobSummary): string {
  const departed = summary.departed as { applied?: boolean } | undefined;
  const links = [
    ['results', paths.results, 'every row and its outcome'],
    ['rejected rows', paths.rejected, 'the rows that failed for their own data, in the input\u2019s own columns and encoding: fix and feed back'],
    ['changes', paths.changes, 'each field a row changed (a dry run: would change) with the platform\u2019s value and the file\u2019s'],
    ['summary', paths.summary, 'the counts, for scripts'],
    ...(departed !== undefined && departed.applied !== false ? [['departed keys', paths.summary.replace(/\.summary\.json$/, '.departed.csv'), 'the keys that left the file and what was done']] : []),
  ]
    .map(([name, path, what]) => `<li><a href="${escape(encodeURIComponent(basename(path!)))}">${escape(basename(path!))}</a>: ${escape(name)}, ${escape(what)}</li>`)
    .join('');
  return `<h2 id="files">Files</h2>\n<ul>${links}</ul>`;
}
