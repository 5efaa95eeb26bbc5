/**
 * Scenarios 1 to 6 of contact-sync against the emulator with a strict limit, and the naive
 * baseline on scenarios 1 to 4. Calls are counted by the emulator (the server's view is the
 * truth), by operation; the achieved rate is sampled from the same counters.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { JobSummary } from '../src/pipeline/report/job-summary.js';
import type { RunningEmulator } from '../src/emulator/index.js';
import type { ContactSeed } from '../src/emulator/index.js';
import { formatRate } from '../src/config/rate.js';
import type { Rate } from '../src/limits.js';
import { CallSampler, steadyRatePerMinute, type CallSample } from './call-sampler.js';
import { expectExit, runCli, type CliPaths } from './cli-child.js';
import { fivePercentChange, writeCustomerFile } from './customer-file.js';
import { jobsYaml, type BenchJob } from './jobs-file.js';
import {
  changedRowsMinimum,
  firstImportMinimum,
  migrationMinimum,
  reconcileMinimum,
  rerunWithStateMinimum,
  rerunWithoutStateMinimum,
  type CountedOperation,
  type MinimumCalls,
} from './minimum-calls.js';
import { naiveSync } from './naive-sync.js';

export const COUNTED_OPERATIONS: readonly CountedOperation[] = ['searchContacts', 'createContact', 'updateContact', 'addTags', 'removeTags'];

/** Channels of the rate-limited emulator: one per independent platform state. */
export const API_CHANNELS = {
  main: 'bench-main-token',
  reconcile: 'bench-reconcile-token',
  migration: 'bench-migration-token',
  naive: 'bench-naive-token',
} as const;

export interface ApiBenchContext {
  emulator: RunningEmulator;
  /** Scratch folder: CSVs, jobs file, state stores, reports. */
  workDir: string;
  cli: CliPaths;
  /** The emulator's strict contacts limit, which the job's connection is told too. */
  rate: Rate;
  rows: number;
}

export interface RunFigures {
  /** Requests the emulator received, by operation (429s included). */
  calls: Record<CountedOperation, number>;
  total: number;
  rateLimited: number;
  /** Accepted calls a minute from 10% to 90% of the run's calls; undefined under 100 calls. */
  steadyPerMinute: number | undefined;
  wallMs: number;
}

export interface ScenarioResult extends RunFigures {
  id: string;
  title: string;
  rows: number;
  minimum: MinimumCalls;
  /** The job's own duration from summary.json (no process start-up). */
  jobMs: number;
  maxRssKb: number;
  cpuMs: number;
  outcomes: Record<string, number>;
  /** Calls the client counted (summary.json), to compare with the server's count. */
  clientCalls: number;
}

export interface BaselineResult extends RunFigures {
  id: string;
  title: string;
  rows: number;
}

export interface ApiBenchResults {
  scenarios: ScenarioResult[];
  baseline: BaselineResult[];
}

interface Files {
  first: string;
  changed: string;
}

async function prepare(context: ApiBenchContext): Promise<Files> {
  const first = join(context.workDir, 'customers.csv');
  const changed = join(context.workDir, 'customers-5pct-changed.csv');
  await writeCustomerFile(first, context.rows);
  await writeCustomerFile(changed, context.rows, fivePercentChange);
  return { first, changed };
}

/**
 * Each scenario has its own jobs file. Scenarios 1, 3 and 4 are one nightly job (one state file
 * belongs to one job) whose export is the first file, then the same, then the changed one.
 */
function scenarioJob(id: string, files: Files): BenchJob {
  switch (id) {
    case '1':
    case '3':
      return { name: 'crm-sync', input: files.first, state: 'state/crm-sync.db' };
    case '4':
      return { name: 'crm-sync', input: files.changed, state: 'state/crm-sync.db' };
    case '2':
      return { name: 'crm-sync-no-state', input: files.first, state: false };
    case '5':
      return { name: 'reconcile', input: files.first, state: false, prefetch: true };
    case '6':
      return { name: 'migration', input: files.first, state: 'state/migration.db', mode: 'create' };
    default:
      throw new Error(`bench: no job for scenario "${id}"`);
  }
}

