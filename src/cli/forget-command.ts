/**
 * `contact-sync forget <jobs.yaml> --job NAME (--key KEY... | --keys-file FILE)`: an erasure
 * request (GDPR Art. 17; docs/personal-data.md). Every value of those keys leaves the job's state
 * store (`PersonalDataStore.eraseKeys`: the record, marks, journal lines, message records,
 * departure, reads), with no byte left in its file; one line per key says what was removed and
 * which of the job's report files still hold the key: those are the user's, listed and never
 * edited. A key the store does not know is said on its line, and the command exits 1 (the others
 * are erased still). It refuses to run while a run of the job holds the state, as `state reset`.
 *
 * The erasure is journalled as a run of the job that keeps no value: `forget <jobs.yaml> --keys N`.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import type { Logger } from 'pino';
import type { Job } from '../config/job-types.js';
import { EXIT } from '../exit-codes.js';
import { describeLock, LockHeldError } from '../lock/job-lock.js';
import { counted } from '../pipeline/report/counted.js';
import type { ErasedKey, PersonalDataStore, RunJournalStore, StateAdmin } from '../state/state-port.js';
import { StateStore } from '../state/state-store.js';
import type { CliIo } from './cli-io.js';
import { loadJobs } from './load-jobs.js';
import { statePath, stateRun } from './state-command.js';
import { UsageError } from './usage-error.js';

export interface ForgetArgs {
  readonly jobsFile: string;
  readonly job: string;
  /** `--key` (repeatable). */
  readonly keys?: readonly string[];
  /** `--keys-file`: one key a line, blank lines ignored. */
  readonly keysFile?: string;
  /** `--report-dir` (repeatable): more folders whose reports are searched for the keys, beside `reports/`. */
  readonly reportDirs?: readonly string[];
}

/** The folder of the reports of runs with no `--report-dir` (`report-folder.ts`), under the working folder. */
const DEFAULT_REPORTS = 'reports';

export async function forgetCommand(args: ForgetArgs, io: CliIo, logger: Logger): Promise<number> {
  const keys = keysToForget(args, io.cwd);
  // No call is made: the token's variable may be unset.
  const [job] = await loadJobs(args.jobsFile, [args.job], io, logger, { tokenOptional: true });
  if (job === undefined) throw new UsageError(`${args.jobsFile}: no job named "${args.job}"`);
  const path = statePath(job, args.jobsFile);
  const { lock, running } = stateRun(resolve(io.cwd, args.jobsFile), job.name, path, io.env);
  if (running !== undefined) throw new LockHeldError(running, `${describeLock(lock)}: cannot forget keys in its state while it`, lock.target.what);
  // A job that never ran has no store: nothing of the keys is in it, and none is created for them.
  const exists = existsSync(path);
  if (!exists) io.stdout.write(`job "${job.name}": no state at ${path}; it holds no key\n`);
  const erased = exists ? erase(job, path, args.jobsFile, keys) : keys.map((key): ErasedKey => ({ key, known: false, removed: {}, runIds: [] }));
  const reports = reportFiles(job, [resolve(io.cwd, DEFAULT_REPORTS), ...(args.reportDirs ?? []).map((dir) => resolve(io.cwd, dir))]);
  const holders = filesHolding(reports, keys);
  for (const entry of erased) io.stdout.write(`${formatErased(entry, job, (holders.get(entry.key) ?? []).map((file) => relative(io.cwd, file) || file))}\n`);
  const unknown = erased.filter((entry) => !entry.known).length;
  if (job.mode === 'create' && unknown < erased.length) {
    io.stdout.write(`  job "${job.name}" is in mode: create, which creates a key its state never saw without a search: run it once with --full next, so the forgotten keys are searched, not created again\n`);
  }
  logger.info({ job: job.name, keys: keys.length, erased: erased.length - unknown, unknown }, `forget: ${counted(erased.length - unknown, 'key')} erased from the state store, ${unknown} not known to it`);
  return unknown > 0 ? EXIT.rowsFailed : EXIT.ok;
}

