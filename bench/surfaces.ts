/**
 * The platform's two surfaces side by side (issue 36): the same export of N customers synced by the
 * real CLI through API v1 (a channel token) and through API v2 (a workspace token), with the key in
 * a custom field (`customerid`) and in `email`. Per surface and key: a first import's calls next to
 * the fewest the surface allows, its 429s, and the pages a `reconcile` with `match.prefetch` reads
 * for the same N contacts. On v2 also the share of the learnt limit used in the steady part of the
 * import, by one process and by two processes of one organisation (sharing it through Redis when
 * REDIS_URL is set). Calls are counted by the emulator (v1 per operation, v2 per endpoint).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import { V2_REDIS_ID_PREFIX } from '../src/api/v2/learnt-limits.js';
import { listPagesFor, type SurfaceName } from '../src/api/platform-surface.js';
import { V1_SURFACE } from '../src/api/v1/surface.js';
import { V2_SURFACE } from '../src/api/v2/surface.js';
import { formatRate } from '../src/config/rate.js';
import { startEmulator, type RunningEmulator } from '../src/emulator/index.js';
import { DEFAULT_CONTACTS_RATE, DEFAULT_V2_ENDPOINT_RATE, type Rate } from '../src/limits.js';
import type { ReconcileSummary } from '../src/pipeline/report/reconcile-summary.js';
import { reconcilePaths } from '../src/pipeline/report/reconcile-summary.js';
import { steadyRatePerMinute, type CallSample } from './call-sampler.js';
import { expectExit, runCli, type ChildRun, type CliPaths } from './cli-child.js';
import { TAGS_PER_ROW, writeCustomerFile } from './customer-file.js';
import { jobsYaml, type BenchConnection } from './jobs-file.js';
import { firstImportMinimum, totalOf } from './minimum-calls.js';

export const SURFACES_SECTION = '## API v1 and v2 side by side';

const CHANNEL_TOKEN = 'bench-surfaces-channel';
const WORKSPACE_TOKEN = 'bench-surfaces-workspace';

export type KeyKind = 'customerid' | 'email';

export interface SurfacesContext {
  workDir: string;
  cli: CliPaths;
  /** Rows of the export (N). */
  rows: number;
  /** The v1 channel's contacts limit, which the job's connection is told too (v1 limits are configured). */
  v1Rate: Rate;
  /** The limit of each v2 endpoint; the job is told nothing: it learns it from the answers. */
  v2Rate: Rate;
  /** A Redis for the two processes of one organisation; undefined: REDIS_URL is not set. */
  redisUrl: string | undefined;
}

/** The steady use of each v2 endpoint that made calls: accepted calls a second over the limit. */
export interface LimitShare {
  processes: 1 | 2;
  /** Per endpoint used: requests received, 429s, most in any window, the steady share (undefined: too few calls). */
  endpoints: Array<{ endpoint: string; calls: number; rateLimited: number; mostInAnyWindow: number; share: number | undefined }>;
  rateLimited: number;
}

export interface SurfaceRow {
  surface: SurfaceName;
  key: KeyKind;
  rows: number;
  /** The first import's requests (429s included), by operation or endpoint. */
  importCalls: number;
  byOperation: Record<string, number>;
  importRateLimited: number;
  minimum: number;
  /** What the minimum is made of, for RESULTS.md. */
  minimumParts: string;
  reconcilePages: number;
  reconcileMinimum: number;
  reconcileRateLimited: number;
  /** v2 only: the import's share of the learnt limit, one process. */
  oneProcess?: LimitShare;
  /** v2 only: two processes of one organisation, N rows each; a string says why not measured. */
  twoProcesses?: LimitShare | string;
}

export interface SurfacesResult {
  rows: number;
  v1Rate: Rate;
  v2Rate: Rate;
  redisUrl: string | undefined;
  table: SurfaceRow[];
}

