/**
 * The bad-input corpus (fixtures/bad/): its jobs file runs one job per case, a case's files are
 * named after it. Runs go through the real CLI in-process with `--log-format json`, the way a
 * script or a log collector reads a nightly job; the error that stopped a run is read back from
 * the JSON lines, where its stable `code` is.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RunningEmulator } from '../../../src/emulator/index.js';
import { TOKEN, type CliRun, type Workspace } from '../../helpers/cli-harness.js';

export const CORPUS_DIR = fileURLToPath(new URL('../../../fixtures/bad/', import.meta.url));

/** The corpus's jobs file: one job per CSV case. */
export const CORPUS_JOBS = join(CORPUS_DIR, 'jobs.yaml');

/** A file of the corpus, by name. */
export function corpusFile(name: string): string {
  return join(CORPUS_DIR, name);
}

/** What the corpus's jobs files read from the environment. */
export function corpusEnv(emulator: RunningEmulator, token = TOKEN): Record<string, string> {
  return { CONTACTS_API_URL: emulator.url, CHANNEL_TOKEN: token };
}

/** `contact-sync run <corpus jobs file> --job <job>` with JSON logs; reports in `reports/`. */
export function runCase(ws: Workspace, job: string, env: Record<string, string>, jobsFile = CORPUS_JOBS): Promise<CliRun> {
  return ws.run(['run', jobsFile, '--job', job, '--report-dir', 'reports', '--log-format', 'json'], { env });
}

/** `contact-sync validate <corpus jobs file> --job <job>` (no API call). */
export function validateCase(ws: Workspace, job: string, env: Record<string, string>, jobsFile = CORPUS_JOBS): Promise<CliRun> {
  return ws.run(['validate', jobsFile, '--job', job, '--log-format', 'json'], { env });
}

export interface LoggedError {
  code: unknown;
  msg: unknown;
}

/** The error lines (level 50 and up) of a JSON log on stderr; lines that are not JSON are skipped. */
export function loggedErrors(stderr: string): LoggedError[] {
  const errors: LoggedError[] = [];
  for (const line of stderr.split('\n')) {
    if (!line.startsWith('{')) continue;
    const entry = JSON.parse(line) as { level?: number; code?: unknown; msg?: unknown };
    if ((entry.level ?? 0) >= 50) errors.push({ code: entry.code, msg: entry.msg });
  }
  return errors;
}

/** The codes of the error lines: what a log collector alerts on. */
/** What a person or a collector reads of a run's errors: stderr, with JSON log lines' messages unescaped. */
export function errorText(run: CliRun): string {
  return [run.stderr, ...loggedErrors(run.stderr).map((error) => String(error.msg))].join('\n');
}

export function loggedCodes(run: CliRun): unknown[] {
  return loggedErrors(run.stderr).map((error) => error.code);
}
