/**
 * Small helpers for the CLI integration tests (test/integration/), on top of cli-harness.ts:
 * an emulator per test, lookups of stored contacts and report rows by key, raw report files,
 * and call counts by operation.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Contact } from '../../src/api/wire-types.js';
import type { ApiOperation } from '../../src/api/wire-types.js';
import type { EmulatorOptions, RunningEmulator } from '../../src/emulator/index.js';
import { TOKEN, fastEmulator, type Workspace } from './cli-harness.js';

/**
 * Starts a fastEmulator before each test of the enclosing describe and closes it after; returns
 * a getter for the running one.
 */
export function emulatorPerTest(options: EmulatorOptions = {}): () => RunningEmulator {
  let emulator: RunningEmulator | undefined;
  beforeEach(async () => {
    emulator = await fastEmulator(options);
  });
  afterEach(async () => {
    await emulator?.close();
    emulator = undefined;
  });
  return () => {
    if (emulator === undefined) throw new Error('emulatorPerTest: no emulator outside a test');
    return emulator;
  };
}

/** Every stored contact whose custom field `field` (default customerid) is `key`. */
export function contactsWithKey(emulator: RunningEmulator, key: string, field = 'customerid'): Contact[] {
  return emulator.contacts(TOKEN).filter((contact) => contact.custom_fields[field] === key);
}

/** The one stored contact of `key`; fails the test when there are none or several. */
export function contactWithKey(emulator: RunningEmulator, key: string, field = 'customerid'): Contact {
  const found = contactsWithKey(emulator, key, field);
  if (found.length !== 1) throw new Error(`expected one contact with ${field}=${key}, found ${found.length}`);
  return found[0]!;
}

/** Tags sorted, for comparisons that do not care about order. */
export function sortedTags(contact: Pick<Contact, 'tags'> | undefined): string[] {
  return [...(contact?.tags ?? [])].sort();
}

/** Requests the emulator received for TOKEN, per operation (only the received counts). */
export function callsByOperation(emulator: RunningEmulator): Record<ApiOperation, number> & { total: number } {
  const counters = emulator.counters(TOKEN);
  const calls = Object.fromEntries(Object.entries(counters.byOperation).map(([operation, counter]) => [operation, counter.received]));
  return { ...(calls as Record<ApiOperation, number>), total: counters.total.received };
}

type ReportRow = Record<string, string>;

/** Report rows sorted by their `line` (the report may list rows in any order). */
export function byLine(rows: readonly ReportRow[]): ReportRow[] {
  return [...rows].sort((a, b) => Number(a.line) - Number(b.line));
}

/** The path of a report file of `job` in the workspace. */
export function reportPath(ws: Workspace, job: string, kind: 'results.csv' | 'rejected.csv' | 'summary.json', reportDir = 'reports'): string {
  return join(ws.dir, reportDir, `${job}.${kind}`);
}

/** The raw text of a report file. */
export function reportText(ws: Workspace, job: string, kind: 'results.csv' | 'rejected.csv' | 'summary.json', reportDir = 'reports'): string {
  return readFileSync(reportPath(ws, job, kind, reportDir), 'utf8');
}

/** Writes bytes (an encoded file) in the workspace; returns its path. */
export function writeBytes(ws: Workspace, name: string, bytes: Buffer): string {
  const path = join(ws.dir, name);
  writeFileSync(path, bytes);
  return path;
}

/** CSV text from lines, each line already joined; `eol` between and after them. */
export function csvLines(lines: readonly string[], eol = '\n'): string {
  return `${lines.join(eol)}${eol}`;
}

/** Waits until `condition` holds, polling every 5 ms, at most `timeoutMs`; throws after that. */
export async function waitFor(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  for (let waited = 0; !condition(); waited += 5) {
    if (waited >= timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
