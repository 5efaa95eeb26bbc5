/**
 * `<job>.reconcile.html`: where the file and the platform disagree, for a person, without opening
 * a spreadsheet: the counts, the fields that differ most, and the first lines of each kind. One
 * self-contained file like the run report (`html-report.ts`): no script, no request of any kind.
 */
import { basename } from 'node:path';
import { formatDuration } from './duration.js';
import { escapeHtml as escape, pageHead } from './html-page.js';
import { differingKeys, type DiffLine, type DiffStatus, type ReconcilePaths, type ReconcileSummary } from './reconcile-summary.js';
import { counted } from './counted.js';

export interface ReconcileHtmlInput {
  summary: ReconcileSummary;
  /** The first lines of each status, in the order written. */
  first: ReadonlyMap<DiffStatus, readonly DiffLine[]>;
  perStatus: number;
  paths: ReconcilePaths;
}

const KINDS: ReadonlyArray<{ status: DiffStatus; title: string; what: string }> = [
  { status: 'differs', title: 'Fields that differ', what: 'the file and the platform hold different values (tags: the file wants the first, the job would remove the second)' },
  {
    status: 'missing',
    title: 'Missing on the platform',
    what: 'no contact holds the key: the next run creates it, unless the line says why the platform cannot create it (then the row must change first)',
  },
  { status: 'extra', title: 'On the platform, not in the file', what: 'contacts with the job\u2019s prefetch marker whose key the file lacks' },
  { status: 'duplicate', title: 'Several contacts for one key', what: 'merge them on the platform, or set onDuplicate' },
  { status: 'failed', title: 'Rows not compared', what: 'unreadable, not mapped, or the platform\u2019s answer failed' },
];

export function renderReconcileHtml(input: ReconcileHtmlInput): string {
  const { summary } = input;
  const title = `contact-sync reconcile: ${summary.job}`;
  const agree = differingKeys(summary.keys) === 0;
  const badge =
    summary.aborted !== undefined
      ? `<span class="status" style="background:#c62828">stopped: ${escape(summary.aborted.code)}</span> ${escape(summary.aborted.message)}`
      : `<span class="status" style="background:${agree ? '#2e7d32' : '#1565c0'}">${agree ? 'the file and the platform agree' : 'the file and the platform differ'}</span>`;
  return `${pageHead(title)}
<h1>${escape(title)}</h1>
<p class="meta">${escape(summary.startedAt)} to ${escape(summary.finishedAt)} (${escape(formatDuration(summary.durationMs))}), ${counted(summary.apiCalls.total, 'call')}, ${summary.finish !== undefined && !summary.finish.dryRun ? 'merges and tags written as asked, nothing else' : 'nothing written to the platform'}. ${badge}</p>
${countsSection(summary)}
${finishSection(summary)}
${fieldsSection(summary)}
${KINDS.map((kind) => linesSection(kind, input)).join('\n')}
<h2 id="files">Files</h2>
<ul><li><a href="${escape(encodeURIComponent(basename(input.paths.diff)))}">${escape(basename(input.paths.diff))}</a>: every difference, one line each</li>
<li><a href="${escape(encodeURIComponent(basename(input.paths.summary)))}">${escape(basename(input.paths.summary))}</a>: the counts, for scripts</li></ul>
</body>
</html>
`;
}

function countsSection(summary: ReconcileSummary): string {
  const { keys } = summary;
  const rows: Array<[string, number]> = [
    ['keys in the file', keys.inFile],
    ['agree', keys.same],
    ['differ', keys.differs],
    ['missing on the platform', keys.missing],
    ['on the platform only', keys.extra],
    ['several contacts', keys.duplicate],
    ['rows not compared', keys.failed],
    ['rows not reached', summary.notReached],
  ];
  const note = summary.extra.listed ? '' : `<p class="meta">Contacts the file lacks were not listed: ${escape(summary.extra.reason ?? '')}</p>`;
  return `<h2 id="counts">Keys</h2>\n<table>${rows.map(([name, n]) => `<tr><td>${escape(name)}</td><td class="n">${n}</td></tr>`).join('')}</table>${note}`;
}

/** What `--merge-duplicates` and `--tag-extras` wrote (or would, in a dry run). */
function finishSection(summary: ReconcileSummary): string {
  const { finish } = summary;
  if (finish === undefined) return '';
  const would = finish.dryRun ? ' (dry run: would be)' : '';
  const rows: Array<[string, number]> = [];
  if (finish.merges !== undefined) rows.push([`keys merged into one contact${would}`, finish.merges.keys], [`contacts merged away${would}`, finish.merges.contactsMerged], ['merges failed', finish.merges.failed]);
  if (finish.tagExtras !== undefined) rows.push([`contacts the file lacks tagged ${finish.tagExtras.tag}${would}`, finish.tagExtras.tagged], ['already tagged', finish.tagExtras.alreadyTagged], ['tags failed', finish.tagExtras.failed]);
  return `<h2 id="finish">Written to the platform</h2>\n<p class="meta">diff.csv's action column says what was done to each key (a merge lists the survivor first)</p>\n<table>${rows.map(([name, n]) => `<tr><td>${escape(name)}</td><td class="n">${n}</td></tr>`).join('')}</table>`;
}

