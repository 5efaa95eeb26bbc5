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
 *
 * With `--platform`, the keys' contacts are deleted on the platform first, in a run session (the
 * job's lock, limits, signals, `--max-duration`) through the one engine and writer
 * (`pipeline/forget/platform-erasure.ts`), and only then erased from the store; on a surface that
 * cannot delete (v1), listed to delete by hand (exit 1). `--dry-run` changes nothing.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import type { Logger } from 'pino';
import type { Job } from '../config/job-types.js';
import { EXIT } from '../exit-codes.js';
import { erasePlatformContacts, type ErasureStore, type KeyErasureResult, type PlatformErasure } from '../pipeline/forget/platform-erasure.js';
import { formatDuration } from '../pipeline/report/duration.js';
import { describeLock, LockHeldError } from '../lock/job-lock.js';
import { counted } from '../pipeline/report/counted.js';
import type { ErasedKey, PersonalDataStore, RunJournalStore, StateAdmin } from '../state/state-port.js';
import type { CliIo } from './cli-io.js';
import { loadJobs } from './load-jobs.js';
import { noStateYet, openExistingState, runLockHolder } from './open-state.js';
import { stateRun } from './state-command.js';
import { runSession } from './run-session.js';
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
  /** `--platform`: the keys' contacts are deleted on the platform too, first (`pipeline/forget/`); on a surface that cannot delete, listed. */
  readonly platform?: boolean;
  /** `--dry-run`: list what would be deleted and erased, change nothing. */
  readonly dryRun?: boolean;
  /** `--max-duration`, in ms (with `--platform`): stop taking keys in time. */
  readonly maxDuration?: number;
}

/** The folder of the reports of runs with no `--report-dir` (`report-folder.ts`), under the working folder. */
const DEFAULT_REPORTS = 'reports';

export async function forgetCommand(args: ForgetArgs, io: CliIo, logger: Logger): Promise<number> {
  const keys = keysToForget(args, io.cwd);
  if (args.platform === true) return forgetOnPlatform(args, keys, io, logger);
  if (args.maxDuration !== undefined) throw new UsageError('--max-duration: only with --platform (forget without it makes no call and takes no time to speak of); nothing was erased');
  const dryRun = args.dryRun === true;
  // No call is made: the token's variable may be unset.
  const [job] = await loadJobs(args.jobsFile, [args.job], io, logger, { tokenOptional: true });
  if (job === undefined) throw new UsageError(`${args.jobsFile}: no job named "${args.job}"`);
  if (job.state === false) {
    throw new UsageError(`${args.jobsFile}: job "${job.name}" has state: false, so it keeps no state store to forget keys in; forget --platform deletes their contacts on the platform`);
  }
  // A state file's own locks (a run by whichever path or hard link); a database's is the store's, taken as it opens.
  if (typeof job.state === 'string') {
    const { lock, running } = stateRun(resolve(io.cwd, args.jobsFile), job.name, job.state, io.env);
    if (running !== undefined) throw new LockHeldError(running, `${describeLock(lock)}: cannot forget keys in its state while it`, lock.target.what);
  }
  // A job that never ran has no store: nothing of the keys is in it, and none is created for them.
  const store = await openExistingState(job, { runLock: runLockHolder(`forget ${args.jobsFile} --keys ${keys.length}`) });
  if (store === undefined) io.stdout.write(`job "${job.name}": no state yet (${noStateYet(job)}); it holds no key\n`);
  // Where the job's runs wrote their reports, read before `erase` closes the store.
  const recorded = store?.reportFolders() ?? [];
  const erased = store !== undefined ? erase(store, job, args.jobsFile, keys, dryRun) : keys.map((key): ErasedKey => ({ key, known: false, removed: {}, runIds: [] }));
  const holders = keyHolders(job, args, keys, io.cwd, recorded);
  for (const entry of erased) io.stdout.write(`${formatErased(entry, job, holders(entry.key), dryRun)}\n`);
  const unknown = erased.filter((entry) => !entry.known).length;
  if (!dryRun && job.mode === 'create' && unknown < erased.length) io.stdout.write(`${createModeNote(job)}\n`);
  if (dryRun) io.stdout.write('dry run: nothing was erased\n');
  logger.info({ job: job.name, keys: keys.length, erased: erased.length - unknown, unknown, dryRun }, `forget: ${counted(erased.length - unknown, 'key')} ${dryRun ? 'to erase' : 'erased'} from the state store, ${unknown} not known to it`);
  return unknown > 0 ? EXIT.rowsFailed : EXIT.ok;
}

