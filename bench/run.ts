/**
 * `npm run bench`: every benchmark in one run, written to bench/RESULTS.md. See docs/benchmarks.md.
 *
 *   node dist/bench/run.js [--quick] [--out FILE] [--limiter-only [--cases C,G]] [--unattended-only] [--month-only] [--sqlite-only] [--reconcile-only] [--journal-only] [--short-job-only] [--verify-only] [--surfaces-only] [--stores-only]
 *
 * `--limiter-only` runs the limiter section alone and prints its figures; with `--out FILE` it
 * replaces that section of FILE (a RESULTS.md), saying when and under what load it was taken.
 * `--cases` keeps the limiter cases of those ids (to study one; not with `--out`).
 * `--unattended-only` runs the unattended section alone (channels side by side, the zero-call
 * re-run of 1,000,000 rows) and prints it, with the load average before and after, to be
 * copied into RESULTS.md (its commentary is written by hand).
 * `--month-only` runs the month of nightly runs alone and prints it; with `--out FILE` it
 * replaces (or adds) that section of FILE.
 * `--sqlite-only` runs the SQLite engines' section alone (better-sqlite3 against node:sqlite) and
 * prints it; with `--out FILE` it replaces (or adds) that section of FILE.
 * `--reconcile-only` runs the reconcile section alone (2,000 keys, with and without
 * `match.prefetch`) and prints it; with `--out FILE` it replaces (or adds) that section of FILE.
 * `--journal-only` runs the change journal's section alone (a 2,000-row update run, its journal's
 * bytes and time, the re-run of the unchanged file) and prints it; with `--out FILE` it replaces
 * (or adds) that section of FILE.
 * `--short-job-only` runs the short job's section alone (issue 24: spawn to exit, and the start-up
 * figures) and prints it; with `--out FILE` it replaces (or adds) that section of FILE.
 * `--verify-only` runs the season without reconcile, with `verify` (issue 38), alone and prints it;
 * with `--out FILE` it replaces (or adds) that section of FILE.
 * `--surfaces-only` runs API v1 and v2 side by side (issue 36: a first import's calls by surface
 * and key, reconcile pages, v2's share of the learnt limit by one and two processes) alone and
 * prints it; with `--out FILE` it replaces (or adds) that section of FILE.
 * `--stores-only` runs the state store's two adapters side by side (issue 44: a zero-call night of
 * 1,000,000 rows on SQLite and on the machine's PostgreSQL, its round trips, a first import's
 * calls on each) alone and prints it; with `--out FILE` it replaces (or adds) that section of FILE.
 * `--quick` runs every section at a tenth of the size (a smoke test of the bench itself; its
 * figures are not the committed ones) and writes to a temporary file unless `--out` is given.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { startEmulator } from '../src/emulator/index.js';
import type { Rate } from '../src/limits.js';
import { API_CHANNELS, runApiBench } from './api-scenarios.js';
import type { CliPaths } from './cli-child.js';
import { runEngineOverhead } from './engine-overhead.js';
import { runLimiterGoals } from './limiter-goals.js';
import { runLocalSpeed } from './local-speed.js';
import { machineInfo } from './machine-info.js';
import { renderResults } from './results-markdown.js';
import { runChannels, runZeroCallRerun, unattendedMarkdown } from './unattended.js';
import { replaceLimiterSection } from './limiter-markdown.js';
import { MONTH_PREFETCH_SECTION, MONTH_SECTION, monthMarkdown, runMonthOfNights } from './month-of-nights.js';
import { VERIFY_SEASON_SECTION, runVerifySeason, verifySeasonMarkdown } from './verify-season.js';
import { runSqliteEngines, SQLITE_SECTION } from './sqlite-engines.js';
import { RECONCILE_SECTION, reconcileMarkdown, runReconcileBench } from './reconcile.js';
import { JOURNAL_SECTION, journalMarkdown, runJournalBench } from './change-journal.js';
import { SHORT_JOB_SECTION, runShortJobBench } from './short-job.js';
import { SURFACES_SECTION, runSurfacesBench, surfacesMarkdown } from './surfaces.js';
import { STATE_STORES_SECTION, runStateStoresBench, stateStoresMarkdown } from './state-stores.js';

/**
 * The strict limit of the API scenarios: the platform's 100/min scaled up 60 times, so that a
 * scenario takes seconds instead of an hour. Calls counts do not depend on it; rates are compared
 * with it.
 */