function fieldsSection(summary: ReconcileSummary): string {
  const entries = Object.entries(summary.fields);
  if (entries.length === 0) return '';
  return `<h2 id="fields">The fields that differ most</h2>\n<table><tr><th>field</th><th class="n">keys</th></tr>${entries
    .slice(0, 20)
    .map(([field, n]) => `<tr><td><code>${escape(field)}</code></td><td class="n">${n}</td></tr>`)
    .join('')}</table>`;
}

function linesSection(kind: (typeof KINDS)[number], input: ReconcileHtmlInput): string {
  const lines = input.first.get(kind.status) ?? [];
  if (lines.length === 0) return '';
  // A missing key's line has an error only when the platform cannot create it.
  const errors = kind.status === 'failed' || lines.some((line) => line.errorCode !== '');
  // Reconcile's own writes (--merge-duplicates, --tag-extras): a column of what was done.
  const actions = lines.some((line) => (line.action ?? '') !== '');
  const actionHead = actions ? '<th>action</th>' : '';
  const actionCell = (line: DiffLine): string => (actions ? `<td>${escape(line.action ?? '')}</td>` : '');
  const head = errors ? `<th>key</th>${actions ? '<th>contact</th>' : ''}<th>error</th><th>message</th>${actionHead}` : `<th>key</th><th>contact</th><th>field</th><th>file</th><th>platform</th>${actionHead}`;
  const body = lines
    .map((line) =>
      errors
        ? `<tr><td>${escape(line.key)}</td>${actions ? `<td>${escape(line.contactId)}</td>` : ''}<td><code>${escape(line.errorCode)}</code></td><td>${escape(line.errorMessage)}</td>${actionCell(line)}</tr>`
        : `<tr><td>${escape(line.key)}</td><td>${escape(line.contactId)}</td><td>${escape(line.field)}</td>${valueCells(line.fileValue, line.platformValue)}${actionCell(line)}</tr>`,
    )
    .join('');
  const more = lines.length >= input.perStatus ? `<p class="meta">The first ${input.perStatus} lines; ${escape(basename(input.paths.diff))} has them all.</p>` : '';
  return `<h2 id="${kind.status}">${escape(kind.title)}</h2>\n<p class="meta">${escape(kind.what)}</p>\n<table><tr>${head}</tr>${body}</table>${more}`;
}

/** The marks of whitespace a page would not show (a browser collapses and trims it). */
const WHITESPACE_MARKS: Readonly<Record<string, { readonly mark: string; readonly name: string }>> = {
  ' ': { mark: '\u00b7', name: 'space' },
  '\t': { mark: '\u2192', name: 'tab' },
  '\n': { mark: '\u21b5', name: 'line feed' },
  '\r': { mark: '\u240d', name: 'carriage return' },
  '\u00a0': { mark: '\u237d', name: 'no-break space' },
};

/**
 * The file's and the platform's cells of a differing line. Two values that differ in whitespace
 * only ("Ann" and "Ann ", a tab for a space, a no-break space) would look identical on the page:
 * their whitespace is shown as marks (`·` a space, `→` a tab, `↵` a line feed, `⍽` a no-break
 * space, `␣` any other), each named on hover, and the line says so (issue 41 item 18).
 */
export function valueCells(fileValue: string, platformValue: string): string {
  const bare = (value: string): string => value.replace(/\s/gu, '');
  if (fileValue === platformValue || bare(fileValue) !== bare(platformValue)) return `<td>${escape(fileValue)}</td><td>${escape(platformValue)}</td>`;
  const note = '<br><small class="meta">differs in whitespace only: \u00b7 space, \u2192 tab, \u21b5 line feed, \u237d no-break space</small>';
  return `<td>${visibleWhitespace(fileValue)}${note}</td><td>${visibleWhitespace(platformValue)}</td>`;
}

function visibleWhitespace(value: string): string {
  let html = '';
  for (const char of value) {
    if (!/\s/u.test(char)) {
      html += escape(char);
      continue;
    }
    const known = WHITESPACE_MARKS[char] ?? { mark: '\u2423', name: `U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}` };
    html += `<span title="${known.name}" style="color:#c62828">${known.mark}</span>`;
  }
  return html;
}
