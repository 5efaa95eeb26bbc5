/**
 * What `reconcile` reports, as data: reconcile.json's shape and diff.csv's lines (docs/reconcile.md),
 * apart from the writer (`reconcile-report.ts`) and the page (`reconcile-html.ts`), which both read it.
 */
import { join } from 'node:path';
import type { KeyStatus } from '../row/compare.js';

/** A diff.csv line's status: how a key disagrees, or `failed` (the row could not be read, mapped or looked up). */
export type DiffStatus = Exclude<KeyStatus, 'same'> | 'extra' | 'failed';

export interface DiffLine {
  readonly key: string;
  readonly contactId: string;
  readonly status: DiffStatus;
  readonly field: string;
  readonly fileValue: string;
  readonly platformValue: string;
  readonly errorCode: string;
  readonly errorMessage: string;
  /**
   * What reconcile's own writes did to the key (issue 46): `merged`, `would-merge`, `merge-failed`
   * on a duplicate line (`--merge-duplicates`; `contact_id` then lists the survivor first), `tagged`,
   * `would-tag`, `already-tagged`, `tag-failed` on an extra line (`--tag-extras`); absent ("" in the file) otherwise.
   */
  readonly action?: DiffAction | '';
}

export type DiffAction = 'merged' | 'would-merge' | 'merge-failed' | 'tagged' | 'would-tag' | 'already-tagged' | 'tag-failed';

/** reconcile.json `finish`: what `--merge-duplicates` and `--tag-extras` wrote (or, `dryRun`, would write). */
export interface ReconcileFinishSummary {
  dryRun: boolean;
  /** Keys merged into one contact (a dry run: to merge); the contacts merged away; keys whose merge failed. Absent without --merge-duplicates. */
  merges?: { keys: number; contactsMerged: number; failed: number };
  /** The tag, the contacts of the marker set the file lacks that got it (a dry run: would), those that had it, those whose call failed. Absent without --tag-extras. */
  tagExtras?: { tag: string; tagged: number; alreadyTagged: number; failed: number };
}

/** Keys whose file and platform disagree in any way (a `failed` row is not one: it was not compared). */
export function differingKeys(keys: Pick<ReconcileSummary['keys'], 'differs' | 'missing' | 'extra' | 'duplicate'>): number {
  return keys.differs + keys.missing + keys.extra + keys.duplicate;
}

export interface ReconcilePaths {
  diff: string;
  summary: string;
  html: string;
}

export function reconcilePaths(dir: string, name: string): ReconcilePaths {
  return { diff: join(dir, `${name}.diff.csv`), summary: join(dir, `${name}.reconcile.json`), html: join(dir, `${name}.reconcile.html`) };
}

/** `<job>.reconcile.json` (the contract in docs/reconcile.md). */
export interface ReconcileSummary {
  job: string;
  /** The state store's id of this reconcile in its journal of runs; null without a state store. */
  runId: string | null;
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  status: 'completed' | 'interrupted' | 'aborted' | 'deadline';
  /** Keys of the file compared; keys on the platform only; rows that could not be compared (`failed`). */
  keys: { inFile: number; same: number; differs: number; missing: number; extra: number; duplicate: number; failed: number };
  /** Per custom field (and `tags`): the keys whose value differs. */
  fields: Record<string, number>;
  /** Whether contacts the file lacks could be listed (`match.prefetch`), and why not when not. */
  extra: { listed: boolean; reason?: string };
  apiCalls: { total: number; byOperation: Record<string, number> };
  /** Rows of the file not compared (stopped early, `--limit`). */
  notReached: number;
  /** `--merge-duplicates` and `--tag-extras`: what reconcile wrote to the platform. Absent without either. */
  finish?: ReconcileFinishSummary;
  aborted?: { code: string; message: string };
}