const API_RATE: Rate = { limit: 6000, periodMs: 60_000 };

interface Scale {
  apiRows: number;
  localSizes: number[];
  overheadRuns: Array<{ concurrency: number; rows: number }>;
  schedulerCalls: number;
}

const FULL: Scale = {
  apiRows: 2000,
  localSizes: [100_000, 1_000_000],
  // Fewer rows at concurrency 1: at 20 ms a call it does ~16 rows a second.
  overheadRuns: [
    { concurrency: 1, rows: 200 },
    { concurrency: 8, rows: 1000 },
    { concurrency: 32, rows: 1000 },
  ],
  schedulerCalls: 2048,
};

const QUICK: Scale = {
  apiRows: 200,
  localSizes: [10_000, 100_000],
  overheadRuns: [
    { concurrency: 1, rows: 20 },
    { concurrency: 8, rows: 100 },
    { concurrency: 32, rows: 200 },
  ],
  schedulerCalls: 256,
};

async function main(argv: readonly string[]): Promise<void> {
  const quick = argv.includes('--quick');
  const outIndex = argv.indexOf('--out');
  if (argv.includes('--limiter-only')) {
    const casesIndex = argv.indexOf('--cases');
    const only = casesIndex >= 0 ? (argv[casesIndex + 1] ?? '').split(',').filter((id) => id !== '') : undefined;
    if (only !== undefined && outIndex >= 0) throw new Error('--cases measures some cases only: it cannot replace the whole limiter section (--out)');
    // The limiter section alone, printed; with --out, its section of that file is replaced.
    // The machine (its load) as the measure starts: what the section says it records.
    const machine = machineInfo(new Date());
    const limiter = await runLimiterGoals(quick ? 0.3 : 1, (line) => console.log(line), only);
    if (outIndex >= 0 && argv[outIndex + 1] !== undefined) {
      const file = resolve(argv[outIndex + 1]!);
      writeFileSync(file, replaceLimiterSection(readFileSync(file, 'utf8'), limiter, machine));
      console.log(`replaced the limiter section of ${file}`);
    }
    return;
  }
  const here = dirname(fileURLToPath(import.meta.url));
  const root = resolve(here, '..', '..');
  const cli: CliPaths = { bin: join(root, 'bin', 'contact-sync.js'), probe: join(here, 'rusage-probe.js') };
  if (argv.includes('--sqlite-only')) {
    // The SQLite engines alone, printed; with --out, its section of that file is replaced (or added).
    const workDir = mkdtempSync(join(tmpdir(), 'contact-sync-bench-'));
    try {
      const section = runSqliteEngines(workDir, quick ? 100_000 : 1_000_000, (line) => console.log(line));
      console.log(section);
      if (outIndex >= 0 && argv[outIndex + 1] !== undefined) {
        const file = resolve(argv[outIndex + 1]!);
        writeFileSync(file, replaceSection(readFileSync(file, 'utf8'), SQLITE_SECTION, section));
        console.log(`replaced the SQLite section of ${file}`);
      }
    } finally {
      rmSync(workDir, { recursive: true, force: true });
    }
    return;
  }
  if (argv.includes('--month-only')) {
    // The month of nightly runs alone, printed; with --out, its section of that file is replaced (or added).
    const workDir = mkdtempSync(join(tmpdir(), 'contact-sync-bench-'));
    try {
      const sections = await runMonth(workDir, cli, quick, (line) => console.log(line));
      const note = `\nThis section was measured on its own (\`node dist/bench/run.js --month-only --out bench/RESULTS.md\`) on ${machineInfo(new Date()).date}, load average ${(loadavg()[0] ?? 0).toFixed(2)} at its end.\n`;
      const plain = sections.plain + note;
      const prefetch = sections.prefetch + note;
      console.log(plain);
      console.log(prefetch);
      if (outIndex >= 0 && argv[outIndex + 1] !== undefined) {
        const file = resolve(argv[outIndex + 1]!);
        writeFileSync(file, replaceSection(replaceSection(readFileSync(file, 'utf8'), MONTH_SECTION, plain), MONTH_PREFETCH_SECTION, prefetch));
        console.log(`replaced the month sections of ${file}`);
      }
    } finally {
      rmSync(workDir, { recursive: true, force: true });
    }
    return;
  }
  const outFile = outIndex >= 0 && argv[outIndex + 1] !== undefined ? resolve(argv[outIndex + 1]!) : undefined;
  const log = (line: string): void => console.log(line);
  if (argv.includes('--reconcile-only')) {
    await sectionAlone('reconcile-only', RECONCILE_SECTION, (workDir) => runReconcile(workDir, cli, quick, log), outFile);
    return;
  }
  if (argv.includes('--journal-only')) {
    await sectionAlone('journal-only', JOURNAL_SECTION, (workDir) => runJournal(workDir, cli, quick, log), outFile);
    return;
  }
  if (argv.includes('--verify-only')) {
    await sectionAlone('verify-only', VERIFY_SEASON_SECTION, (workDir) => runSeason(workDir, cli, quick, log), outFile);
    return;
  }
  if (argv.includes('--surfaces-only')) {
    await sectionAlone('surfaces-only', SURFACES_SECTION, (workDir) => runSurfaces(workDir, cli, quick, log), outFile);
    return;
  }
  if (argv.includes('--stores-only')) {
    await sectionAlone('stores-only', STATE_STORES_SECTION, (workDir) => runStores(workDir, cli, quick, log), outFile);
    return;
  }
  if (argv.includes('--short-job-only')) {
    await sectionAlone('short-job-only', SHORT_JOB_SECTION, (workDir) => runShortJobBench(workDir, cli, quick, log), outFile);
    return;
  }
  if (argv.includes('--unattended-only')) {
    const workDir = mkdtempSync(join(tmpdir(), 'contact-sync-bench-'));
    const load = (): string => loadavg().map((n) => n.toFixed(2)).join(', ');
    try {
      console.log(`load average before: ${load()}`);
      const section = await runUnattended(workDir, cli, quick, (line) => console.log(line));
      console.log(`load average after: ${load()}`);
      console.log(section);
    } finally {
      rmSync(workDir, { recursive: true, force: true });
    }
    return;
  }
  const out = outIndex >= 0 && argv[outIndex + 1] !== undefined ? resolve(argv[outIndex + 1]!) : quick ? join(tmpdir(), 'contact-sync-bench-quick.md') : join(root, 'bench', 'RESULTS.md');
  const scale = quick ? QUICK : FULL;
  const workDir = mkdtempSync(join(tmpdir(), 'contact-sync-bench-'));
  const started = performance.now();
  const machine = machineInfo(new Date());
  try {
    const emulator = await startEmulator({
      channels: Object.values(API_CHANNELS).map((token) => ({ token })),
      rateLimits: { contacts: API_RATE },
    });
    let api;
    try {
      api = await runApiBench({ emulator, workDir, cli, rate: API_RATE, rows: scale.apiRows }, log);
    } finally {
      await emulator.close();
    }
    log('limiter against a strict window (issue 14)');
    const limiter = await runLimiterGoals(quick ? 0.3 : 1, log);
    log('engine overhead (no rate limit, 20 ms latency)');
    const overhead = await runEngineOverhead({ workDir, cli }, scale.overheadRuns, scale.schedulerCalls, log);
    log('local speed and memory (validate)');
    const local = await runLocalSpeed({ workDir, cli }, scale.localSizes, log);
    log('unattended operation (channels side by side, zero-call nightly re-run)');
    const unattended = await runUnattended(workDir, cli, quick, log);
    log('a month of nightly runs (issue 13)');
    const month = await runMonth(workDir, cli, quick, log);
    log("the state store's SQLite engine (issue 26)");
    const sqlite = runSqliteEngines(workDir, quick ? 100_000 : 1_000_000, log);
    log('reconcile, with and without match.prefetch (issue 21)');
    const reconcile = await runReconcile(workDir, cli, quick, log);
    log("the change journal's cost (issue 22)");
    const journal = await runJournal(workDir, cli, quick, log);
    log('a short job, spawn to exit (issue 24)');
    const shortJob = await runShortJobBench(workDir, cli, quick, log);
    log('a season without reconcile, with verify (issue 38)');
    const season = await runSeason(workDir, cli, quick, log);
    log('API v1 and v2 side by side (issue 36)');
    const surfaces = await runSurfaces(workDir, cli, quick, log);
    log('the state store: SQLite and PostgreSQL side by side (issue 44)');
    const stores = await runStores(workDir, cli, quick, log);
    const totalMs = performance.now() - started;
    writeFileSync(out, renderResults({ machine, quick, apiRate: API_RATE, api, limiter, overhead, local, totalMs, loadAverageAtEnd: loadavg()[0] ?? 0 }) + unattended + month.plain + '\n' + month.prefetch + '\n' + sqlite + '\n' + reconcile + '\n' + journal + '\n' + shortJob + '\n' + season + '\n' + surfaces + '\n' + stores);
    log(`wrote ${out} (${(totalMs / 1000).toFixed(0)} s)`);
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}

/** Issue 16's scenarios, on an emulator of their own (4 channels at 20 calls a second each). */
async function runUnattended(workDir: string, cli: CliPaths, quick: boolean, log: (line: string) => void): Promise<string> {
  const emulator = await startEmulator({
    channels: [1, 2, 3, 4].map((i) => ({ token: `bench-channel-${i}` })),
    rateLimits: { contacts: { limit: 20, periodMs: 1000 }, messages: false },
  });
  try {
    const channels = await runChannels({ emulator, workDir, cli }, quick ? 20 : 100, '20/s', log);
    const zero = await runZeroCallRerun({ emulator, workDir, cli }, quick ? 100_000 : 1_000_000, log);
    return unattendedMarkdown(channels, zero);
  } finally {
    await emulator.close();
  }
}

/**
 * Issue 13's month of nightly runs, on an emulator of its own (fast enough that the calls, not the
 * pace, are measured); then the same month with `match.prefetch` configured (issue 25).
 */
async function runMonth(workDir: string, cli: CliPaths, quick: boolean, log: (line: string) => void): Promise<{ plain: string; prefetch: string }> {
  const token = 'bench-month';
  const emulator = await startEmulator({ channels: [{ token }], rateLimits: { contacts: { limit: 60_000, periodMs: 60_000 }, messages: false } });
  const context = { emulator, token, rate: '60000/min', workDir, cli };
  const [rows, nights] = quick ? [500, 5] : [2000, 30];
  try {
    const plain = monthMarkdown(await runMonthOfNights(context, rows, nights, log));
    log('a month of nightly runs with match.prefetch (issue 25)');
    const prefetch = monthMarkdown(await runMonthOfNights(context, rows, nights, log, true));
    return { plain, prefetch };
  } finally {
    await emulator.close();
  }
}

/**
 * Issue 21's reconcile, on an emulator of its own at the API scenarios' scaled limit, so that its
 * wall times are those of the same pace.
 */
async function runReconcile(workDir: string, cli: CliPaths, quick: boolean, log: (line: string) => void): Promise<string> {
  const token = 'bench-reconcile';
  const emulator = await startEmulator({ channels: [{ token }], rateLimits: { contacts: API_RATE, messages: false } });
  try {
    return reconcileMarkdown(await runReconcileBench({ emulator, token, rate: API_RATE, workDir, cli }, quick ? 200 : 2000, log));
  } finally {
    await emulator.close();
  }
}

/**
 * Issue 38's season of nights without a reconcile, with `verify`, on an emulator of its own fast
 * enough that the calls, not the pace, are measured.
 */
async function runSeason(workDir: string, cli: CliPaths, quick: boolean, log: (line: string) => void): Promise<string> {
  const token = 'bench-season';
  const emulator = await startEmulator({ channels: [{ token }], rateLimits: { contacts: { limit: 60_000, periodMs: 60_000 }, messages: false } });
  try {
    const [rows, nights] = quick ? [200, 7] : [1000, 21];
    return verifySeasonMarkdown(await runVerifySeason({ emulator, token, rate: '60000/min', workDir, cli }, rows, nights, 20, log));
  } finally {
    await emulator.close();
  }
}

/**
 * Issue 36's surfaces side by side, each measure on an emulator of its own: v1 at the API
 * scenarios' scaled limit, v2's endpoints at 20 a second each (a limit the job learns; the
 * platform's own is not published), so that the limiter, not the rows in flight, sets the pace.
 */
async function runSurfaces(workDir: string, cli: CliPaths, quick: boolean, log: (line: string) => void): Promise<string> {
  const redis = process.env.REDIS_URL;
  const context = { workDir, cli, rows: quick ? 60 : 300, v1Rate: API_RATE, v2Rate: { limit: 20, periodMs: 1000 }, redisUrl: redis === undefined || redis === '' ? undefined : redis };
  return surfacesMarkdown(await runSurfacesBench(context, log));
}

/** Issue 44's state stores side by side, on an emulator of their own fast enough that the store, not the pace, is measured. */
async function runStores(workDir: string, cli: CliPaths, quick: boolean, log: (line: string) => void): Promise<string> {
  return stateStoresMarkdown(await runStateStoresBench({ workDir, cli }, quick ? { rows: 100_000, importRows: 1_000 } : { rows: 1_000_000, importRows: 10_000 }, log));
}

/**
 * Issue 22's change journal, on an emulator of its own, fast enough (like the month's) that the
 * calls and the journal's writes, not the pace, are measured.
 */
async function runJournal(workDir: string, cli: CliPaths, quick: boolean, log: (line: string) => void): Promise<string> {
  const token = 'bench-journal';
  const emulator = await startEmulator({ channels: [{ token }], rateLimits: { contacts: { limit: 60_000, periodMs: 60_000 }, messages: false } });
  try {
    return journalMarkdown(await runJournalBench({ emulator, token, rate: '60000/min', workDir, cli }, quick ? 200 : 2000, log));
  } finally {
    await emulator.close();
  }
}

/**
 * `--<flag>`: one section measured alone in a work folder of its own and printed, noting when and
 * under what load; with `--out FILE`, that section of FILE is replaced (or added).
 */
async function sectionAlone(flag: string, heading: string, measure: (workDir: string) => Promise<string>, out: string | undefined): Promise<void> {
  const workDir = mkdtempSync(join(tmpdir(), 'contact-sync-bench-'));
  try {
    const note = `\nThis section was measured on its own (\`node dist/bench/run.js --${flag} --out bench/RESULTS.md\`) on ${machineInfo(new Date()).date}, load average ${(loadavg()[0] ?? 0).toFixed(2)} at its start.\n`;
    const section = (await measure(workDir)) + note;
    console.log(section);
    if (out !== undefined) {
      writeFileSync(out, replaceSection(readFileSync(out, 'utf8'), heading, section));
      console.log(`replaced the section "${heading}" of ${out}`);
    }
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}

/** Replaces the section that starts with `heading` (up to the next `## `, a blank line before it), or appends it. */
function replaceSection(markdown: string, heading: string, section: string): string {
  const start = markdown.indexOf(heading);
  if (start < 0) return `${markdown.trimEnd()}\n\n${section}`;
  const next = markdown.indexOf('\n## ', start + heading.length);
  return markdown.slice(0, start) + (next < 0 ? section : `${section.trimEnd()}\n\n${markdown.slice(next + 1)}`);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exitCode = 1;
});
