/**
 * What the reliability tests count after a run of `customersCsv(rows)` under CUSTOMERS_JOB: the
 * rows of a report file (parsed strictly, so a torn file fails the test), and the platform
 * compared key by key with what the file says: lost rows, duplicate contacts, wrong contents.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import type { RunningEmulator } from '../../../src/emulator/index.js';
import { asExpected, contactsByKey, customerKey, expectedCustomer } from '../../helpers/state-fixtures.js';

export type ReportRow = Record<string, string>;

/** The rows of a report CSV; throws when the file is not valid CSV (a torn last line included). */
export function readReport(path: string): ReportRow[] {
  return parse<ReportRow>(readFileSync(path, 'utf8'), { columns: true, bom: true, relax_column_count: false });
}

/** The data lines of a `customersCsv(rows)`: 2 .. rows + 1. */
export function dataLines(rows: number): number[] {
  return Array.from({ length: rows }, (_, i) => i + 2);
}

/** `line` of every report row, sorted. */
export function reportedLines(rows: readonly ReportRow[]): number[] {
  return rows.map((row) => Number(row.line)).sort((a, b) => a - b);
}

/** Lines reported more than once. */
export function repeatedLines(rows: readonly ReportRow[]): number[] {
  const seen = new Set<number>();
  const repeated = new Set<number>();
  for (const row of rows) {
    const line = Number(row.line);
    if (seen.has(line)) repeated.add(line);
    seen.add(line);
  }
  return [...repeated];
}

export interface PlatformAudit {
  /** Keys of the file with no contact on the platform. */
  missing: string[];
  /** Contacts beyond the first of a key (0 means one contact per key at most). */
  duplicates: number;
  /** Keys whose one contact holds other fields or tags than the file says. */
  wrong: string[];
  /** Contacts whose key is not a row of the file. */
  strangers: number;
}

/**
 * The platform against `customersCsv(rows)`: `keys` limits the check of presence and contents
 * to those keys (e.g. the rows a report says were written); duplicates and strangers are
 * counted over every contact.
 */
export function auditPlatform(emulator: RunningEmulator, rows: number, keys?: ReadonlySet<string>): PlatformAudit {
  const byKey = contactsByKey(emulator);
  const audit: PlatformAudit = { missing: [], duplicates: 0, wrong: [], strangers: 0 };
  const fileKeys = new Set<string>();
  for (let i = 1; i <= rows; i++) {
    const key = customerKey(i);
    fileKeys.add(key);
    const found = byKey.get(key) ?? [];
    audit.duplicates += Math.max(0, found.length - 1);
    if (keys !== undefined && !keys.has(key)) continue;
    if (found.length === 0) audit.missing.push(key);
    else if (found.length === 1 && JSON.stringify(asExpected(found[0])) !== JSON.stringify(expectedCustomer(i))) audit.wrong.push(key);
  }
  for (const [key, contacts] of byKey) if (!fileKeys.has(key)) audit.strangers += contacts.length;
  return audit;
}

/** An audit with nothing wrong. */
export const CLEAN: PlatformAudit = { missing: [], duplicates: 0, wrong: [], strangers: 0 };

/** Outcomes a row ends with when its contact holds what the file says. */
export const WRITTEN_OUTCOMES: ReadonlySet<string> = new Set(['created', 'updated', 'unchanged']);

/** Row counts by outcome, as summary.json counts them. */
export function countOutcomes(rows: readonly ReportRow[]): Record<'total' | 'created' | 'updated' | 'unchanged' | 'skipped' | 'failed', number> {
  const counts = { total: rows.length, created: 0, updated: 0, unchanged: 0, skipped: 0, failed: 0 };
  for (const row of rows) {
    const outcome = row.outcome as keyof typeof counts;
    if (outcome in counts && outcome !== 'total') counts[outcome]++;
  }
  return counts;
}
