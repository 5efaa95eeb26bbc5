/**
 * Chaos: a 2,000-row job against an emulator that fails calls at random (seeded, so a failure
 * replays): 10% 500s, 5% 429s, 2% of creates committed with the answer dropped, 1% connections
 * reset, 0-4 ms of latency. No row may be lost or reported twice, no key may get a second contact,
 * every row reported written must be on the platform as the file says, and the exit code and the
 * summary must agree with results.csv. A row may fail (its retries ran out): then it is in
 * results.csv only (nothing in it is to fix, so not in rejected.csv), and running the same command
 * again, faults gone, fixes it without a duplicate.
 *
 * The seeds run at the same time, each against its own emulator: a run's pace is set by the
 * limiter's timers and the client's backoff waits, not by the CPU, so three at once take about
 * as long as one. Each seed prints its figures; docs/reliability.md records them.
 */
import { join } from 'node:path';
import type { CallCounters, FaultOptions } from '../../src/emulator/index.js';
import { CUSTOMERS_JOB, TOKEN, customersCsv, fastEmulator, jobsYaml, workspace, type CliRun, type Workspace } from '../helpers/cli-harness.js';
import { STATE_JOB } from '../helpers/state-fixtures.js';
import {
  CLEAN,
  WRITTEN_OUTCOMES,
  auditPlatform,
  countOutcomes,
  dataLines,
  readReport,
  repeatedLines,
  reportedLines,
  type PlatformAudit,
  type ReportRow,
} from './support/platform-audit.js';
import { reportFigures } from '../helpers/figures.js';

const ROWS = 2_000;
/** Rows in flight: the maximum, so the client's backoff waits (500 ms and up) overlap. */
const CONCURRENCY = 64;

const CHAOS_FAULTS: FaultOptions = {
  serverError: 0.1,
  rateLimited: 0.05,
  // A Retry-After pauses the whole connection (docs/reliability.md): random 429s asking for 1 s
  // made a 500-row run of this mix 3 times as long. 0 s keeps the 429 path (retried, never twice).
  retryAfterSeconds: 0,
  createCommitThenDrop: 0.02,
  resetConnection: 0.01,
  latency: { minMs: 0, maxMs: 4 },
};

/** Codes a row may fail with when the platform keeps failing: its retries ran out. */
const RETRIES_EXHAUSTED = new Set(['SERVER_ERROR', 'RATE_LIMITED', 'NETWORK', 'OUTCOME_UNKNOWN']);

const SEEDS = [
  { seed: 101, state: false },
  { seed: 202, state: true },
  { seed: 303, state: false },
];

interface ChaosOutcome {
  run: CliRun;
  results: ReportRow[];
  rejected: ReportRow[];
  summary: ReturnType<Workspace['summary']>;
  /** The emulator's counters after the chaotic run. */
  counters: CallCounters;
  /** The platform after the chaotic run, for the rows reported written. */
  auditAfterRun: PlatformAudit;
  rerun: CliRun;
  rerunResults: ReportRow[];
  /** The platform after the re-run, for every row. */
  auditAfterRerun: PlatformAudit;
}

async function chaosRun(seed: number, state: boolean): Promise<ChaosOutcome> {
  const platform = await fastEmulator({ faults: CHAOS_FAULTS, seed });
  try {
    const ws = workspace();
    ws.write('customers.csv', customersCsv(ROWS));
    ws.write('jobs.yaml', jobsYaml({ url: platform.url, job: `${state ? STATE_JOB : CUSTOMERS_JOB}\nconcurrency: ${CONCURRENCY}` }));
    const command = ['run', 'jobs.yaml', '--log-level', 'warn', '--report-dir'];

    const run = await ws.run([...command, 'chaos']);
    const results = readReport(join(ws.dir, 'chaos', 'import.results.csv'));
    const written = new Set(results.filter((row) => WRITTEN_OUTCOMES.has(row.outcome ?? '')).map((row) => row.key ?? ''));
    const auditAfterRun = auditPlatform(platform, ROWS, written);
    const counters = platform.counters(TOKEN);

    platform.setFaults({});
    const rerun = await ws.run([...command, 'rerun']);
    return {
      run,
      results,
      rejected: readReport(join(ws.dir, 'chaos', 'import.rejected.csv')),
      summary: ws.summary('import', 'chaos'),
      counters,
      auditAfterRun,
      rerun,
      rerunResults: readReport(join(ws.dir, 'rerun', 'import.results.csv')),
      auditAfterRerun: auditPlatform(platform, ROWS),
    };
  } finally {
    await platform.close();
  }
}