/**
 * The fewest calls a first import of `rows` new rows (8 fields, 3 tags each; upsert, nothing known
 * of any key) allows on each surface, derived from the surfaces' rules, not from what contact-sync
 * does:
 * - a lookup a row: with nothing known, the tool cannot know the workspace is empty, and the read is
 *   the price of not creating a duplicate and of knowing what to write (no write when nothing
 *   differs, the report's created / updated / fields changed). v1: a search page by the key's
 *   custom field, the email key included (v1 has no email identifier). v2: a `POST /contact/list`
 *   filtered on a custom-field key; a `GET /contact/email:...` for an email key. (v2's
 *   `create_or_update` by email could skip it on a first import, 2 calls a row, but every later
 *   run without a state store would then write every row, 2 calls, instead of reading it, 1, and
 *   could not tell created from updated: the read is counted.)
 * - on v2, a key that is not the identifier the create lands on (a custom-field key: the
 *   `create_or_update` lands on the row's email): a `GET /contact/email:...` first, the price of
 *   never writing one customer's row over another customer who holds that email (issue 41). An
 *   email key's lookup is that read already.
 * - the write: v1 ceil(9 fields / 30) creates; v2 one `create_or_update` carrying every field.
 * - the tags: ceil(3 / 10) tag calls; neither surface's create takes tags.
 */
function importMinimum(surface: SurfaceName, key: KeyKind, rows: number): { total: number; parts: string } {
  if (surface === 'v1') {
    const minimum = firstImportMinimum(rows);
    return { total: totalOf(minimum.calls), parts: `search ${rows} (by the custom field \`${key}\`), create ${minimum.calls.createContact ?? 0}, add tags ${minimum.calls.addTags ?? 0}` };
  }
  const tags = rows * Math.ceil(TAGS_PER_ROW / V2_SURFACE.tagsPerCall);
  const direct = V2_SURFACE.directLookup(key);
  const lookup = direct ? `GET by \`email:\` ${rows}` : `filtered list ${rows}, GET by \`email:\` (its holder) ${rows}`;
  return { total: (direct ? rows : 2 * rows) + rows + tags, parts: `${lookup}, create_or_update ${rows}, tag ${tags}` };
}

/** The calls a v1 channel or the v2 workspace received: total, 429s, per operation or endpoint. */
function served(emulator: RunningEmulator, surface: SurfaceName): { total: number; rateLimited: number; byOperation: Record<string, number> } {
  if (surface === 'v1') {
    const counters = emulator.counters(CHANNEL_TOKEN);
    return { total: counters.total.received, rateLimited: counters.total.rateLimited, byOperation: Object.fromEntries(Object.entries(counters.byOperation).map(([op, c]) => [op, c.received])) };
  }
  const counters = emulator.v2Counters();
  return { total: counters.total.received, rateLimited: counters.total.rateLimited, byOperation: Object.fromEntries(Object.entries(counters.byEndpoint).map(([op, c]) => [op, c.received])) };
}

/** The operations or endpoints that were called, with their calls. */
function called(byOperation: Record<string, number>): string {
  return Object.entries(byOperation)
    .filter(([, n]) => n > 0)
    .map(([op, n]) => `${op} ${n}`)
    .join(', ');
}

/** Samples every v2 endpoint's accepted requests every 50 ms (one snapshot a tick), for the steady share. */
function sampleEndpoints(emulator: RunningEmulator): () => Map<string, CallSample[]> {
  const samples = new Map<string, CallSample[]>();
  const take = (): void => {
    const at = performance.now();
    for (const [endpoint, counter] of Object.entries(emulator.v2Counters().byEndpoint)) {
      const list = samples.get(endpoint) ?? [];
      list.push({ at, calls: counter.received - counter.rateLimited });
      samples.set(endpoint, list);
    }
  };
  take();
  const timer = setInterval(take, 50);
  return () => {
    clearInterval(timer);
    take();
    return samples;
  };
}

function shareOf(emulator: RunningEmulator, samples: Map<string, CallSample[]>, rate: Rate, processes: 1 | 2): LimitShare {
  const counters = emulator.v2Counters();
  const perMinute = (rate.limit / rate.periodMs) * 60_000;
  const endpoints = Object.entries(counters.byEndpoint)
    .filter(([, counter]) => counter.received > 0)
    .map(([endpoint, counter]) => {
      const steady = steadyRatePerMinute(samples.get(endpoint) ?? []);
      return { endpoint, calls: counter.received, rateLimited: counter.rateLimited, mostInAnyWindow: counters.mostInAnyWindow[endpoint] ?? 0, share: steady === undefined ? undefined : steady / perMinute };
    });
  return { processes, endpoints, rateLimited: counters.total.rateLimited };
}