/**
 * `forget --platform`: a run session (`run-session.ts`: the job's lock, its limiters, signals and
 * `--max-duration`) whose one job deletes the keys' contacts on the platform, then erases them from
 * the store (`pipeline/forget/platform-erasure.ts`), through the one engine and writer.
 */
async function forgetOnPlatform(args: ForgetArgs, keys: readonly string[], io: CliIo, logger: Logger): Promise<number> {
  const dryRun = args.dryRun === true;
  // The lock's holder and the journal: flags and a count, never a key.
  const argv = `forget ${args.jobsFile} --platform --keys ${keys.length}${dryRun ? ' --dry-run' : ''}${args.maxDuration === undefined ? '' : ` --max-duration ${formatDuration(args.maxDuration)}`}`;
  let ended: { readonly job: Job; readonly erasure: PlatformErasure; readonly store: string | undefined; readonly surface: string; readonly recorded: readonly string[] } | undefined;
  const session = { jobsFile: args.jobsFile, job: [args.job], argv, readsInput: false, ...(args.maxDuration === undefined ? {} : { maxDuration: args.maxDuration }) };
  const exitCode = await runSession(session, io, logger, async (scope) => {
    const { job } = scope;
    // A job with no store (state: false, or never run) has no id to give: the lookup alone finds the contacts.
    const store = await openExistingState(job, { runLock: runLockHolder(argv) });
    if (store !== undefined) scope.defer(() => store.close());
    const state: ErasureStore | undefined = store;
    const erasure = await erasePlatformContacts({ job, api: scope.api, state, keys, dryRun, signal: scope.signal, deadline: scope.deadline, argv });
    ended = {
      job,
      erasure,
      store: state === undefined ? (job.state === false ? 'state: false' : `no state yet (${noStateYet(job)})`) : undefined,
      surface: scope.api.surface.name,
      recorded: store?.reportFolders() ?? [],
    };
    const count = (outcome: string): number => erasure.keys.filter((key) => key.outcome === outcome).length;
    if (erasure.abort !== undefined) scope.logger.error({ job: job.name, code: erasure.abort.code }, `forget stopped: ${erasure.abort.message}`);
    scope.logger.info(
      { job: job.name, keys: keys.length, erased: count('erased'), byHand: count('by-hand'), unknown: count('unknown'), failed: count('failed'), notReached: count('not-reached'), dryRun, exitCode: erasure.exitCode },
      `forget --platform: ${counted(keys.length, 'key')}; ${count('erased')} erased on the platform and in the store, ${count('by-hand')} left to delete by hand, ${count('unknown')} unknown, ${count('failed')} failed, ${count('not-reached')} not reached`,
    );
    return { exitCode: erasure.exitCode };
  });
  if (ended === undefined) return exitCode;
  const { job, erasure } = ended;
  if (ended.store !== undefined) io.stdout.write(`job "${job.name}": ${ended.store}: no state store holds the keys; their contacts are found by the platform's lookup of ${job.key.field}\n`);
  const holders = keyHolders(job, args, keys, io.cwd, ended.recorded);
  for (const result of erasure.keys) io.stdout.write(`${formatPlatformErased(result, { job, surface: ended.surface, dryRun, store: ended.store === undefined }, holders(result.key))}\n`);
  if (erasure.abort !== undefined) io.stdout.write(`forget stopped (${erasure.abort.code}): ${erasure.abort.message}; a key not erased is still known to the store: run forget again to finish\n`);
  if (!dryRun && job.mode === 'create' && erasure.keys.some((result) => result.store?.known === true)) io.stdout.write(`${createModeNote(job)}\n`);
  if (erasure.keys.some((result) => result.outcome === 'by-hand')) {
    io.stdout.write(`API ${ended.surface} cannot delete a contact: the erasure is not complete until the contacts listed are deleted in the platform's interface (exit 1)\n`);
  }
  if (dryRun) io.stdout.write('dry run: nothing was deleted on the platform or erased from the state store\n');
  return exitCode;
}

/**
 * For each key, the job's report files that hold it: under `reports/`, each `--report-dir` given,
 * and each folder the state store's runs recorded writing to (those on this host), named relative
 * to the working folder when they are under it, else in full.
 */
