/**
 * The state store's two adapters side by side (issue 44): the same jobs run by the real CLI with
 * `state:` a SQLite file and `state:` a PostgreSQL URL on the machine's server.
 *
 * - The zero-call night: an unchanged export of N rows (1,000,000; a tenth with --quick) whose
 *   every key the store knows. The SQLite store is filled as the unattended section fills it (no
 *   row hashes: the first re-run maps every row and notes its hash); the PostgreSQL store gets the
 *   same state by `contact-sync state copy` (so the copy is measured too). Each store then runs
 *   the night twice: the first notes the row hashes, the second is the steady state. Goal: on
 *   PostgreSQL at least half SQLite's rows a second.
 * - Round trips to PostgreSQL per 1,000 rows: the transactions its database counted
 *   (`pg_stat_database.xact_commit + xact_rollback`, read after the run's process ended, so its
 *   statistics are flushed) over the rows; every statement the adapter sends is one or part of one.
 * - A first import of M rows (10,000; a tenth with --quick) against the emulator on each store:
 *   the calls must be equal, the store only remembers them.
 *
 * The database is made for the run (`contact_sync_bench_<pid>`) and dropped after it; PGHOST,
 * PGPORT and PGUSER point elsewhere than 127.0.0.1:5432 as postgres.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { startEmulator, type RunningEmulator } from '../src/emulator/index.js';
import { expectExit, runCli, type ChildRun, type CliPaths } from './cli-child.js';
import { writeCustomerFile } from './customer-file.js';
import { jobsYaml } from './jobs-file.js';
import { fillKnownStore } from './unattended.js';

export const STATE_STORES_SECTION = '## The state store: SQLite and PostgreSQL side by side';

const TOKEN = 'bench-stores';

interface NightRun {
  wallMs: number;
  rowsPerSecond: number;
  calls: number;
  maxRssKb: number;
  /** PostgreSQL only: transactions of the bench database during the run. */
  transactions?: number;
}

interface StoreNights {
  store: 'SQLite' | 'PostgreSQL';
  first: NightRun;
  steady: NightRun;
}

export interface StateStoresResult {
  rows: number;
  copyMs: number;
  nights: StoreNights[];
  importRows: number;
  imports: Array<{ store: 'SQLite' | 'PostgreSQL'; calls: number; wallMs: number; transactions?: number }>;
  server: string;
}

/** The connection settings of the machine's server, as libpq reads them. */
function serverSettings(): { host: string; port: number; user: string } {
  return { host: process.env.PGHOST ?? '127.0.0.1', port: Number(process.env.PGPORT ?? 5432), user: process.env.PGUSER ?? 'postgres' };
}

async function withAdmin<T>(database: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ ...serverSettings(), database });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Transactions the database has counted (flushed by the backends that ended). */
async function transactionsOf(database: string): Promise<number> {
  return withAdmin('postgres', async (client) => {
    await client.query('SELECT pg_stat_clear_snapshot()');
    const result = await client.query<{ n: string }>('SELECT (xact_commit + xact_rollback)::text AS n FROM pg_stat_database WHERE datname = $1', [database]);
    return Number(result.rows[0]?.n ?? 0);
  });
}

