/**
 * Unattended operation (issue 16): jobs on separate channels side by side (wall time of N channels
 * against one), and the nightly re-run of an unchanged 1,000,000-row export with a state store,
 * which must make no call (rows a second, peak RSS). Both run the real CLI as a child process.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunningEmulator } from '../src/emulator/index.js';
import { loadJobsFile } from '../src/config/index.js';
import { mapRow } from '../src/pipeline/map/map.js';
import { readSource } from '../src/pipeline/source/source.js';
import { draftHash } from '../src/state/draft-hash.js';
import { StateStore } from '../src/state/state-store.js';
import { expectExit, runCli, type CliPaths } from './cli-child.js';
import { writeCustomerFile } from './customer-file.js';
import { JOB_BODY, jobsYaml } from './jobs-file.js';

export interface ChannelsResult {
  channels: number;
  callsPerJob: number;
  wallMs: number;
  /** Wall time against the one-channel run. */
  ratio: number;
}

export interface ZeroCallRun {
  calls: number;
  wallMs: number;
  rowsPerSecond: number;
  maxRssKb: number;
}

export interface ZeroCallResult {
  rows: number;
  /** The first re-run over a store without row hashes (as an earlier version left it): every row is mapped, its row hash noted. */
  first: ZeroCallRun;
  /** The next re-run: the nightly steady state, unchanged rows settled by their row hash. */
  steady: ZeroCallRun;
}

/** One connection per channel, each with its own token and budget; one job per connection. */
function channelsYaml(url: string, count: number, rate: string, input: string): string {
  const lines = ['connections:'];
  for (let i = 1; i <= count; i++) lines.push(`  c${i}:`, `    baseUrl: ${url}`, `    token: bench-channel-${i}`, `    rateLimits: { contacts: ${rate} }`);
  lines.push('jobs:');
  for (let i = 1; i <= count; i++) lines.push(`  - name: job${i}`, `    connection: c${i}`, `    input: ${JSON.stringify(input)}`, '    mode: upsert', '    state: false', '    concurrency: 8', JOB_BODY);
  return `${lines.join('\n')}\n`;
}

/**
 * 1, 2 and 4 channels, one job each of `rows` new rows (3 calls a row) at `rate` per channel: jobs
 * on separate channels run side by side, so N channels should take about the time of one.
 */
export async function runChannels(
  context: { emulator: RunningEmulator; workDir: string; cli: CliPaths },
  rows: number,
  rate: string,
  log: (line: string) => void,
): Promise<ChannelsResult[]> {
  const input = join(context.workDir, `channels-${rows}.csv`);
  await writeCustomerFile(input, rows);
  const results: ChannelsResult[] = [];
  for (const channels of [1, 2, 4]) {
    for (let i = 1; i <= 4; i++) context.emulator.reset(`bench-channel-${i}`);
    const jobsFile = join(context.workDir, `channels-${channels}.yaml`);
    writeFileSync(jobsFile, channelsYaml(context.emulator.url, channels, rate, input));
    log(`  ${channels} channel(s), ${rows} rows each at ${rate}`);
    const run = await runCli(context.cli, ['run', jobsFile, '--report-dir', join(context.workDir, `channels-${channels}`), '--quiet'], { cwd: context.workDir, env: {} });
    expectExit(run, `${channels} channels`);
    const single = results[0]?.wallMs ?? run.wallMs;
    results.push({ channels, callsPerJob: rows * 3, wallMs: run.wallMs, ratio: run.wallMs / single });
    log(`     ${(run.wallMs / 1000).toFixed(1)} s (${(run.wallMs / single).toFixed(2)}x one channel)`);
  }
  return results;
}

/**
 * The nightly re-run of an unchanged export: a state store that knows every row (filled directly,
 * as a first import by a version without row hashes would leave it: 1M rows at 100 calls a minute
 * would take weeks), then `run` twice: the first maps every row and notes its row hash, the
 * second is every night after.
 */