interface Measure {
  emulator: RunningEmulator;
  surface: SurfaceName;
  jobsFile: string;
  env: Record<string, string>;
}

async function runChild(context: SurfacesContext, measure: Measure, args: readonly string[], what: string, codes: readonly number[] = [0]): Promise<ChildRun> {
  const run = await runCli(context.cli, args, { cwd: context.workDir, env: measure.env });
  expectExit(run, what, codes);
  return run;
}

function environment(emulator: RunningEmulator, surface: SurfaceName, context: SurfacesContext): Record<string, string> {
  return surface === 'v1'
    ? { BENCH_API_URL: emulator.url, BENCH_CHANNEL_TOKEN: CHANNEL_TOKEN, BENCH_CONTACTS_RATE: formatRate(context.v1Rate) }
    : { BENCH_API_URL: emulator.v2Url, BENCH_CHANNEL_TOKEN: WORKSPACE_TOKEN, ...(context.redisUrl === undefined ? {} : { BENCH_REDIS_URL: context.redisUrl }) };
}

async function withEmulator<T>(context: SurfacesContext, work: (emulator: RunningEmulator) => Promise<T>): Promise<T> {
  const emulator = await startEmulator({
    channels: [{ token: CHANNEL_TOKEN }],
    workspaceTokens: [WORKSPACE_TOKEN],
    rateLimits: { contacts: context.v1Rate, messages: false, v2: context.v2Rate },
  });
  try {
    return await work(emulator);
  } finally {
    await emulator.close();
  }
}

/** One row of the table: a first import of N rows on an empty platform, then a reconcile of it. */
async function measureRow(context: SurfacesContext, surface: SurfaceName, key: KeyKind, log: (line: string) => void): Promise<SurfaceRow> {
  const name = `${surface}-${key}`;
  const input = join(context.workDir, `${name}.csv`);
  await writeCustomerFile(input, context.rows);
  const jobsFile = join(context.workDir, `${name}.yaml`);
  const connection: BenchConnection = surface === 'v1' ? { api: 'v1' } : { api: 'v2', organisation: `bench-${process.pid}-${name}`, redis: false };
  const emailKey = key === 'email';
  writeFileSync(
    jobsFile,
    jobsYaml(
      [
        { name: 'import', input, state: false, emailKey },
        { name: 'reconcile', input, state: false, emailKey, prefetch: true },
      ],
      connection,
    ),
  );
  return withEmulator(context, async (emulator) => {
    const measure: Measure = { emulator, surface, jobsFile, env: environment(emulator, surface, context) };
    log(`  ${surface}, key ${key}: first import of ${context.rows} rows`);
    const stopSampling = surface === 'v2' ? sampleEndpoints(emulator) : undefined;
    await runChild(context, measure, ['run', jobsFile, '--job', 'import', '--report-dir', join(context.workDir, `${name}-import`), '--quiet'], `${name} first import`);
    const samples = stopSampling?.();
    const imported = served(emulator, surface);
    const oneProcess = samples === undefined ? undefined : shareOf(emulator, samples, context.v2Rate, 1);
    const reportDir = join(context.workDir, `${name}-reconcile`);
    await runChild(context, measure, ['reconcile', jobsFile, '--job', 'reconcile', '--report-dir', reportDir, '--log-level', 'warn'], `${name} reconcile`);
    const summary = JSON.parse(readFileSync(reconcilePaths(reportDir, 'reconcile').summary, 'utf8')) as ReconcileSummary;
    if (summary.keys.same !== context.rows || summary.keys.inFile !== context.rows) throw new Error(`bench: the ${name} reconcile found ${JSON.stringify(summary.keys)}, not ${context.rows} keys the same`);
    const after = served(emulator, surface);
    const minimum = importMinimum(surface, key, context.rows);
    const row: SurfaceRow = {
      surface,
      key,
      rows: context.rows,
      importCalls: imported.total,
      byOperation: imported.byOperation,
      importRateLimited: imported.rateLimited,
      minimum: minimum.total,
      minimumParts: minimum.parts,
      reconcilePages: after.total - imported.total,
      reconcileMinimum: listPagesFor(surface === 'v1' ? V1_SURFACE : V2_SURFACE, context.rows),
      reconcileRateLimited: after.rateLimited - imported.rateLimited,
      ...(oneProcess === undefined ? {} : { oneProcess }),
    };
    log(`   ${row.importCalls} calls (minimum ${row.minimum}), ${row.importRateLimited} 429s; reconcile ${row.reconcilePages} pages (minimum ${row.reconcileMinimum}); import: ${called(imported.byOperation)}`);
    return row;
  });
}

