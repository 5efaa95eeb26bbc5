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

export interface ZeroCallResult {
  rows: number;
  calls: number;
  wallMs: number;
  rowsPerSecond: number;
  maxRssKb: number;
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
 * as a first import would leave it: 1M rows at 100 calls a minute would take weeks), then `run`.
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
      store.recordConfirmed(draft.key, { contactId: String(id++), fields: { [draft.keyField]: draft.key, ...draft.fields }, tagsAdded: draft.tagsToAdd, tagsRemoved: [], draftHash: draftHash(draft) });
    }
  } finally {
    store.close();
  }
  context.emulator.reset('bench-channel-1');
  log(`  re-run of ${rows} unchanged rows`);
  const run = await runCli(context.cli, ['run', jobsFile, '--report-dir', join(context.workDir, 'nightly'), '--quiet'], { cwd: context.workDir, env });
  expectExit(run, 'zero-call re-run');
  const calls = context.emulator.counters('bench-channel-1').total.received;
  const result = { rows, calls, wallMs: run.wallMs, rowsPerSecond: rows / (run.wallMs / 1000), maxRssKb: run.maxRssKb };
  log(`     ${calls} calls, ${Math.round(result.rowsPerSecond)} rows/s, peak RSS ${(run.maxRssKb / 1024).toFixed(0)} MB`);
  return result;
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
    '(goals: no call, at least 50,000 rows a second, peak RSS under 250 MB):',
    '',
    '| rows | calls | wall time | rows a second | peak RSS |',
    '|---|---|---|---|---|',
    `| ${zero.rows} | ${zero.calls} | ${(zero.wallMs / 1000).toFixed(1)} s | ${Math.round(zero.rowsPerSecond)} | ${(zero.maxRssKb / 1024).toFixed(0)} MB |`,
    '',
  ].join('\n');
}