export async function runStateStoresBench(context: { workDir: string; cli: CliPaths }, scale: { rows: number; importRows: number }, log: (line: string) => void): Promise<StateStoresResult> {
  const { host, port, user } = serverSettings();
  const database = `contact_sync_bench_${process.pid}`;
  await withAdmin('postgres', async (client) => {
    await client.query(`DROP DATABASE IF EXISTS ${database}`);
    await client.query(`CREATE DATABASE ${database}`);
  });
  const server = await withAdmin('postgres', async (client) => (await client.query<{ v: string }>("SELECT current_setting('server_version') AS v")).rows[0]?.v ?? '?');
  const url = `postgres://${encodeURIComponent(user)}@${host}:${port}/${database}`;
  const emulator = await startEmulator({ channels: [{ token: TOKEN }], rateLimits: { contacts: { limit: 600_000, periodMs: 60_000 }, messages: false } });
  try {
    const env = { BENCH_API_URL: emulator.url, BENCH_CHANNEL_TOKEN: TOKEN, BENCH_CONTACTS_RATE: '600000/min' };
    const night = await zeroCallNights({ ...context, emulator, env, url, database }, scale.rows, log);
    const imports = await firstImports({ ...context, emulator, env, url, database }, scale.importRows, log);
    return { rows: scale.rows, copyMs: night.copyMs, nights: night.nights, importRows: scale.importRows, imports, server };
  } finally {
    await emulator.close();
    await withAdmin('postgres', (client) => client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`));
  }
}

interface BenchStores {
  workDir: string;
  cli: CliPaths;
  emulator: RunningEmulator;
  env: Record<string, string>;
  url: string;
  database: string;
}

async function zeroCallNights(context: BenchStores, rows: number, log: (line: string) => void): Promise<{ copyMs: number; nights: StoreNights[] }> {
  const { workDir, cli, emulator, env, url, database } = context;
  const input = join(workDir, `stores-${rows}.csv`);
  await writeCustomerFile(input, rows);
  const sqlitePath = join(workDir, `stores-${rows}.db`);
  const sqliteJobs = join(workDir, 'stores-sqlite.yaml');
  const pgJobs = join(workDir, 'stores-pg.yaml');
  writeFileSync(sqliteJobs, jobsYaml([{ name: 'nightly', input, state: sqlitePath, concurrency: 32 }]));
  writeFileSync(pgJobs, jobsYaml([{ name: 'nightly', input, state: url, concurrency: 32 }]));
  log(`  filling a SQLite state store with ${rows} known rows`);
  await fillKnownStore(sqliteJobs, sqlitePath, env);
  log('  copying it to PostgreSQL (state copy)');
  const copy = await runCli(cli, ['state', 'copy', pgJobs, '--job', 'nightly', '--from', sqlitePath], { cwd: workDir, env });
  expectExit(copy, 'state copy to PostgreSQL');
  const nights: StoreNights[] = [];
  for (const [name, jobsFile] of [
    ['SQLite', sqliteJobs],
    ['PostgreSQL', pgJobs],
  ] as const) {
    const night = async (what: string, report: string): Promise<NightRun> => {
      emulator.reset(TOKEN);
      const before = name === 'PostgreSQL' ? await transactionsOf(database) : 0;
      log(`  ${name}: ${what}`);
      const run: ChildRun = await runCli(cli, ['run', jobsFile, '--report-dir', join(workDir, report), '--quiet'], { cwd: workDir, env });
      expectExit(run, `${name}: ${what}`);
      const transactions = name === 'PostgreSQL' ? (await transactionsOf(database)) - before : undefined;
      const calls = emulator.counters(TOKEN).total.received;
      const result: NightRun = { wallMs: run.wallMs, rowsPerSecond: rows / (run.wallMs / 1000), calls, maxRssKb: run.maxRssKb, ...(transactions === undefined ? {} : { transactions }) };
      log(`     ${calls} calls, ${Math.round(result.rowsPerSecond)} rows/s${transactions === undefined ? '' : `, ${transactions} transactions`}`);
      return result;
    };
    const first = await night(`the first night of ${rows} unchanged rows (row hashes noted)`, `stores-${name}-first`);
    const steady = await night(`the next night of ${rows} unchanged rows`, `stores-${name}-steady`);
    nights.push({ store: name, first, steady });
  }
  return { copyMs: copy.wallMs, nights };
}

async function firstImports(context: BenchStores, rows: number, log: (line: string) => void): Promise<StateStoresResult['imports']> {
  const { workDir, cli, emulator, env, url, database } = context;
  const input = join(workDir, `import-${rows}.csv`);
  await writeCustomerFile(input, rows);
  const imports: StateStoresResult['imports'] = [];
  for (const [name, state] of [
    ['SQLite', join(workDir, 'import.db')],
    ['PostgreSQL', url],
  ] as const) {
    const jobsFile = join(workDir, `import-${name}.yaml`);
    writeFileSync(jobsFile, jobsYaml([{ name: 'first-import', input, state, concurrency: 16 }]));
    emulator.reset(TOKEN);
    const before = name === 'PostgreSQL' ? await transactionsOf(database) : 0;
    log(`  ${name}: a first import of ${rows} rows`);
    const run = await runCli(cli, ['run', jobsFile, '--report-dir', join(workDir, `import-${name}`), '--quiet'], { cwd: workDir, env });
    expectExit(run, `${name}: a first import`);
    const transactions = name === 'PostgreSQL' ? (await transactionsOf(database)) - before : undefined;
    const calls = emulator.counters(TOKEN).total.received;
    log(`     ${calls} calls${transactions === undefined ? '' : `, ${transactions} transactions`}`);
    imports.push({ store: name, calls, wallMs: run.wallMs, ...(transactions === undefined ? {} : { transactions }) });
  }
  return imports;
}

export function stateStoresMarkdown(result: StateStoresResult): string {
  const [sqlite, postgres] = result.nights;
  const ratio = sqlite !== undefined && postgres !== undefined ? postgres.steady.rowsPerSecond / sqlite.steady.rowsPerSecond : Number.NaN;
  const perThousand = (run: NightRun): string => (run.transactions === undefined ? '-' : (run.transactions / (result.rows / 1000)).toFixed(1));
  const nightRow = (nights: StoreNights, which: 'first' | 'steady'): string => {
    const run = nights[which];
    return `| ${nights.store} | ${which === 'first' ? 'the first (row hashes noted)' : 'the next (steady state)'} | ${run.calls} | ${(run.wallMs / 1000).toFixed(1)} s | ${Math.round(run.rowsPerSecond)} | ${perThousand(run)} | ${(run.maxRssKb / 1024).toFixed(0)} MB |`;
  };
  return [
    STATE_STORES_SECTION,
    '',
    `The same jobs by the real CLI with \`state:\` a SQLite file and \`state:\` a URL of the machine's PostgreSQL ${result.server}`,
    `(issue 44). A zero-call night of ${result.rows.toLocaleString('en')} unchanged rows whose every key the store knows (the PostgreSQL`,
    `store got the SQLite one's state by \`state copy\`, in ${(result.copyMs / 1000).toFixed(1)} s); round trips are the transactions the`,
    'database counted during the run, per 1,000 rows. Goal: PostgreSQL at least half as fast as SQLite.',
    '',
    '| store | night | calls | wall time | rows a second | PostgreSQL transactions per 1,000 rows | peak RSS |',
    '|---|---|---|---|---|---|---|',
    ...result.nights.flatMap((nights) => [nightRow(nights, 'first'), nightRow(nights, 'steady')]),
    '',
    `Steady night, PostgreSQL against SQLite: ${Number.isNaN(ratio) ? '-' : `${ratio.toFixed(2)}x`} the rows a second.`,
    '',
    `A first import of ${result.importRows.toLocaleString('en')} rows against the emulator (every row a search and a create): the calls`,
    'are the same on both stores.',
    '',
    '| store | calls | wall time | PostgreSQL transactions |',
    '|---|---|---|---|',
    ...result.imports.map((run) => `| ${run.store} | ${run.calls} | ${(run.wallMs / 1000).toFixed(1)} s | ${run.transactions ?? '-'} |`),
    '',
  ].join('\n');
}