function countsOf(emulator: RunningEmulator, token: string): { calls: Record<CountedOperation, number>; total: number; rateLimited: number } {
  const counters = emulator.counters(token);
  const calls = Object.fromEntries(COUNTED_OPERATIONS.map((op) => [op, counters.byOperation[op].received])) as Record<CountedOperation, number>;
  return { calls, total: counters.total.received, rateLimited: counters.total.rateLimited };
}

/** Runs `work` while sampling the channel's accepted calls; the counters start from zero. */
async function measured<T extends { wallMs: number }>(emulator: RunningEmulator, token: string, work: () => Promise<T>): Promise<{ result: T; figures: RunFigures }> {
  emulator.resetCounters(token);
  const sampler = new CallSampler(() => {
    const total = emulator.counters(token).total;
    return total.received - total.rateLimited;
  });
  sampler.start();
  let result: T;
  let samples: CallSample[] = [];
  try {
    result = await work();
  } finally {
    samples = sampler.stop();
  }
  return { result, figures: { ...countsOf(emulator, token), steadyPerMinute: steadyRatePerMinute(samples), wallMs: result.wallMs } };
}

async function runScenario(
  context: ApiBenchContext,
  files: Files,
  spec: { id: string; title: string; token: string; minimum: MinimumCalls },
): Promise<ScenarioResult> {
  const job = scenarioJob(spec.id, files);
  const jobsFile = join(context.workDir, `scenario-${spec.id}.yaml`);
  writeFileSync(jobsFile, jobsYaml([job]));
  const reportDir = join('reports', `scenario-${spec.id}`);
  const [paths, args] = [context.cli, ['run', jobsFile, '--report-dir', reportDir, '--log-level', 'warn']] as const;
  const { result: run, figures } = await measured(context.emulator, spec.token, () =>
    runCli(paths, args, {
      cwd: context.workDir,
      env: { BENCH_API_URL: context.emulator.url, BENCH_CHANNEL_TOKEN: spec.token, BENCH_CONTACTS_RATE: formatRate(context.rate) },
    }),
  );
  expectExit(run, `contact-sync run (scenario ${spec.id})`);
  const summary = JSON.parse(readFileSync(join(context.workDir, reportDir, `${job.name}.summary.json`), 'utf8')) as JobSummary;
  return {
    id: spec.id,
    title: spec.title,
    rows: summary.rows.total,
    minimum: spec.minimum,
    ...figures,
    jobMs: summary.durationMs,
    maxRssKb: run.maxRssKb,
    cpuMs: run.cpuMs,
    outcomes: summary.rows,
    clientCalls: summary.apiCalls.total,
  };
}

/** Contacts as scenario 1 left them, with some made to differ: what a reconciliation finds. */
function reconcileSeeds(contacts: ReturnType<RunningEmulator['contacts']>): { seeds: ContactSeed[]; fieldDiffs: number; tagDiffs: number } {
  let fieldDiffs = 0;
  let tagDiffs = 0;
  const seeds = contacts.map((contact): ContactSeed => {
    const index = Number((contact.custom_fields.customerid ?? '').slice(1));
    const fields = { ...contact.custom_fields };
    let tags = [...contact.tags];
    // Every 10th contact was edited on the platform; every 25th lost its newsletter tag.
    if (index % 10 === 0) {
      fields.lastName = `Edited${index}`;
      fieldDiffs++;
    }
    if (index % 25 === 0) {
      tags = tags.filter((tag) => tag !== 'newsletter');
      tagDiffs++;
    }
    return { custom_fields: fields, tags };
  });
  return { seeds, fieldDiffs, tagDiffs };
}