function keyHolders(job: Job, args: ForgetArgs, keys: readonly string[], cwd: string, recorded: readonly string[]): (key: string) => string[] {
  const reports = reportFiles(job, [resolve(cwd, DEFAULT_REPORTS), ...(args.reportDirs ?? []).map((dir) => resolve(cwd, dir)), ...recorded]);
  const holders = filesHolding(reports, keys);
  const shown = (file: string): string => {
    const under = relative(cwd, file);
    return under === '' || under.startsWith('..') || isAbsolute(under) ? file : under;
  };
  return (key) => (holders.get(key) ?? []).map(shown);
}

function createModeNote(job: Job): string {
  return `  job "${job.name}" is in mode: create, which creates a key its state never saw without a search: run it once with --full next, so the forgotten keys are searched, not created again`;
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
function erase(store: StateAdmin & PersonalDataStore & RunJournalStore, job: Job, jobsFile: string, keys: readonly string[], dryRun: boolean): ErasedKey[] {
  try {
    // A dry run counts in a transaction rolled back, and journals nothing.
    if (dryRun) return store.eraseKeys(keys, { dryRun: true });
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
export function formatErased(entry: ErasedKey, job: Pick<Job, 'name'>, files: readonly string[], dryRun = false): string {
  if (!entry.known) return `${entry.key}: not in the state store of job "${job.name}": nothing ${dryRun ? 'to erase' : 'erased'}; ${stillIn(files)}`;
  return `${entry.key}: ${storeWords(entry, dryRun)}; ${stillIn(files)}`;
}

function stillIn(files: readonly string[]): string {
  return files.length === 0 ? 'no report file found holds it' : `still in ${counted(files.length, 'report file')} (yours to delete or edit): ${files.join(', ')}`;
}

/** What left the store of a key it knew (a dry run: what would leave), in words. */
function storeWords(entry: ErasedKey, dryRun: boolean): string {
  const removed = Object.entries(entry.removed).map(([kind, count]) => {
    const [one, many] = KIND_WORDS[kind] ?? [kind, kind];
    return `${count} ${count === 1 ? one : many}`;
  });
  const runs = entry.runIds.length === 0 ? '' : ` (of run${entry.runIds.length === 1 ? '' : 's'} ${entry.runIds.join(', ')})`;
  return `${dryRun ? 'would erase from the state store' : 'erased from the state store'}: ${removed.join(', ')}${runs}`;
}

/** `contact 17`, `contacts 17, 18`. */
function contactsWords(ids: readonly string[]): string {
  return `contact${ids.length === 1 ? '' : 's'} ${ids.join(', ')}`;
}

/**
 * One key's line of `forget --platform`: what was deleted on the platform (contact ids), what left
 * the store, and which report files still hold the key. For the operator, who gave the keys: not masked.
 */
export function formatPlatformErased(
  result: KeyErasureResult,
  context: { readonly job: Pick<Job, 'name' | 'key'>; readonly surface: string; readonly dryRun: boolean; readonly store: boolean },
  files: readonly string[],
): string {
  const { key } = result;
  const { job, dryRun } = context;
  const gone = result.gone.length === 0 ? '' : ` (${contactsWords(result.gone)} gone already)`;
  const store = result.store === undefined || !result.store.known ? (context.store ? `not in the state store of job "${job.name}"` : 'no state store') : storeWords(result.store, dryRun);
  switch (result.outcome) {
    case 'not-reached':
      return `${key}: not reached (${result.error?.message ?? 'the forget stopped before it'}): nothing deleted on the platform, nothing erased from the state store; run forget again`;
    case 'failed': {
      const done = result.deleted.length + result.gone.length === 0 ? '' : `; ${contactsWords([...result.deleted, ...result.gone])} deleted on the platform before it`;
      return `${key}: ${result.error?.code ?? 'FAILED'}: ${result.error?.message ?? 'failed'}${done}; nothing erased from the state store, which still knows what to delete: run forget again to finish`;
    }
    case 'unknown':
      return `${key}: no contact on the platform holds ${job.key.field} "${key}", and ${store}: nothing ${dryRun ? 'to erase' : 'erased'}; ${stillIn(files)}`;
    case 'by-hand':
      return `${key}: API ${context.surface} cannot delete a contact: delete ${contactsWords(result.byHand)} in the platform's interface (nothing was deleted there); ${store}; ${stillIn(files)}`;
    case 'erased': {
      const platform = result.contactIds.length === 0 ? 'no contact on the platform holds it' : `${dryRun ? 'would delete on the platform' : 'deleted on the platform'}: ${contactsWords(result.contactIds)}${gone}`;
      return `${key}: ${platform}; ${store}; ${stillIn(files)}`;
    }
  }
}
