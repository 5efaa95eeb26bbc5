/**
 * The runs journal (table `runs`): one line per run, with its start, flags, end, rows by outcome,
 * exit code and status; a killed run stays unfinished. `state show` prints it, and the change
 * journal files each line under a run's id.
 */
import type Database from 'better-sqlite3';
import { parseCounts } from './json-columns.js';
import type { IdSurface } from './known-contact.js';

/** Counts of rows by outcome (and `total`), as in summary.json. */
export type RunRowCounts = Readonly<Record<string, number>>;

export interface RunStart {
  readonly job: string;
  /** ms since the Unix epoch. @default now() */
  readonly startedAt?: number;
  /** The command line, shortened, with no token or other secret: the caller strips them. */
  readonly argv: string;
  /** `--full`: hashes ignored, every row compared with the platform. */
  readonly full: boolean;
  /** The surface of the run's api (`api.surface.name`): the ids its change lines name are valid there only. */
  readonly surface: IdSurface;
  /** The folder its reports go to (absolute), for `forget` to search; none for a run that writes no report. */
  readonly reportDir?: string;
}

/** How a run ended, as summary.json's `status` says it. */
export type RunStatus = 'completed' | 'interrupted' | 'aborted' | 'deadline';

export interface RunFinish {
  /** ms since the Unix epoch. @default now() */
  readonly finishedAt?: number;
  readonly rows: RunRowCounts;
  /** The run's real exit code: 130 for a run stopped by SIGINT, 4 at --max-duration... */
  readonly exitCode: number;
  readonly status: RunStatus;
}

export interface RunRecord {
  readonly id: number;
  readonly job: string;
  readonly startedAt: number;
  readonly argv: string;
  readonly full: boolean;
  /** The surface the run spoke: its change lines' ids came from it ('v1' for runs before schema version 10). */
  readonly surface: IdSurface;
  /** False for a run still going, or killed before `finishRun`. */
  readonly finished: boolean;
  readonly finishedAt: number | null;
  readonly rows: RunRowCounts | null;
  readonly exitCode: number | null;
  /** How it ended; null while it runs, when it was killed, or for runs journalled before status was. */
  readonly status: RunStatus | null;
  /** When `state prune` dropped its change journal (ms since the Unix epoch); null while it is kept. */
  readonly prunedAt: number | null;
  /** When `retention.journal` expired its change journal (ms since the Unix epoch); null while it is kept. */
  readonly journalExpiredAt: number | null;
  /** The folder it wrote its reports to; null for a run that wrote none, or journalled before schema version 17. */
  readonly reportDir: string | null;
}

/** A `runs` row as stored (both adapters). */
export interface RunRow {
  id: number;
  job: string;
  started_at: number;
  argv: string;
  full: number;
  finished_at: number | null;
  rows_json: string | null;
  exit_code: number | null;
  status: string | null;
  pruned_at: number | null;
  journal_expired_at: number | null;
  surface: IdSurface;
  report_dir: string | null;
}

export class RunJournal {
  readonly #now: () => number;
  readonly #insert: Database.Statement<[string, number, string, number, IdSurface, string | null]>;
  readonly #reportFolders: Database.Statement<[], { report_dir: string }>;
  readonly #finish: Database.Statement<[number, string, number, string, number]>;
  readonly #byId: Database.Statement<[number], RunRow>;
  readonly #last: Database.Statement<[number], RunRow>;
  readonly #lastOne: Database.Statement<[], RunRow>;
  readonly #lastFinished: Database.Statement<[], RunRow>;
  readonly #idFromNewest: Database.Statement<[number], { id: number }>;
  readonly #deleteAll: Database.Statement<[]>;
  readonly #markPruned: Database.Statement<[number, number]>;
  readonly #markExpired: Database.Statement<[number, number]>;