/**
 * Two processes, N rows each (disjoint keys), one organisation: their connections share the learnt
 * limits through Redis. Without REDIS_URL, not measured (the string says why).
 */
async function measureTwoProcesses(context: SurfacesContext, key: KeyKind, log: (line: string) => void): Promise<LimitShare | string> {
  const { redisUrl } = context;
  if (redisUrl === undefined) return 'not measured: REDIS_URL is not set';
  const name = `v2-${key}-shared`;
  const inputs = [join(context.workDir, `${name}-a.csv`), join(context.workDir, `${name}-b.csv`)] as const;
  await writeCustomerFile(inputs[0], context.rows);
  await writeCustomerFile(inputs[1], context.rows, () => undefined, context.rows + 1);
  const jobsFile = join(context.workDir, `${name}.yaml`);
  const organisation = `bench-${process.pid}-${name}`;
  const emailKey = key === 'email';
  writeFileSync(
    jobsFile,
    jobsYaml(
      [
        { name: 'import-a', input: inputs[0], state: false, emailKey },
        { name: 'import-b', input: inputs[1], state: false, emailKey },
      ],
      { api: 'v2', organisation, redis: true },
    ),
  );
  return withEmulator(context, async (emulator) => {
    const measure: Measure = { emulator, surface: 'v2', jobsFile, env: environment(emulator, 'v2', context) };
    log(`  v2, key ${key}: two processes of one organisation, ${context.rows} rows each, sharing through Redis`);
    const stopSampling = sampleEndpoints(emulator);
    try {
      await Promise.all(
        (['import-a', 'import-b'] as const).map((job) => runChild(context, measure, ['run', jobsFile, '--job', job, '--report-dir', join(context.workDir, `${name}-${job}`), '--quiet'], `${name} ${job}`)),
      );
    } finally {
      await deleteV2Keys(redisUrl, new URL(emulator.v2Url).host, organisation);
    }
    const share = shareOf(emulator, stopSampling(), context.v2Rate, 2);
    log(`   ${share.endpoints.map((e) => `${e.endpoint}: ${e.calls} calls, ${e.rateLimited} 429s, share ${e.share?.toFixed(3) ?? '-'}`).join('; ')}`);
    return share;
  });
}

/** Deletes the Redis keys of one organisation's learnt limits (its Bottlenecks' and its pauses). */
async function deleteV2Keys(redisUrl: string, host: string, organisation: string): Promise<void> {
  const client = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  try {
    const stem = `${V2_REDIS_ID_PREFIX}|${host}|${encodeURIComponent(organisation)}`.replace(/[[\]?\\*]/g, '\\$&');
    for (const pattern of [`b_${stem}*`, `${stem}*`]) {
      const keys = await client.keys(pattern);
      if (keys.length > 0) await client.del(...keys);
    }
  } finally {
    client.disconnect();
  }
}

export async function runSurfacesBench(context: SurfacesContext, log: (line: string) => void): Promise<SurfacesResult> {
  const table: SurfaceRow[] = [];
  for (const surface of ['v1', 'v2'] as const) {
    for (const key of ['customerid', 'email'] as const) {
      const row = await measureRow(context, surface, key, log);
      if (surface === 'v2') row.twoProcesses = await measureTwoProcesses(context, key, log);
      table.push(row);
    }
  }
  return { rows: context.rows, v1Rate: context.v1Rate, v2Rate: context.v2Rate, redisUrl: context.redisUrl, table };
}

