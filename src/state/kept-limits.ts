/**
 * The limits the platform's answers taught earlier runs (table `learnt_limits`, schema version
 * 14): per budget (API v2: an endpoint, `POST /contact/list`), the calls it allows per period and
 * when it was learnt. A dry run, or a run before its first answers, reckons its estimates and ETA
 * at them instead of a first guess (issue 41; docs/state.md, "Limits learnt by earlier runs").
 * Each run that writes keeps what it learnt; a budget it did not use keeps its earlier limit.
 */
import type Database from 'better-sqlite3';
import type { Rate } from '../limits.js';

/** A budget's limit as an earlier run learnt it. */
export interface KeptLimit {
  readonly name: string;
  readonly rate: Rate;
}

export class KeptLimits {
  readonly #now: () => number;
  readonly #upsert: Database.Statement<[string, number, number, number]>;
  readonly #all: Database.Statement<[], { budget: string; calls: number; period_ms: number }>;
  readonly #keep: (limits: readonly KeptLimit[]) => void;

  constructor(db: Database.Database, now: () => number) {
    this.#now = now;
    this.#upsert = db.prepare(
      `INSERT INTO learnt_limits (budget, calls, period_ms, learnt_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (budget) DO UPDATE SET calls = excluded.calls, period_ms = excluded.period_ms, learnt_at = excluded.learnt_at`,
    );
    this.#all = db.prepare('SELECT budget, calls, period_ms FROM learnt_limits ORDER BY budget');
    const keep = db.transaction((limits: readonly KeptLimit[]): void => {
      const at = this.#now();
      for (const { name, rate } of limits) this.#upsert.run(name, rate.limit, rate.periodMs, at);
    });
    this.#keep = (limits) => keep.immediate(limits);
  }

  /** Keeps `limits` (whole calls from 1 up over a positive period; others are not limits and are left out), in one transaction. */
  keep(limits: readonly KeptLimit[]): void {
    const valid = limits.filter(({ rate }) => Number.isInteger(rate.limit) && rate.limit >= 1 && Number.isFinite(rate.periodMs) && rate.periodMs > 0);
    if (valid.length > 0) this.#keep(valid);
  }

  /** Every limit kept, by budget name. */
  all(): KeptLimit[] {
    return this.#all.all().map((row) => ({ name: row.budget, rate: { limit: row.calls, periodMs: row.period_ms } }));
  }
}
