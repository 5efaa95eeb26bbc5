/**
 * `contact-sync reconcile` (issue 21): an export of 2,000 customers against a platform that a run
 * of it left, every contact marked `source: crm`, then edited on the platform (2% of the keys a
 * field, 1% a tag, 1% of the contacts deleted) and given 1% more marked contacts the export lacks.
 * The real CLI reconciles it with `match.prefetch` and without. Per variant: the calls next to the
 * fewest the data allows, the keys found per status next to those planted (a bench that measures
 * a wrong answer is worthless: it throws), the exit code, wall time and peak RSS at the scaled limit.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ApiOperation } from '../src/api/wire-types.js';
import { formatRate } from '../src/config/rate.js';
import type { ContactSeed, RunningEmulator } from '../src/emulator/index.js';
import { SEARCH_PAGE_SIZE, type Rate } from '../src/limits.js';
import { reconcilePaths, type ReconcileSummary } from '../src/pipeline/report/reconcile-summary.js';
import { expectExit, runCli, type CliPaths } from './cli-child.js';
import { CUSTOMER_HEADER, customerCells, customerKey, writeCustomerFile } from './customer-file.js';
import { jobsYaml } from './jobs-file.js';

export const RECONCILE_SECTION = '## Reconcile';

/** The operations that change the platform: a reconcile makes none. */
const WRITES: readonly ApiOperation[] = ['createContact', 'updateContact', 'addTags', 'removeTags', 'sendMessage'];

/** The platform's own rate, for what a variant would take on it. */
const REAL_CALLS_PER_MINUTE = 100;

/** What was done to the platform after the run that synced the export. */
export interface Planted {
  /** Keys whose `lastName` was edited on the platform. */
  fieldEdited: number;
  /** Keys whose contact lost its `newsletter` tag. */
  tagRemoved: number;
  /** Keys whose contact was deleted. */
  missing: number;
  /** Marked contacts whose key the export lacks. */
  extra: number;
}

export interface ReconcileVariant {
  prefetch: boolean;
  keysInFile: number;
  contactsOnPlatform: number;
  /** Requests the emulator received (429s included). */
  calls: number;
  rateLimited: number;
  minimum: number;
  keys: ReconcileSummary['keys'];
  extraListed: boolean;
  wallMs: number;
  maxRssKb: number;
}

export interface ReconcileResult {
  rate: Rate;
  planted: Planted;
  variants: ReconcileVariant[];
}

interface ReconcileContext {
  emulator: RunningEmulator;
  token: string;
  /** The emulator's contacts limit, which the job's connection is told too. */
  rate: Rate;
  workDir: string;
  cli: CliPaths;
}

type Edit = 'field' | 'tag' | 'deleted';

/** Disjoint edits by key: every 50th key a field (2%), then 1% a tag and 1% deleted. */
function editOf(index: number): Edit | undefined {
  if (index % 50 === 0) return 'field';
  if (index % 100 === 25) return 'tag';
  if (index % 100 === 75) return 'deleted';
  return undefined;
}

/** The plan column's values as the job's `map` transform writes them (jobs-file.ts). */
const PLAN_NAMES: Record<string, string> = { basic: 'Basic', pro: 'Pro', enterprise: 'Enterprise' };

/** The contact a run of the benchmark job makes of row `index`: the file's values after the job's transforms. */
export function syncedContact(index: number): ContactSeed {
  const cells = customerCells(index);
  const cell = (column: (typeof CUSTOMER_HEADER)[number]): string => cells[CUSTOMER_HEADER.indexOf(column)] ?? '';
  return {
    custom_fields: {
      customerid: customerKey(index),
      firstName: cell('first_name'),
      lastName: cell('last_name'),
      email: cell('email').toLowerCase(),
      phone: `+65${cell('phone')}`,
      locale: cell('locale'),
      timezone: cell('timezone'),
      plan: PLAN_NAMES[cell('plan')] ?? cell('plan'),
      source: 'crm',
    },
    tags: cell('segments').split(';'),
  };
}

/** The platform: the synced contacts of `rows` keys with the edits of `editOf`, then the extra ones. */
function platformSeeds(rows: number): { seeds: ContactSeed[]; planted: Planted } {
  const planted: Planted = { fieldEdited: 0, tagRemoved: 0, missing: 0, extra: Math.max(1, Math.round(rows / 100)) };
  const seeds: ContactSeed[] = [];
  for (let index = 1; index <= rows; index++) {
    const contact = syncedContact(index);
    const edit = editOf(index);
    if (edit === 'deleted') {
      planted.missing++;
      continue;
    }
    if (edit === 'field') {
      contact.custom_fields = { ...contact.custom_fields, lastName: `Edited${index}` };
      planted.fieldEdited++;
    }
    if (edit === 'tag') {
      contact.tags = contact.tags?.filter((tag) => tag !== 'newsletter');
      planted.tagRemoved++;
    }
    seeds.push(contact);
  }
  for (let index = rows + 1; index <= rows + planted.extra; index++) seeds.push(syncedContact(index));
  return { seeds, planted };
}