const fixed = (n: number, digits = 2): string => Number(n.toFixed(digits)).toString();

/** DESIGN.md: after an endpoint's first answer, at least 0.9 of its learnt limit used, also by two processes. */
const SHARE_GOAL = 0.9;

/** The lowest and highest steady share over the endpoints a run used, with the most in a window. */
function shareCell(share: LimitShare | string | undefined, limit: number): string {
  if (share === undefined) return '-';
  if (typeof share === 'string') return share;
  const shares = share.endpoints.map((e) => e.share).filter((s): s is number => s !== undefined);
  const most = Math.max(...share.endpoints.map((e) => e.mostInAnyWindow));
  const lowest = Math.min(...shares);
  const range = shares.length === 0 ? 'too few calls to tell' : `${lowest.toFixed(3)} to ${Math.max(...shares).toFixed(3)}${lowest >= SHARE_GOAL ? '' : ` (under the goal of ${SHARE_GOAL})`}`;
  return `${range} (${share.endpoints.length} endpoints; most in a window ${most} / ${limit}; ${share.rateLimited} 429s)`;
}

/** Minutes, or hours and minutes past the hour. */
function duration(minutes: number): string {
  const shown = Number(minutes.toFixed(1));
  return minutes < 60 ? `${shown} minute${shown === 1 ? '' : 's'}` : `${Math.floor(minutes / 60)} h ${Math.round(minutes % 60)} min`;
}

/**
 * What the figures say of the same file on each surface: the calls, the reconcile pages, and what
 * the calls take at the platform's rates (v1's 100 contact calls a minute a channel; v2's per
 * endpoint, not published: the emulator's default, which api-v2-notes.md calls unverified).
 */
function reading(result: SurfacesResult): string[] {
  const of = (surface: SurfaceName, key: KeyKind): SurfaceRow | undefined => result.table.find((row) => row.surface === surface && row.key === key);
  const v1 = of('v1', 'customerid');
  const v2 = of('v2', 'customerid');
  if (v1 === undefined || v2 === undefined) return [];
  const atMinimum = result.table.every((row) => row.importCalls === row.minimum);
  const same = result.table.every((row) => row.importCalls === v1.importCalls);
  const v1Minutes = v1.importCalls / (DEFAULT_CONTACTS_RATE.limit * (60_000 / DEFAULT_CONTACTS_RATE.periodMs));
  const v2PerMinute = DEFAULT_V2_ENDPOINT_RATE.limit * (60_000 / DEFAULT_V2_ENDPOINT_RATE.periodMs);
  const busiest = Math.max(...Object.values(v2.byOperation));
  return [
    `Reading: ${same ? `a first import of the same ${result.rows} rows costs the same ${v1.importCalls} calls on either surface and either key` : 'the first imports differ in calls (see the table)'}${atMinimum ? ', each at its minimum' : ''}: a lookup, a write and a tag call a row, and on v2 with a custom-field key the read of the email the create lands on (never one customer written over another). Where v2 is cheaper is listing: reconcile (and \`match.prefetch\`, the departed step, verification) reads ${v2.reconcilePages} pages of ${V2_SURFACE.listPageSize} where v1 reads ${v1.reconcilePages} of ${V1_SURFACE.listPageSize}.`,
    `Where v2 is quicker is its limits: they are per endpoint, so a row's lookup, read of its email, write and tag call each spend a different budget. At v1's ${formatRate(DEFAULT_CONTACTS_RATE)} a channel, the ${v1.importCalls} calls take ${duration(v1Minutes)}; at ${formatRate(DEFAULT_V2_ENDPOINT_RATE)} an endpoint (the emulator's default; v2's real limits are not published and are learnt from the answers), the busiest endpoint's ${busiest} calls take ${duration(busiest / v2PerMinute)}, the endpoints in parallel.`,
  ];
}

