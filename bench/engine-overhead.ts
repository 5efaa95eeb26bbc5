/**
 * The engine's own overhead: a first import against an emulator with no rate limit and a fixed
 * 20 ms latency, at several concurrencies. With no budget to wait for, rows a second show what
 * the pipeline itself (and the client's limiter floor) can carry.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ApiClient } from '../src/api/v1/client.js';
import { LimiterRegistry } from '../src/api/limiter.js';
import { parseRate } from '../src/config/rate.js';
import { startEmulator, type RunningEmulator } from '../src/emulator/index.js';
import type { JobSummary } from '../src/pipeline/report/job-summary.js';
import { expectExit, runCli, type CliPaths } from './cli-child.js';
import { writeCustomerFile } from './customer-file.js';
import { jobsYaml } from './jobs-file.js';

/** Latency the emulator adds to every answer, in milliseconds. */
export const OVERHEAD_LATENCY_MS = 20;
/**
 * The connection's rate in these runs: far above what is reached, so the limiter only applies
 * its own cost (calls a hundredth of a millisecond apart, then 0 ms, see `paceFor`).
 */
export const OVERHEAD_RATE = '100000/s';

export interface OverheadResult {
  concurrency: number;
  rows: number;
  calls: number;
  /** The job's duration from summary.json (no process start-up). */
  jobMs: number;
  rowsPerSecond: number;
  /** concurrency / (calls a row x latency): what the latency alone allows. */
  latencyBoundRowsPerSecond: number;
  /** The connection's rate / calls a row: what the limiter allows. */
  limiterBoundRowsPerSecond: number;
  cpuMsPerRow: number;
  maxRssKb: number;
}

/** Calls a second of the API client alone, through the product's limiter and through none. */
export interface SchedulerThroughput {
  concurrency: number;
  calls: number;
  /** Through the limiter `LimiterRegistry` gives for OVERHEAD_RATE (Bottleneck, 1 ms floor). */
  limiterCallsPerSecond: number;
  /** Through a scheduler that calls at once: the client, got and the emulator without the limiter. */
  passThroughCallsPerSecond: number;
}

export interface EngineOverheadResults {
  runs: OverheadResult[];
  scheduler: SchedulerThroughput;
}

const SCHEDULER_CONCURRENCY = 32;

/**
 * Searches through the client in this process, `concurrency` at a time, with the product's
 * limiter and then with none: where the ceiling of the runs above comes from.
 */
async function schedulerThroughput(emulator: RunningEmulator, token: string, calls: number): Promise<SchedulerThroughput> {
  const limiters = new LimiterRegistry();
  const rate = parseRate(OVERHEAD_RATE);
  const limited = limiters.get(emulator.url, token, 'contacts', rate);
  const passThrough = { schedule: <T>(task: () => Promise<T>): Promise<T> => task() } as unknown as typeof limited;
  const measure = async (scheduler: typeof limited): Promise<number> => {
    const api = new ApiClient({ baseUrl: emulator.url, token, limiters: { contacts: scheduler, messages: scheduler } });
    const started = performance.now();
    const perWorker = Math.ceil(calls / SCHEDULER_CONCURRENCY);
    await Promise.all(
      Array.from({ length: SCHEDULER_CONCURRENCY }, async (_, worker) => {
        for (let i = 0; i < perWorker; i++) await api.searchContactsPage('customerid', `K${worker}-${i}`);
      }),
    );
    return ((perWorker * SCHEDULER_CONCURRENCY) / (performance.now() - started)) * 1000;
  };
  try {
    const limiterCallsPerSecond = await measure(limited);
    const passThroughCallsPerSecond = await measure(passThrough);
    return { concurrency: SCHEDULER_CONCURRENCY, calls, limiterCallsPerSecond, passThroughCallsPerSecond };
  } finally {
    await limiters.stop();
  }
}

export async function runEngineOverhead(
  context: { workDir: string; cli: CliPaths },
  runs: ReadonlyArray<{ concurrency: number; rows: number }>,
  schedulerCalls: number,
  log: (line: string) => void,
): Promise<EngineOverheadResults> {
  const tokens = runs.map((run) => `overhead-c${run.concurrency}-token`);
  const schedulerToken = 'overhead-scheduler-token';
  const emulator = await startEmulator({
    channels: [...tokens, schedulerToken].map((token) => ({ token })),
    rateLimits: false,
    faults: { latency: { minMs: OVERHEAD_LATENCY_MS, maxMs: OVERHEAD_LATENCY_MS } },
  });
  const overheadRate = parseRate(OVERHEAD_RATE);
  const allowedPerSecond = (overheadRate.limit * 1000) / overheadRate.periodMs;
  const results: OverheadResult[] = [];
  try {
    for (const [i, run] of runs.entries()) {
      const token = tokens[i]!;
      const name = `overhead-c${run.concurrency}`;
      const input = join(context.workDir, `${name}.csv`);
      await writeCustomerFile(input, run.rows);
      const jobsFile = join(context.workDir, `${name}.yaml`);
      writeFileSync(jobsFile, jobsYaml([{ name, input, state: false, concurrency: run.concurrency }]));
      log(`  concurrency ${run.concurrency}, ${run.rows} rows`);
      const reportDir = join('reports', name);
      const child = await runCli(context.cli, ['run', jobsFile, '--report-dir', reportDir, '--log-level', 'warn'], {
        cwd: context.workDir,
        env: { BENCH_API_URL: emulator.url, BENCH_CHANNEL_TOKEN: token, BENCH_CONTACTS_RATE: OVERHEAD_RATE },
      });
      expectExit(child, `contact-sync run --job ${name}`);
      const summary = JSON.parse(readFileSync(join(context.workDir, reportDir, `${name}.summary.json`), 'utf8')) as JobSummary;
      const calls = emulator.counters(token).total.received;
      const callsPerRow = calls / run.rows;
      const result: OverheadResult = {
        concurrency: run.concurrency,
        rows: run.rows,
        calls,
        jobMs: summary.durationMs,
        rowsPerSecond: (run.rows / summary.durationMs) * 1000,
        latencyBoundRowsPerSecond: (run.concurrency * 1000) / (callsPerRow * OVERHEAD_LATENCY_MS),
        limiterBoundRowsPerSecond: allowedPerSecond / callsPerRow,
        cpuMsPerRow: child.cpuMs / run.rows,
        maxRssKb: child.maxRssKb,
      };
      log(`     ${Math.round(result.rowsPerSecond)} rows/s`);
      results.push(result);
    }
    log(`  client alone, ${SCHEDULER_CONCURRENCY} at a time, with and without the limiter`);
    const scheduler = await schedulerThroughput(emulator, schedulerToken, schedulerCalls);
    log(`     ${Math.round(scheduler.limiterCallsPerSecond)} vs ${Math.round(scheduler.passThroughCallsPerSecond)} calls/s`);
    return { runs: results, scheduler };
  } finally {
    await emulator.close();
  }
}
