/**
 * The state store's SQLite engine (issue 26): the installed better-sqlite3 against Node's built-in
 * node:sqlite, on the statements the zero-call nightly re-run spends its store time in, over a
 * table the shape of `contacts` holding 1,000,000 keys:
 * - fill: the keys written 512 a transaction (as the row-hash notes are);
 * - read-ahead: every key read back 64 a statement, as arrays (the lookahead's brief);
 * - point reads: 100,000 keys read one at a time, in a random order.
 * And the cold start of each: a new process that loads the engine, opens a file and reads a row.
 * Part of `npm run bench`; alone: `node dist/bench/run.js --sqlite-only [--out bench/RESULTS.md]`.
 * Needs Node.js with node:sqlite (22.13 or later; docs/decisions.md, "The state store's SQLite").
 */
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type BetterSqlite3 from 'better-sqlite3';

interface Statement {
  run(...params: unknown[]): unknown;
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
}

interface Engine {
  name: string;
  open(path: string): { exec(sql: string): void; prepare(sql: string, arrays?: boolean): Statement; close(): void };
  /** A script for `node -e` that loads the engine, opens `path` and reads one row. */
  coldStart(path: string): string;
}

const require = createRequire(import.meta.url);
const READ_AHEAD = 64;
const FILL_BATCH = 512;

const engines: Engine[] = [
  {
    name: `better-sqlite3 ${(require('better-sqlite3/package.json') as { version: string }).version}`,
    open(path) {
      const Database = require('better-sqlite3') as typeof BetterSqlite3;
      const db = new Database(path);
      return {
        exec: (sql) => void db.exec(sql),
        prepare: (sql, arrays = false) => {
          const statement = db.prepare<unknown[]>(sql);
          if (arrays && statement.reader) statement.raw(true);
          return statement;
        },
        close: () => void db.close(),
      };
    },
    coldStart: (path) => `const D = require(${JSON.stringify(require.resolve('better-sqlite3'))}); const db = new D(${JSON.stringify(path)}); db.prepare('SELECT key FROM contacts LIMIT 1').get(); db.close();`,
  },
  {
    name: `node:sqlite (Node.js ${process.versions.node})`,
    open(path) {
      const { DatabaseSync } = require('node:sqlite') as { DatabaseSync: new (path: string) => { exec(sql: string): void; prepare(sql: string): Statement & { setReturnArrays?(on: boolean): void }; close(): void } };
      const db = new DatabaseSync(path);
      return {
        exec: (sql) => db.exec(sql),
        prepare: (sql, arrays = false) => {
          const statement = db.prepare(sql);
          if (arrays) statement.setReturnArrays?.(true);
          return statement;
        },
        close: () => db.close(),
      };
    },
    coldStart: (path) => `const { DatabaseSync } = require('node:sqlite'); const db = new DatabaseSync(${JSON.stringify(path)}); db.prepare('SELECT key FROM contacts LIMIT 1').get(); db.close();`,
  },
];

function key(i: number): string {
  return `C${String(i).padStart(7, '0')}`;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

interface EngineFigures {
  name: string;
  fillMs: number;
  readAheadMs: number;
  pointReadsMs: number;
  coldStartMs: number;
}

function measure(engine: Engine, dir: string, rows: number): EngineFigures {
  const path = join(dir, `${engine.name.replace(/\W+/g, '-')}.db`);
  const db = engine.open(path);
  db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;');
  db.exec('CREATE TABLE contacts (key TEXT PRIMARY KEY NOT NULL, contact_id TEXT NOT NULL, draft_hash TEXT, row_hash TEXT, departed INTEGER NOT NULL DEFAULT 0) WITHOUT ROWID');

  const insert = db.prepare('INSERT INTO contacts (key, contact_id, draft_hash, row_hash) VALUES (?, ?, ?, ?)');
  let started = performance.now();
  for (let first = 0; first < rows; first += FILL_BATCH) {
    db.exec('BEGIN');
    for (let i = first; i < Math.min(rows, first + FILL_BATCH); i++) insert.run(key(i), `id-${i}`, `d${i.toString(16).padStart(62, '0')}`, `r${i.toString(16).padStart(62, '0')}`);
    db.exec('COMMIT');
  }
  const fillMs = performance.now() - started;

  const placeholders = Array.from({ length: READ_AHEAD }, () => '?').join(', ');
  const brief = db.prepare(`SELECT key, contact_id, draft_hash, row_hash, departed FROM contacts WHERE key IN (${placeholders})`, true);
  started = performance.now();
  let seen = 0;
  for (let first = 0; first + READ_AHEAD <= rows; first += READ_AHEAD) {
    seen += brief.all(...Array.from({ length: READ_AHEAD }, (_, i) => key(first + i))).length;
  }
  const readAheadMs = performance.now() - started;
  if (seen !== rows - (rows % READ_AHEAD)) throw new Error(`${engine.name}: read ${seen} keys back`);

  const one = db.prepare('SELECT contact_id, draft_hash FROM contacts WHERE key = ?');
  const reads = Math.min(100_000, rows);
  started = performance.now();
  for (let n = 0, i = 7; n < reads; n++, i = (i * 7919 + 13) % rows) one.get(key(i));
  const pointReadsMs = performance.now() - started;
  db.close();

  const coldStarts: number[] = [];
  for (let n = 0; n < 7; n++) {
    const t = performance.now();
    execFileSync(process.execPath, ['--no-warnings', '-e', engine.coldStart(path)], { stdio: 'ignore' });
    coldStarts.push(performance.now() - t);
  }
  return { name: engine.name, fillMs, readAheadMs, pointReadsMs, coldStartMs: median(coldStarts) };
}

export const SQLITE_SECTION = "## The state store's SQLite engine";

/** Measures both engines over `rows` keys in files under `workDir`; returns the RESULTS.md section. */
export function runSqliteEngines(workDir: string, rows: number, log: (line: string) => void): string {
  const load = (loadavg()[0] ?? 0).toFixed(2);
  const bareStarts: number[] = [];
  for (let n = 0; n < 7; n++) {
    const t = performance.now();
    execFileSync(process.execPath, ['-e', '0'], { stdio: 'ignore' });
    bareStarts.push(performance.now() - t);
  }
  const figures = engines.map((engine) => {
    log(`  ${engine.name}, ${rows} keys`);
    return measure(engine, workDir, rows);
  });
  const s = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;
  return [
    SQLITE_SECTION,
    '',
    `The installed better-sqlite3 against Node's built-in node:sqlite, on the statements the zero-call re-run spends its store time in (bench/sqlite-engines.ts), over ${rows} keys, on Node.js ${process.versions.node}. A bare \`node -e 0\` starts in ${median(bareStarts).toFixed(0)} ms; load average ${load} at the start.`,
    '',
    `| engine | fill, ${FILL_BATCH} a transaction | read-ahead, ${READ_AHEAD} a statement | ${Math.min(100_000, rows)} point reads | cold start (median of 7) |`,
    '|---|---|---|---|---|',
    ...figures.map((f) => `| ${f.name} | ${s(f.fillMs)} | ${s(f.readAheadMs)} | ${s(f.pointReadsMs)} | ${f.coldStartMs.toFixed(0)} ms |`),
    '',
  ].join('\n');
}