export function surfacesMarkdown(result: SurfacesResult): string {
  const { rows } = result;
  const keyCell = (key: KeyKind, surface: SurfaceName): string => (key === 'customerid' ? 'custom field `customerid`' : surface === 'v1' ? '`email` (searched as a custom field)' : '`email` (read by `email:`)');
  const limit = result.v2Rate.limit;
  return [
    SURFACES_SECTION,
    '',
    `The same export of ${rows} customers (the API scenarios' rows: 8 fields and 3 tags each) synced by the real CLI through each surface of one emulator (bench/surfaces.ts): v1 with a channel token, its limit configured (${formatRate(result.v1Rate)}, the API scenarios' scaled rate), and v2 with a workspace token, every endpoint limited to ${formatRate(result.v2Rate)} and the job told nothing: it learns the limits from the answers. Each key twice: a custom field (\`customerid\`) and \`email\` (v1 has no email identifier, so its email key is searched as the custom field \`email\`). First import: upsert into an empty workspace, no state store. Reconcile: the same file against what the import left, \`match.prefetch: {field: source, value: crm}\`, no state store (every key found the same: the bench throws otherwise). Calls are counted by the emulator, 429s included (v1 per operation, v2 per endpoint).`,
    '',
    `Minimum of the first import (bench/surfaces.ts \`importMinimum\`): a lookup a row (nothing is known, so the read is the price of not creating a duplicate and of writing only what differs), on v2 with a custom-field key a read of the email the create lands on (the price of never writing one customer over another who holds that email), one write (v1: ceil(9 fields / 30) create; v2: one \`create_or_update\` with every field), ceil(3 tags / 10) tag calls (neither create takes tags). Reconcile's minimum: ceil(${rows} / page) pages, ${V1_SURFACE.listPageSize} a page on v1, ${V2_SURFACE.listPageSize} on v2 (\`listPagesFor\`). Share of the learnt limit: each v2 endpoint's accepted requests a second between 10% and 90% of its calls (sampled every 50 ms), over its limit; the lowest and highest over the endpoints the run used. Two processes: two \`contact-sync run\` at once, ${rows} rows each (disjoint keys), their connections naming one \`organisation\`${result.redisUrl === undefined ? ' (not measured: REDIS_URL is not set)' : ', sharing its limits through Redis (`rateLimits.redis`)'}.`,
    '',
    '| surface | key | first import: calls | calls/row | minimum/row | over the minimum | 429s | reconcile pages | minimum pages | learnt limit used, one process | learnt limit used, two processes of one organisation |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---|---|',
    ...result.table.map(
      (row) =>
        `| ${row.surface} | ${keyCell(row.key, row.surface)} | ${row.importCalls} | ${fixed(row.importCalls / rows)} | ${fixed(row.minimum / rows)} | ${row.importCalls - row.minimum} | ${row.importRateLimited + row.reconcileRateLimited} | ${row.reconcilePages} | ${row.reconcileMinimum} | ${row.surface === 'v1' ? 'n/a: configured, not learnt' : shareCell(row.oneProcess, limit)} | ${row.surface === 'v1' ? 'n/a' : shareCell(row.twoProcesses, limit)} |`,
    ),
    '',
    `What bounds the share: the learnt limiter gives a request's slot back one window after its answer (so that no window at the server sees one request too many, whatever the network does), so each request's answer time costs answer time / window of the limit; with two processes the slots are taken and given back through Redis, whose round trips count as answer time. On a loaded machine (see the load average below) answers are slower and the share lower; calls and 429s do not depend on it. DESIGN.md's goal is 0.9.`,
    '',
    `429s: every 429 the emulator answered the first import and the reconcile (the learnt limiter's promise is none after an endpoint's first answer; before it, one request an endpoint is in flight); the share cells add the 429s of their own runs.`,
    '',
    ...reading(result).flatMap((sentence) => [sentence, '']),
    'The first imports, call by call:',
    '',
    ...result.table.map((row) => `- **${row.surface}, ${row.key}**: ${called(row.byOperation)}; minimum: ${row.minimumParts}.`),
    '',
  ].join('\n');
}