  constructor(db: Database.Database, now: () => number) {
    this.#now = now;
    this.#insert = db.prepare('INSERT INTO runs (job, started_at, argv, full, surface, report_dir) VALUES (?, ?, ?, ?, ?, ?)');
    this.#reportFolders = db.prepare('SELECT DISTINCT report_dir FROM runs WHERE report_dir IS NOT NULL ORDER BY report_dir');
    this.#finish = db.prepare('UPDATE runs SET finished_at = ?, rows_json = ?, exit_code = ?, status = ? WHERE id = ?');
    this.#byId = db.prepare('SELECT * FROM runs WHERE id = ?');
    this.#last = db.prepare('SELECT * FROM runs ORDER BY id DESC LIMIT ?');
    this.#lastOne = db.prepare('SELECT * FROM runs ORDER BY id DESC LIMIT 1');
    this.#lastFinished = db.prepare('SELECT * FROM runs WHERE finished_at IS NOT NULL ORDER BY id DESC LIMIT 1');
    this.#idFromNewest = db.prepare('SELECT id FROM runs ORDER BY id DESC LIMIT 1 OFFSET ?');
    this.#deleteAll = db.prepare('DELETE FROM runs');
    this.#markPruned = db.prepare('UPDATE runs SET pruned_at = ? WHERE id = ?');
    this.#markExpired = db.prepare('UPDATE runs SET journal_expired_at = ? WHERE started_at < ? AND journal_expired_at IS NULL');
  }

  /** Notes that `retention.journal` expired the change journal of every run started before `before` not so noted yet; returns how many runs it noted. */
  markExpiredBefore(before: number, at: number = this.#now()): number {
    return this.#markExpired.run(at, before).changes;
  }

  /** Notes that `state prune` dropped the run's change journal (the run stays listed). */
  markPruned(runId: number, at: number = this.#now()): void {
    this.#markPruned.run(at, runId);
  }

  /** Journals the start of a run; returns its id. */
  start(start: RunStart): number {
    const result = this.#insert.run(start.job, start.startedAt ?? this.#now(), start.argv, start.full ? 1 : 0, start.surface, start.reportDir ?? null);
    return Number(result.lastInsertRowid);
  }

  finish(runId: number, finish: RunFinish): void {
    this.#finish.run(finish.finishedAt ?? this.#now(), JSON.stringify(finish.rows), finish.exitCode, finish.status, runId);
  }

  /** The run of this id, finished or not. */
  get(runId: number): RunRecord | undefined {
    const row = this.#byId.get(runId);
    return row === undefined ? undefined : toRunRecord(row);
  }

  /** The latest `count` runs, newest first, finished or not. */
  last(count: number): RunRecord[] {
    return this.#last.all(count).map(toRunRecord);
  }

  /** The latest run, finished or not (a killed run stays unfinished). */
  lastOne(): RunRecord | undefined {
    const row = this.#lastOne.get();
    return row === undefined ? undefined : toRunRecord(row);
  }

  lastFinished(): RunRecord | undefined {
    const row = this.#lastFinished.get();
    return row === undefined ? undefined : toRunRecord(row);
  }

  /** The id of the run `places` after the newest in id order (0: the newest); undefined when there are not that many. */
  idFromNewest(places: number): number | undefined {
    return this.#idFromNewest.get(places)?.id;
  }

  /** Every folder the job's runs wrote their reports to, each once, in name order. */
  reportFolders(): string[] {
    return this.#reportFolders.all().map((row) => row.report_dir);
  }

  /** Forgets every run (`state reset --keep-messages`, in the store's transaction). */
  deleteAll(): void {
    this.#deleteAll.run();
  }
}

const RUN_STATUSES: ReadonlySet<string> = new Set(['completed', 'interrupted', 'aborted', 'deadline']);

export function toRunRecord(row: RunRow): RunRecord {
  return {
    id: row.id,
    job: row.job,
    startedAt: row.started_at,
    argv: row.argv,
    full: row.full === 1,
    surface: row.surface,
    finished: row.finished_at !== null,
    finishedAt: row.finished_at,
    rows: row.rows_json === null ? null : parseCounts(row.rows_json),
    exitCode: row.exit_code,
    status: RUN_STATUSES.has(row.status ?? '') ? (row.status as RunStatus) : null,
    prunedAt: row.pruned_at ?? null,
    journalExpiredAt: row.journal_expired_at ?? null,
    reportDir: row.report_dir ?? null,
  };
}