/** The keys reconcile.json must count: the extra contacts are listed only with `match.prefetch`. */
function expectedKeys(rows: number, planted: Planted, prefetch: boolean): ReconcileSummary['keys'] {
  const differs = planted.fieldEdited + planted.tagRemoved;
  return {
    inFile: rows,
    same: rows - differs - planted.missing,
    differs,
    missing: planted.missing,
    extra: prefetch ? planted.extra : 0,
    duplicate: 0,
    failed: 0,
  };
}

/**
 * With `match.prefetch`: the pages of the marked contacts (10 a page, at least one), then a search
 * for each key the pages lack (a contact without the marker could hold it). Without: one search
 * per key of the file (a key held by at most one contact is one page).
 */
function minimumCalls(rows: number, marked: number, missing: number, prefetch: boolean): number {
  return prefetch ? Math.max(1, Math.ceil(marked / SEARCH_PAGE_SIZE)) + missing : rows;
}

/** Throws unless reconcile.json says what was planted and the run wrote nothing to the platform. */
function checkAnswer(name: string, summary: ReconcileSummary, expected: ReconcileSummary['keys'], planted: Planted, writes: number): void {
  const problems: string[] = [];
  if (JSON.stringify(summary.keys) !== JSON.stringify(expected)) problems.push(`keys ${JSON.stringify(summary.keys)}, planted ${JSON.stringify(expected)}`);
  const fields = { lastName: planted.fieldEdited, tags: planted.tagRemoved };
  if (JSON.stringify(summary.fields) !== JSON.stringify(fields)) problems.push(`fields ${JSON.stringify(summary.fields)}, planted ${JSON.stringify(fields)}`);
  if (summary.status !== 'completed' || summary.notReached !== 0) problems.push(`status ${summary.status}, ${summary.notReached} rows not reached`);
  if (writes !== 0) problems.push(`${writes} write calls reached the platform`);
  if (problems.length > 0) throw new Error(`bench: reconcile ${name} found what was not planted: ${problems.join('; ')}`);
}

async function runVariant(context: ReconcileContext, jobsFile: string, rows: number, planted: Planted, prefetch: boolean): Promise<ReconcileVariant> {
  const { emulator, token } = context;
  const name = prefetch ? 'reconcile-prefetch' : 'reconcile-search';
  const reportDir = join(context.workDir, 'reports', name);
  const contacts = emulator.contacts(token);
  emulator.resetCounters(token);
  const run = await runCli(context.cli, ['reconcile', jobsFile, '--job', name, '--report-dir', reportDir, '--log-level', 'warn'], {
    cwd: context.workDir,
    env: { BENCH_API_URL: emulator.url, BENCH_CHANNEL_TOKEN: token, BENCH_CONTACTS_RATE: formatRate(context.rate) },
  });
  expectExit(run, `contact-sync reconcile (${name})`, [1]);
  const counters = emulator.counters(token);
  const writes = WRITES.reduce((sum, op) => sum + counters.byOperation[op].received, 0);
  const summary = JSON.parse(readFileSync(reconcilePaths(reportDir, name).summary, 'utf8')) as ReconcileSummary;
  checkAnswer(name, summary, expectedKeys(rows, planted, prefetch), planted, writes);
  const marked = contacts.filter((contact) => contact.custom_fields.source === 'crm').length;
  return {
    prefetch,
    keysInFile: rows,
    contactsOnPlatform: contacts.length,
    calls: counters.total.received,
    rateLimited: counters.total.rateLimited,
    minimum: minimumCalls(rows, marked, planted.missing, prefetch),
    keys: summary.keys,
    extraListed: summary.extra.listed,
    wallMs: run.wallMs,
    maxRssKb: run.maxRssKb,
  };
}