export async function runContactSyncScenarios(context: ApiBenchContext, files: Files, log: (line: string) => void): Promise<ScenarioResult[]> {
  const { rows, emulator } = context;
  const results: ScenarioResult[] = [];
  const step = async (spec: Parameters<typeof runScenario>[2]): Promise<void> => {
    log(`  ${spec.id}. ${spec.title}`);
    const result = await runScenario(context, files, spec);
    log(`  ${spec.id}: ${result.total} calls, ${result.rateLimited} 429s, ${(result.wallMs / 1000).toFixed(1)} s`);
    results.push(result);
  };
  await step({ id: '1', title: `First import of ${rows.toLocaleString('en-US')} rows into an empty channel (upsert, state store empty)`, token: API_CHANNELS.main, minimum: firstImportMinimum(rows) });
  const afterFirstImport = emulator.contacts(API_CHANNELS.main);
  await step({ id: '2', title: 'The same file again, no state store', token: API_CHANNELS.main, minimum: rerunWithoutStateMinimum(rows) });
  await step({ id: '3', title: 'The same file again, with the state store', token: API_CHANNELS.main, minimum: rerunWithStateMinimum() });
  await step({ id: '4', title: '5% of rows changed, with the state store', token: API_CHANNELS.main, minimum: changedRowsMinimum(rows, fivePercentChange) });
  const { seeds, fieldDiffs, tagDiffs } = reconcileSeeds(afterFirstImport);
  emulator.loadContacts(API_CHANNELS.reconcile, seeds);
  await step({
    id: '5',
    title: `Reconciliation of ${rows.toLocaleString('en-US')} rows against ${seeds.length.toLocaleString('en-US')} existing contacts with match.prefetch (no state)`,
    token: API_CHANNELS.reconcile,
    minimum: reconcileMinimum(seeds.length, fieldDiffs, tagDiffs),
  });
  await step({ id: '6', title: '`mode: create` first migration with a state store', token: API_CHANNELS.migration, minimum: migrationMinimum(rows) });
  return results;
}

export async function runBaseline(context: ApiBenchContext, files: Files, log: (line: string) => void): Promise<BaselineResult[]> {
  const results: BaselineResult[] = [];
  const runs = [
    { id: '1', title: 'First import', csvPath: files.first },
    { id: '2', title: 'Same file again', csvPath: files.first },
    { id: '3', title: 'Same file again (the script has no state: as 2)', csvPath: files.first },
    { id: '4', title: '5% of rows changed', csvPath: files.changed },
  ];
  for (const run of runs) {
    log(`  naive ${run.id}. ${run.title}`);
    const { result, figures } = await measured(context.emulator, API_CHANNELS.naive, () =>
      naiveSync({ baseUrl: context.emulator.url, token: API_CHANNELS.naive, csvPath: run.csvPath, rate: context.rate }),
    );
    log(`  naive ${run.id}: ${figures.total} calls, ${figures.rateLimited} 429s, ${(figures.wallMs / 1000).toFixed(1)} s`);
    results.push({ id: run.id, title: run.title, rows: result.rows, ...figures });
  }
  return results;
}

/**
 * Two lanes at once, each on its own channel and budget, as two channels would be on the
 * platform: contact-sync's scenarios, and the naive script. Both are paced by their limit, not by
 * the CPU, so running them side by side keeps the whole bench under 10 minutes without changing
 * either's figures (the results show contact-sync's steady rate at its limiter's ceiling).
 */
export async function runApiBench(context: ApiBenchContext, log: (line: string) => void): Promise<ApiBenchResults> {
  const files = await prepare(context);
  const [scenarios, baseline] = await Promise.all([
    runContactSyncScenarios(context, files, (line) => log(`[contact-sync] ${line}`)),
    runBaseline(context, files, (line) => log(`[naive]        ${line}`)),
  ]);
  return { scenarios, baseline };
}