export async function runZeroCallRerun(
  context: { emulator: RunningEmulator; workDir: string; cli: CliPaths },
  rows: number,
  log: (line: string) => void,
): Promise<ZeroCallResult> {
  const input = join(context.workDir, `nightly-${rows}.csv`);
  await writeCustomerFile(input, rows);
  const statePath = join(context.workDir, `nightly-${rows}.db`);
  const jobsFile = join(context.workDir, `nightly-${rows}.yaml`);
  writeFileSync(jobsFile, jobsYaml([{ name: 'nightly', input, state: statePath, concurrency: 32 }]));
  const env = { BENCH_API_URL: context.emulator.url, BENCH_CHANNEL_TOKEN: 'bench-channel-1', BENCH_CONTACTS_RATE: '6000/min' };
  log(`  filling a state store with ${rows} known rows`);
  await fillKnownStore(jobsFile, statePath, env);
  const rerun = async (what: string, report: string): Promise<ZeroCallRun> => {
    context.emulator.reset('bench-channel-1');
    log(`  ${what}`);
    const run = await runCli(context.cli, ['run', jobsFile, '--report-dir', join(context.workDir, report), '--quiet'], { cwd: context.workDir, env });
    expectExit(run, what);
    const calls = context.emulator.counters('bench-channel-1').total.received;
    const result = { calls, wallMs: run.wallMs, rowsPerSecond: rows / (run.wallMs / 1000), maxRssKb: run.maxRssKb };
    log(`     ${calls} calls, ${Math.round(result.rowsPerSecond)} rows/s, peak RSS ${(run.maxRssKb / 1024).toFixed(0)} MB`);
    return result;
  };
  const first = await rerun(`re-run of ${rows} unchanged rows, over a store without row hashes`, 'nightly-first');
  const steady = await rerun(`re-run of ${rows} unchanged rows, the next night`, 'nightly');
  return { rows, first, steady };
}

/**
 * Fills the SQLite store at `statePath` with every row of the first job of `jobsFile` as known
 * (ids 1, 2, ...), as an earlier version left it: no row hashes, so the first night maps every row.
 */
export async function fillKnownStore(jobsFile: string, statePath: string, env: Record<string, string>): Promise<void> {
  const { jobsFile: loaded } = await loadJobsFile(jobsFile, { env });
  const job = loaded.jobs[0]!;
  const store = StateStore.open(statePath, { job: job.name, keyField: job.key.field });
  try {
    const source = await readSource(job.input);
    let id = 1;
    for await (const record of source.records) {
      if (record.kind !== 'row') continue;
      const mapped = mapRow(record, job);
      if (!mapped.ok) continue;
      const { draft } = mapped;
      store.recordConfirmed(draft.key, { contactId: String(id++), surface: 'v1', fields: { [draft.keyField]: draft.key, ...draft.fields }, tagsAdded: draft.tagsToAdd, tagsRemoved: [], draftHash: draftHash(draft) });
    }
  } finally {
    store.close();
  }
}

/** The section of bench/RESULTS.md, appended after the others. */
export function unattendedMarkdown(channels: readonly ChannelsResult[], zero: ZeroCallResult): string {
  const rows = channels.map((c) => `| ${c.channels} | ${c.callsPerJob} | ${(c.wallMs / 1000).toFixed(1)} s | ${c.ratio.toFixed(2)}x |`);
  return [
    '',
    '## Unattended operation',
    '',
    'Jobs on separate channels run side by side (goal: N channels within 1.2x the time of one).',
    'One job per channel, each of new rows (3 calls a row) at 20 calls a second per channel:',
    '',
    '| channels | calls per job | wall time | against one channel |',
    '|---|---|---|---|',
    ...rows,
    '',
    `The nightly re-run of an unchanged ${zero.rows.toLocaleString('en')}-row export with a state store that knows every row`,
    '(goals: no call, at least 50,000 rows a second, peak RSS under 250 MB). The store is filled as an',
    'earlier version left it, with no row hashes: the first re-run maps every row and notes its row',
    'hash; every re-run after settles the unchanged rows by their row hash (docs/state.md):',
    '',
    '| re-run | rows | calls | wall time | rows a second | peak RSS |',
    '|---|---|---|---|---|---|',
    zeroRow('the first, over a store without row hashes', zero.rows, zero.first),
    zeroRow('the next night (the steady state)', zero.rows, zero.steady),
    '',
  ].join('\n');
}

function zeroRow(what: string, rows: number, run: ZeroCallRun): string {
  return `| ${what} | ${rows} | ${run.calls} | ${(run.wallMs / 1000).toFixed(1)} s | ${Math.round(run.rowsPerSecond)} | ${(run.maxRssKb / 1024).toFixed(0)} MB |`;
}