describe(`chaos: ${ROWS} rows against a platform failing ~18% of calls at random, then the same command again`, () => {
  const outcomes = new Map<number, ChaosOutcome>();

  beforeAll(async () => {
    const runs = await Promise.all(SEEDS.map(async ({ seed, state }) => [seed, await chaosRun(seed, state)] as const));
    for (const [seed, outcome] of runs) outcomes.set(seed, outcome);
  }, 480_000);

  const outcomeOf = (seed: number): ChaosOutcome => {
    const outcome = outcomes.get(seed);
    if (outcome === undefined) throw new Error(`seed ${seed} did not run`);
    return outcome;
  };

  describe.each(SEEDS)('seed $seed (state store: $state)', ({ seed, state }) => {
    it('reports every input row exactly once in results.csv', () => {
      const { results } = outcomeOf(seed);
      expect(repeatedLines(results)).toEqual([]);
      expect(reportedLines(results)).toEqual(dataLines(ROWS));
    });

    it('exits 0 when no row failed and 1 when some did, and summary.json counts what results.csv holds', () => {
      const { run, results, summary } = outcomeOf(seed);
      const counts = countOutcomes(results);
      expect(summary.rows).toEqual({ ...counts, notReached: 0 });
      expect(run.exitCode).toBe(counts.failed > 0 ? 1 : 0);
    });

    it('leaves one contact per key, holding the fields and tags of the file, for every row reported written; no duplicate at all', () => {
      const { results, auditAfterRun } = outcomeOf(seed);
      expect(results.filter((row) => !WRITTEN_OUTCOMES.has(row.outcome ?? '') && row.outcome !== 'failed')).toEqual([]);
      expect(auditAfterRun).toEqual(CLEAN);
    });

    it('fails a row only when its retries ran out, and keeps such rows out of rejected.csv: nothing in them is to fix, the same command again takes them', () => {
      const { results, rejected, summary } = outcomeOf(seed);
      const failed = results.filter((row) => row.outcome === 'failed');
      expect(failed.filter((row) => !RETRIES_EXHAUSTED.has(row.error_code ?? ''))).toEqual([]);
      expect(rejected).toEqual([]);
      expect((summary.failedRows as { toRunAgain?: number } | undefined)?.toRunAgain ?? 0).toBe(failed.length);
    });

    it('the same command again, faults gone, ends every row well: no row lost, no duplicate', () => {
      const outcome = outcomeOf(seed);
      expect(outcome.rerun.exitCode).toBe(0);
      expect(reportedLines(outcome.rerunResults)).toEqual(dataLines(ROWS));
      expect(outcome.rerunResults.filter((row) => !WRITTEN_OUTCOMES.has(row.outcome ?? ''))).toEqual([]);
      expect(outcome.auditAfterRerun).toEqual(CLEAN);

      const failed = outcome.results.filter((row) => row.outcome === 'failed');
      const { total } = outcome.counters;
      reportFigures(
        `chaos seed ${seed} (state ${state}): rows ${ROWS}, calls ${total.received}, faults injected ${total.faulted} (429s ${total.rateLimited}), ` +
          `retries ${Number(outcome.summary.retries)}, failed rows ${failed.length} [${[...new Set(failed.map((row) => row.error_code))].join(' ')}] ` +
          `all fixed by the re-run, lost rows ${ROWS - new Set(outcome.results.map((row) => row.line)).size}, ` +
          `duplicates ${outcome.auditAfterRerun.duplicates}`,
      );
    });
  });
});
