/**
 * What a run reports, as data: summary.json's shape (`JobSummary`, the contract in docs/reports.md)
 * and the report files' paths. Apart from the writer (`report.ts`) and the HTML page
 * (`html-report.ts`), which both read it, so that neither imports the other's module for it.
 */
import { join } from 'node:path';
import type { AllowedGuard } from '../guards/guard-verdict.js';
import type { PaceLimit, RealRunEstimate } from '../real-run-estimate.js';
import type { RowOutcome } from './row-outcome.js';

/** The files of one job's run (a shard's are named `<job>.shard-I-of-N.*`). */
export interface ReportPaths {
  results: string;
  rejected: string;
  summary: string;
  /** The run report for a person: docs/reports.md. */
  html: string;
  /** Each changed field with both values: the preview a migration checks before it writes. */
  changes: string;
}

/** The report files of `job` (or a shard's report name) in `dir`. */
export function reportPaths(dir: string, job: string): ReportPaths {
  return {
    results: join(dir, `${job}.results.csv`),
    rejected: join(dir, `${job}.rejected.csv`),
    summary: join(dir, `${job}.summary.json`),
    html: join(dir, `${job}.report.html`),
    changes: join(dir, `${job}.changes.csv`),
  };
}

/** summary.json: the contract of docs/reports.md, which cron scripts read. */
export interface JobSummary {
  job: string;
  /**
   * The run's id in the job's state store (`state show`, `history`, `undo --run`); null for a job
   * without a state store and for a dry run, which journal nothing.
   */
  runId: string | null;
  dryRun: boolean;
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  /** `notReached`: data rows of the input a job that stopped did not take. */
  rows: Record<'total' | RowOutcome, number> & { notReached?: number };
  /**
   * `byOperation`: by the port's operations, the same names on both surfaces (the report's least
   * writes, the metrics); `byEndpoint`, on API v2: by v2's own names of its calls, its endpoints
   * (a search by email is `GET /contact/{identifier}`, by another field `POST /contact/list`).
   */
  apiCalls: { total: number; byOperation: Record<string, number>; byEndpoint?: Record<string, number> };
  /**
   * The budgets the run's calls were paced by, as the platform port knew them at the end
   * (`ContactsApi.pace`): v1's API groups at the connection's rates, v2's endpoints at their
   * learnt limits (or an earlier run's, or the first guess), each with where its number came from.
   * docs/reports.md. Absent from summaries written before it.
   */
  limits?: PaceLimit[];
  retries: number;
  rateLimited: number;
  /**
   * Rows written without a field whose value was refused (`onInvalid: skip-field`): how many rows,
   * and the skips by field. Absent when none.
   */
  fieldsSkipped?: { rows: number; byField: Record<string, number> };
  /**
   * Rows whose phone was written without the extension the file gave it (E.164 has none; the phone
   * transform's `extensionField` keeps it instead): how many rows, and the phones by field. Each is
   * named in results.csv's `warnings`. Absent when none.
   */
  phoneExtensionsDropped?: { rows: number; byField: Record<string, number> };
  /**
   * Rows whose tags differ only in case (`VIP;vip;Vip` under `tags.case: keep`): each spelling is
   * a tag of its own on the platform. How many rows, the first one's line and its tags. Absent
   * when none.
   */
  tagsDifferingInCase?: { rows: number; firstLine: number; example: string[] };
  /**
   * When rows failed: how many failed for their own data (in rejected.csv, to fix and feed back)
   * and how many for a cause outside it (the job stopped, the platform failed: only in
   * results.csv, run the same command again), and the encoding and line ends rejected.csv is
   * written in (the input's). docs/reports.md, "Rows that failed".
   */
  failedRows?: { toFix: number; toRunAgain: number; rejectedEncoding: string; rejectedLineEnds: 'CRLF' | 'LF' | 'CR' };
  /** Rows' messages by status, when the job sends one. */
  messages?: Record<'sent' | 'skipped' | 'failed' | 'unknown', number>;
  /**
   * With `match.prefetch`: whether the run paged and why (it pages only when that can save calls),
   * contacts read, calls made, searches saved (all 0 when it did not page).
   */
  prefetch?: { used: boolean; reason: string; contacts: number; calls: number; searchesSaved: number };
  /**
   * A dry run's estimate of the real run of the same rows: its calls by operation (the dry run's
   * own reads, and the writes, sends and departed-step calls it withheld) and their time at the
   * connection's rate limits (real-run-estimate.ts). Absent in a real run.
   */
  realRunEstimate?: RealRunEstimate;
  /**
   * With `verify`: contacts the state trusts that this run re-read (`verified`) and, of those, the
   * ones found different from what the job last wrote and repaired (`drift`); `verification` says
   * how (the share, the budget, by GETs or the marker's pages, the reads, failures), or why it did
   * not run. Absent without `verify`.
   */
  verified?: number;
  drift?: number;
  verification?: Record<string, unknown>;
  /**
   * `run --allow [JOB:]NAME` for this job: each guard named, whether the job has it, and the
   * refusals it let past with their messages (0: it would not have refused). Absent without --allow.
   */
  guardsAllowed?: AllowedGuard[];
  /** Why the job stopped before the end of the input, if it did. */
  aborted?: { code: string; message: string };
  /** Set when the run was interrupted by a signal. */
  interrupted?: string;
  /** How the run ended: completed, interrupted (a signal), aborted, deadline (--max-duration). */
  status?: 'completed' | 'interrupted' | 'aborted' | 'deadline';
  [extra: string]: unknown;
}
