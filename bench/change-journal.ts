/**
 * The change journal's cost (issue 22, docs/undo.md). The real CLI, with a state store, runs the
 * API scenarios' export of 2,000 customers against a platform where each of them already exists
 * with older values (3 fields differ, one tag missing), so that every row is an update of fields
 * and a tags call. Measured:
 * - the calls and the journal's lines (read back from the state file: `changesOfRun`);
 * - its bytes: the state file as the run left it against a copy with the journal's lines deleted
 *   and VACUUMed;
 * - its time: the same lines journalled again by `StateStore.journalChange` alone, in a temporary
 *   file, best of 3, next to the run's wall time and to the same calls at the platform's real rate;
 * - the nightly re-run of the unchanged file: it must make no call and write no line (it throws
 *   otherwise, as it does when the run's lines are not the ones the data asks for).
 * Part of `npm run bench`; alone: `node dist/bench/run.js --journal-only [--out bench/RESULTS.md]`.
 */
import { copyFileSync, existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type BetterSqlite3 from 'better-sqlite3';
import type { ContactSeed, RunningEmulator } from '../src/emulator/index.js';
import { reportPaths, type JobSummary } from '../src/pipeline/report/job-summary.js';
import type { ChangeEntry } from '../src/state/change-journal.js';
import { StateStore } from '../src/state/state-store.js';
import { expectExit, runCli, type CliPaths } from './cli-child.js';
import { writeCustomerFile } from './customer-file.js';
import { jobsYaml } from './jobs-file.js';
import { syncedContact } from './reconcile.js';

export const JOURNAL_SECTION = '## The change journal';

const require = createRequire(import.meta.url);

/** The platform's own rate, for what the run's calls would take on it. */
const REAL_CALLS_PER_MINUTE = 100;
/** The job's key field (jobs-file.ts). */
const KEY_FIELD = 'customerid';
const JOB = 'journal';
/** Timings of the journal alone: the best of these many. */
const REPEATS = 3;

/** The fields whose value on the platform is older than the file's. */
const STALE_FIELDS = ['firstName', 'lastName', 'email'] as const;
/** The tag the platform's contacts lack. */
const MISSING_TAG = 'newsletter';

interface JournalContext {
  emulator: RunningEmulator;
  token: string;
  /** The emulator's contacts limit, as the job's connection is told it (`60000/min`). */
  rate: string;
  workDir: string;
  cli: CliPaths;
}

interface CliRunFigures {
  runId: number;
  calls: number;
  rateLimited: number;
  /** Lines `changesOfRun(runId)` returns from the state file afterwards. */
  lines: number;
  wallMs: number;
  /** The state file's bytes after the run (its -wal included, if any was left). */
  fileBytes: number;
}

export interface JournalResult {
  rows: number;
  update: CliRunFigures & {
    /** Lines by operation, and the fields of each update line (all the same: the bench checks). */
    byOperation: Record<string, number>;
    fieldsPerUpdate: number;
    /** A copy of the state file VACUUMed, journal kept: what VACUUM alone changes. */
    vacuumedBytes: number;
    /** A copy with `DELETE FROM changes; VACUUM;`. */
    withoutJournalBytes: number;
  };
  rerun: CliRunFigures;
  /** `journalChange` of the update run's lines, one by one, on a store of its own: best of `REPEATS`. */
  journalMs: number;
  timings: number[];
  node: string;
  betterSqlite: string;
  pageSize: number;
  loadAtStart: number;
  /** The emulator's contacts limit. */
  rate: string;
}

/** Row `index`'s contact as a run of an older export left it: 3 fields older, one tag missing. */
function staleContact(index: number): ContactSeed {
  const contact = syncedContact(index);
  const fields = { ...contact.custom_fields };
  fields.firstName = `Former${index}`;
  fields.lastName = `Formerlast${index}`;
  fields.email = `former${index}@example.org`;
  return { custom_fields: fields, tags: (contact.tags ?? []).filter((tag) => tag !== MISSING_TAG) };
}

/** Bytes of a SQLite file and of its -wal, if one was left. */
function fileBytes(path: string): number {
  const wal = `${path}-wal`;
  return statSync(path).size + (existsSync(wal) ? statSync(wal).size : 0);
}

/** Removes a state file and its companions. */
function removeDb(path: string): void {
  for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(`${path}${suffix}`, { force: true });
}

/** Runs `sql` on a copy of `db` through better-sqlite3 directly; the copy's bytes after close. */
function bytesOfCopy(db: string, copy: string, sql: string): number {
  const Database = require('better-sqlite3') as typeof BetterSqlite3;
  copyFileSync(db, copy);
  if (existsSync(`${db}-wal`)) copyFileSync(`${db}-wal`, `${copy}-wal`);
  try {
    const handle = new Database(copy);
    try {
      handle.exec(sql);
    } finally {
      handle.close();
    }
    return fileBytes(copy);
  } finally {
    removeDb(copy);
  }
}

async function runJob(context: JournalContext, jobsFile: string, name: string): Promise<Omit<CliRunFigures, 'lines' | 'fileBytes'>> {
  const { emulator, token } = context;
  const reportDir = join(context.workDir, `journal-${name}`);
  emulator.resetCounters(token);
  const run = await runCli(context.cli, ['run', jobsFile, '--job', JOB, '--report-dir', reportDir, '--quiet'], {
    cwd: context.workDir,
    env: { BENCH_API_URL: emulator.url, BENCH_CHANNEL_TOKEN: token, BENCH_CONTACTS_RATE: context.rate },
  });
  expectExit(run, `contact-sync run (${name})`);
  const counters = emulator.counters(token);
  const summary = JSON.parse(readFileSync(reportPaths(reportDir, JOB).summary, 'utf8')) as JobSummary;
  rmSync(reportDir, { recursive: true, force: true });
  if (summary.runId === null) throw new Error(`bench: the ${name} run's summary.json has no runId (a job with a state store must have one)`);
  return { runId: Number(summary.runId), calls: counters.total.received, rateLimited: counters.total.rateLimited, wallMs: run.wallMs };
}

/** Journals `lines` one by one under a run of a new store in `path`: ms, the store's open and close left out. */
function timeJournal(path: string, lines: ReadonlyArray<{ key: string; contactId: string; entry: ChangeEntry }>): number {
  const store = StateStore.open(path, { job: 'journal-timing', keyField: KEY_FIELD });
  try {
    store.startRun({ job: 'journal-timing', argv: 'bench', full: false, surface: 'v1' });
    const started = performance.now();
    for (const line of lines) store.journalChange(line.key, line.contactId, line.entry);
    const ms = performance.now() - started;
    if (store.changesOfRun(store.currentRunId!).length !== lines.length) throw new Error('bench: the timed journal lost lines');
    return ms;
  } finally {
    store.close();
    removeDb(path);
  }
}

export async function runJournalBench(context: JournalContext, rows: number, log: (line: string) => void): Promise<JournalResult> {
  const loadAtStart = loadavg()[0] ?? 0;
  const input = join(context.workDir, 'journal.csv');
  const state = join(context.workDir, 'journal.db');
  const jobsFile = join(context.workDir, 'journal.yaml');
  removeDb(state);
  try {
    await writeCustomerFile(input, rows);
    writeFileSync(jobsFile, jobsYaml([{ name: JOB, input, state }]));
    context.emulator.reset(context.token);
    context.emulator.loadContacts(context.token, Array.from({ length: rows }, (_, i) => staleContact(i + 1)));

    log(`  ${rows} rows, each an update of ${STALE_FIELDS.length} fields and a tag`);
    const update = await runJob(context, jobsFile, 'update');
    const updateBytes = fileBytes(state);
    const vacuumedBytes = bytesOfCopy(state, join(context.workDir, 'journal-vacuumed.db'), 'VACUUM;');
    const withoutJournalBytes = bytesOfCopy(state, join(context.workDir, 'journal-without.db'), 'DELETE FROM changes; VACUUM;');
    const pageSize = (() => {
      const Database = require('better-sqlite3') as typeof BetterSqlite3;
      const handle = new Database(state, { readonly: true });
      try {
        return handle.pragma('page_size', { simple: true }) as number;
      } finally {
        handle.close();
      }
    })();

    const store = StateStore.open(state, { job: JOB, keyField: KEY_FIELD });
    let replay: Array<{ key: string; contactId: string; entry: ChangeEntry }>;
    const byOperation: Record<string, number> = {};
    const fieldCounts = new Set<number>();
    try {
      replay = store.changesOfRun(update.runId).map((line) => {
        byOperation[line.operation] = (byOperation[line.operation] ?? 0) + 1;
        const { id: _id, runId: _runId, key: _key, contactId: _contactId, recordedAt: _recordedAt, ...entry } = line;
        if ('fields' in line) fieldCounts.add(Object.keys(line.fields).length);
        return { key: line.key, contactId: line.contactId, entry };
      });
    } finally {
      store.close();
    }
    const expected = { update: rows, 'add-tags': rows };
    const asExpected = Object.keys(byOperation).length === 2 && byOperation.update === rows && byOperation['add-tags'] === rows;
    if (!asExpected || fieldCounts.size !== 1 || !fieldCounts.has(STALE_FIELDS.length)) {
      throw new Error(`bench: the update run journalled ${JSON.stringify(byOperation)} with ${[...fieldCounts].join('/')} fields an update; the data asks for ${JSON.stringify(expected)} with ${STALE_FIELDS.length}`);
    }
    log(`   ${update.calls} calls, ${replay.length} journal lines, ${updateBytes} bytes (${withoutJournalBytes} without the journal, VACUUMed), ${(update.wallMs / 1000).toFixed(1)} s`);

    log('  the nightly re-run of the unchanged file');
    const rerun = await runJob(context, jobsFile, 'rerun');
    const rerunBytes = fileBytes(state);
    const reopened = StateStore.open(state, { job: JOB, keyField: KEY_FIELD });
    let rerunLines: number;
    try {
      rerunLines = reopened.changesOfRun(rerun.runId).length;
    } finally {
      reopened.close();
    }
    log(`   re-run ${rerun.runId}: ${rerun.calls} calls, ${rerunLines} journal lines, ${(rerun.wallMs / 1000).toFixed(1)} s`);
    if (rerun.calls !== 0 || rerunLines !== 0 || rerun.runId === update.runId) {
      throw new Error(`bench: the re-run of the unchanged file (run ${rerun.runId}) made ${rerun.calls} calls and journalled ${rerunLines} lines; both must be 0`);
    }

    log(`  ${replay.length} journalChange calls, best of ${REPEATS}`);
    const timings: number[] = [];
    for (let i = 0; i < REPEATS; i++) timings.push(timeJournal(join(context.workDir, `journal-timing-${i}.db`), replay));
    log(`   ${timings.map((ms) => ms.toFixed(1)).join(', ')} ms`);

    return {
      rows,
      update: { ...update, lines: replay.length, fileBytes: updateBytes, byOperation, fieldsPerUpdate: STALE_FIELDS.length, vacuumedBytes, withoutJournalBytes },
      rerun: { ...rerun, lines: rerunLines, fileBytes: rerunBytes },
      journalMs: Math.min(...timings),
      timings,
      node: process.versions.node,
      betterSqlite: (require('better-sqlite3/package.json') as { version: string }).version,
      pageSize,
      loadAtStart,
      rate: context.rate,
    };
  } finally {
    for (const file of [input, jobsFile]) rmSync(file, { force: true });
    removeDb(state);
  }
}

const thousands = (n: number): string => n.toLocaleString('en-US');
const kb = (bytes: number): string => `${thousands(Math.round(bytes / 1024))} KB`;
const percent = (part: number, whole: number): string => {
  const share = (100 * part) / whole;
  return `${share < 0.01 ? share.toPrecision(1) : share < 1 ? share.toFixed(2) : share.toFixed(1)}%`;
};

export function journalMarkdown(result: JournalResult): string {
  const { update, rerun, rows } = result;
  const journalBytes = update.fileBytes - update.withoutJournalBytes;
  const perLine = journalBytes / update.lines;
  const microsPerCall = (1000 * result.journalMs) / update.lines;
  const realMs = (update.calls / REAL_CALLS_PER_MINUTE) * 60_000;
  const realMinutes = update.calls / REAL_CALLS_PER_MINUTE;
  return [
    JOURNAL_SECTION,
    '',
    `The change journal (issue 22, docs/undo.md) costs a write per confirmed call, and bytes in the state store. The real CLI with a state store runs the API scenarios' export of ${thousands(rows)} customers (8 fields and 3 tags a row) against a platform where each of them exists already with older values: ${STALE_FIELDS.map((f) => `\`${f}\``).join(', ')} differ and the \`${MISSING_TAG}\` tag is missing, so that every row is a search, an update of ${update.fieldsPerUpdate} fields and an add-tags call (bench/change-journal.ts; emulator at ${result.rate}, so the calls, not the pace, are measured). The journal's lines are read back from the state file (\`changesOfRun\`): ${thousands(update.byOperation.update ?? 0)} updates and ${thousands(update.byOperation['add-tags'] ?? 0)} add-tags, one per confirmed write, as the data asks (the bench throws otherwise). Then the same command runs again on the unchanged file: the nightly re-run. Node.js ${result.node}, better-sqlite3 ${result.betterSqlite}, load average ${result.loadAtStart.toFixed(2)} at the start.`,
    '',
    '| run | calls | 429s | journal lines | state file after it | wall (s) |',
    '|---|---|---|---|---|---|',
    `| update of ${thousands(rows)} rows (run ${update.runId}) | ${thousands(update.calls)} | ${update.rateLimited} | ${thousands(update.lines)} | ${thousands(update.fileBytes)} bytes | ${(update.wallMs / 1000).toFixed(1)} |`,
    `| re-run of the unchanged file (run ${rerun.runId}) | ${thousands(rerun.calls)} | ${rerun.rateLimited} | ${thousands(rerun.lines)} | ${thousands(rerun.fileBytes)} bytes | ${(rerun.wallMs / 1000).toFixed(1)} |`,
    '',
    `**Bytes.** After the update run the state file holds ${thousands(update.fileBytes)} bytes (${kb(update.fileBytes)}); a copy with the journal's lines deleted and VACUUMed holds ${thousands(update.withoutJournalBytes)} (a copy VACUUMed with its lines kept: ${thousands(update.vacuumedBytes)}, VACUUM alone freeing ${thousands(update.fileBytes - update.vacuumedBytes)} bytes the run left free; against that copy the lines take ${thousands(update.vacuumedBytes - update.withoutJournalBytes)} bytes, ${Math.round((update.vacuumedBytes - update.withoutJournalBytes) / update.lines)} a line). The journal is **${thousands(journalBytes)} bytes (${kb(journalBytes)}) for ${thousands(update.lines)} lines, ${Math.round(perLine)} bytes a line** (pages of ${thousands(result.pageSize)} bytes; the table and its two indexes, by run and by key)${perLine >= 100 && perLine <= 300 ? ', within the 100 to 300 bytes a line docs/undo.md counts on' : ', **outside the 100 to 300 bytes a line docs/undo.md counts on**'}.`,
    '',
    `**Time.** The same ${thousands(update.lines)} lines journalled again by \`StateStore.journalChange\` alone, one transaction each as the writer does it, on a store of their own (a temporary file, a run started): **${result.journalMs.toFixed(0)} ms, ${microsPerCall.toFixed(0)} µs a call** (best of ${REPEATS}: ${result.timings.map((ms) => ms.toFixed(0)).join(', ')} ms). That is ${percent(result.journalMs, update.wallMs)} of the update run's ${(update.wallMs / 1000).toFixed(1)} s here, and ${percent(result.journalMs, realMs)} of the ${thousands(realMinutes)} minutes its ${thousands(update.calls)} calls take at the platform's real ${REAL_CALLS_PER_MINUTE} calls a minute: at that pace the run waits on the limiter, and a line is written in the wait.`,
    '',
    `**The zero-call nightly re-run writes no journal line**, measured, not assumed: run ${rerun.runId}, the same command on the unchanged file, made ${rerun.calls} calls and \`changesOfRun(${rerun.runId})\` holds ${rerun.lines} lines (the bench throws otherwise). An unchanged row is settled as \`unchanged\` by its row hash before anything is planned (docs/state.md), so no journal write lies on that path; the unattended section measures its speed over 1,000,000 rows.`,
    '',
  ].join('\n');
}