/** The keys of `--key` or `--keys-file`, each once, in their order. */
function keysToForget(args: ForgetArgs, cwd: string): string[] {
  const given = args.keys ?? [];
  if ((given.length > 0) === (args.keysFile !== undefined)) {
    throw new UsageError('forget: name the keys to forget with --key KEY (repeatable) or --keys-file FILE (one key a line), one of the two');
  }
  let keys = given;
  if (args.keysFile !== undefined) {
    const file = resolve(cwd, args.keysFile);
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? String(error);
      throw new UsageError(`--keys-file ${args.keysFile}: cannot read it (${code}); give a file of keys, one a line; nothing was erased`);
    }
    keys = text.split(/\r\n|\n|\r/).map((line) => line.trim()).filter((line) => line !== '');
    if (keys.length === 0) throw new UsageError(`--keys-file ${args.keysFile}: holds no key (blank lines are ignored); nothing was erased`);
  }
  if (keys.some((key) => key.trim() === '')) throw new UsageError('--key: a key is empty; give the key as the job\'s key column holds it; nothing was erased');
  return [...new Set(keys)];
}

/** Erases the keys, journalled as a run that keeps no value (`forget <jobs.yaml> --keys N`). */
function erase(job: Job, path: string, jobsFile: string, keys: readonly string[]): ErasedKey[] {
  const store: StateAdmin & PersonalDataStore & RunJournalStore = StateStore.open(path, { job: job.name, keyField: job.key.field });
  try {
    const runId = store.startRun({ job: job.name, argv: `forget ${jobsFile} --keys ${keys.length}`, full: false, surface: job.connection.api });
    const erased = store.eraseKeys(keys);
    const known = erased.filter((entry) => entry.known).length;
    store.finishRun(runId, { rows: { total: keys.length, erased: known, unknown: keys.length - known }, exitCode: known < keys.length ? EXIT.rowsFailed : EXIT.ok, status: 'completed' });
    return erased;
  } finally {
    store.close();
  }
}

/**
 * The job's report files (named `<job>.*`: results, rejected, changes, departed, summary, HTML,
 * reconcile and undo reports, of each shard) in each folder and the folders right under it.
 */
function reportFiles(job: Job, roots: readonly string[]): string[] {
  const files = new Set<string>();
  const visit = (dir: string, depth: number): void => {
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch {
      return;
    }
    for (const name of names) {
      const path = join(dir, name);
      const stat = statSync(path, { throwIfNoEntry: false });
      if (stat?.isDirectory() === true && depth === 0) visit(path, 1);
      else if (stat?.isFile() === true && name.startsWith(`${job.name}.`)) files.add(path);
    }
  };
  for (const root of roots) visit(root, 0);
  return [...files];
}

/** For each key, the files whose bytes hold it. */
function filesHolding(files: readonly string[], keys: readonly string[]): Map<string, string[]> {
  const holders = new Map<string, string[]>();
  const needles = keys.map((key) => [key, Buffer.from(key, 'utf8')] as const);
  for (const file of files) {
    let bytes: Buffer;
    try {
      bytes = readFileSync(file);
    } catch {
      continue;
    }
    for (const [key, needle] of needles) if (bytes.includes(needle)) holders.set(key, [...(holders.get(key) ?? []), file]);
  }
  return holders;
}

/** What `forget` removed of one key, in words. */
const KIND_WORDS: Readonly<Record<string, readonly [one: string, many: string]>> = {
  record: ['record', 'records'],
  pendingCreate: ['pending create', 'pending creates'],
  messageDue: ['message due', 'messages due'],
  departure: ['departure', 'departures'],
  absentRead: ['absent read', 'absent reads'],
  uncreatable: ['uncreatable row', 'uncreatable rows'],
  changeLines: ['change journal line', 'change journal lines'],
  messages: ['message record', 'message records'],
};

/** One key's line: what left the store (and from which runs' journal), which report files still hold it. */
export function formatErased(entry: ErasedKey, job: Pick<Job, 'name'>, files: readonly string[]): string {
  const still = files.length === 0 ? 'no report file found holds it' : `still in ${counted(files.length, 'report file')} (yours to delete or edit): ${files.join(', ')}`;
  if (!entry.known) return `${entry.key}: not in the state store of job "${job.name}": nothing erased; ${still}`;
  const removed = Object.entries(entry.removed).map(([kind, count]) => {
    const [one, many] = KIND_WORDS[kind] ?? [kind, kind];
    return `${count} ${count === 1 ? one : many}`;
  });
  const runs = entry.runIds.length === 0 ? '' : ` (of run${entry.runIds.length === 1 ? '' : 's'} ${entry.runIds.join(', ')})`;
  return `${entry.key}: erased from the state store: ${removed.join(', ')}${runs}; ${still}`;
}