export async function runReconcileBench(context: ReconcileContext, rows: number, log: (line: string) => void): Promise<ReconcileResult> {
  const input = join(context.workDir, 'reconcile.csv');
  await writeCustomerFile(input, rows);
  const jobsFile = join(context.workDir, 'reconcile.yaml');
  writeFileSync(
    jobsFile,
    jobsYaml([
      { name: 'reconcile-prefetch', input, state: false, prefetch: true },
      { name: 'reconcile-search', input, state: false },
    ]),
  );
  context.emulator.reset(context.token);
  const { seeds, planted } = platformSeeds(rows);
  context.emulator.loadContacts(context.token, seeds);
  const variants: ReconcileVariant[] = [];
  for (const prefetch of [true, false]) {
    log(`  ${rows} keys against ${seeds.length} contacts, ${prefetch ? 'with' : 'without'} match.prefetch`);
    const variant = await runVariant(context, jobsFile, rows, planted, prefetch);
    log(`   ${variant.calls} calls (minimum ${variant.minimum}), ${(variant.wallMs / 1000).toFixed(1)} s`);
    variants.push(variant);
  }
  return { rate: context.rate, planted, variants };
}

/** `calls` at the platform's own 100 a minute: minutes, or hours and minutes past the hour. */
function atRealRate(calls: number): string {
  const minutes = calls / REAL_CALLS_PER_MINUTE;
  return minutes < 60 ? `${Number(minutes.toFixed(1))} minutes` : `${Math.floor(minutes / 60)} h ${Math.round(minutes % 60)} min`;
}

function variantSentence(v: ReconcileVariant): string {
  const what = v.prefetch ? 'With `match.prefetch`' : 'Without it';
  const against = v.calls === v.minimum ? 'its minimum' : `**${v.calls - v.minimum} over its minimum of ${v.minimum}**`;
  const unlisted = v.extraListed ? '' : ', and would still not list the contacts the file lacks';
  return `${what}, ${v.calls} calls (${against}; ${v.rateLimited} answered 429) would take ${v.calls} / ${REAL_CALLS_PER_MINUTE} = ${atRealRate(v.calls)} at the platform's real ${REAL_CALLS_PER_MINUTE} calls a minute${unlisted}.`;
}

export function reconcileMarkdown(result: ReconcileResult): string {
  const { planted } = result;
  const [first] = result.variants;
  const rows = first?.keysInFile ?? 0;
  const mb = (kb: number): string => (kb / 1024).toFixed(0);
  const extraCell = (v: ReconcileVariant): string => (v.extraListed ? String(v.keys.extra) : 'not listed');
  return [
    RECONCILE_SECTION,
    '',
    `\`contact-sync reconcile\` (issue 21, docs/reconcile.md), the real CLI, on the API scenarios' export of ${rows} customers (8 fields and 3 tags a row; bench/reconcile.ts). The platform holds the contacts a run of that export would have left, each with the marker \`source: crm\`, then edited on the platform itself: ${planted.fieldEdited} keys (2%) had their \`lastName\` changed and ${planted.tagRemoved} (1%) lost their \`newsletter\` tag (\`differs\`), ${planted.missing} contacts (1%) were deleted (\`missing\`), and ${planted.extra} marked contacts (1%) hold keys the export lacks (\`extra\`). The same file is reconciled by a job with \`match.prefetch: {field: source, value: crm}\` and by the same job without it, no state store. Each count found is the count planted (the bench throws otherwise, and when a write reaches the platform), no key is a duplicate, and both exit 1: they differ.`,
    '',
    `Minimum: with \`match.prefetch\`, the pages of the marked contacts, ceil(marked / ${SEARCH_PAGE_SIZE} a page) (the spec's page size; each page's URL is built from the base URL, the filter and \`page\`, up to \`meta.last_page\`, as the platform notes' pagination quirk requires), then one search for each key the pages lack (a contact without the marker could hold it: the pages prove a key is there, not that it is not). Without it, one search per key of the file, and the contacts the file lacks cannot be listed. Calls are counted by the emulator, whose contacts limit is scaled to ${formatRate(result.rate)} like the API scenarios' (calls do not depend on it; the wall times do).`,
    '',
    '| variant | keys in file | contacts on platform | calls | minimum | same | differs | missing | extra | wall (s) | peak RSS (MB) |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
    ...result.variants.map(
      (v) =>
        `| ${v.prefetch ? 'with `match.prefetch`' : 'without'} | ${v.keysInFile} | ${v.contactsOnPlatform} | ${v.calls} | ${v.minimum} | ${v.keys.same} | ${v.keys.differs} | ${v.keys.missing} | ${extraCell(v)} | ${(v.wallMs / 1000).toFixed(1)} | ${mb(v.maxRssKb)} |`,
    ),
    '',
    ...result.variants.map(variantSentence).flatMap((sentence) => [sentence, '']),
  ].join('\n');
}
