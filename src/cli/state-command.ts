/**
 * `contact-sync state show|reset|prune|copy <jobs.yaml> --job NAME`: look into a job's state store,
 * start it afresh, bound its change journal, or copy it from another store. `show` never creates a
 * file (a job that never ran has no state yet); `reset` deletes the file and its SQLite companions
 * (in a database, the job's rows), after which the next run searches each key once; `prune
 * --keep-runs N` drops the change journal of all but the newest N runs (docs/undo.md); `copy --from
 * PATH|URL` copies the job's whole state from a file or a database into the store its `state:`
 * names (docs/state.md); `prune` also expires the lines past the job's `retention.journal`
 * (docs/personal-data.md). Every store is opened through `open-state.ts`.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { describeLock, LockHeldError, runningHolder, type LockHolder, type LockIdentity } from '../lock/job-lock.js';
import { hostLockDir, realPathOf, stateInodeLockTarget, stateLockTarget } from '../lock/lock-target.js';
import type { Logger } from 'pino';
import type { Job } from '../config/job-types.js';
import { DEFAULT_STATE_SCHEMA, looksLikeUrl, STATE_SCHEMA_PATTERN, stateLocation, stateUrlProblem, type PostgresState, type StateSpec } from '../config/state-location.js';
import type { RunRecord } from '../state/run-journal.js';
import type { StateAdmin, StateSummary } from '../state/state-port.js';
import { isBusyStore, StateStoreError } from '../state/state-store-error.js';
import { isStoreFailure } from '../pipeline/job-abort.js';
import type { CliIo } from './cli-io.js';
import { EXIT } from '../exit-codes.js';
import { loadJobs } from './load-jobs.js';
import { deleteStateFile, noStateYet, openExistingState, openStateStore, runLockHolder, type OpenedState, type RunLockHolder } from './open-state.js';
import { resumeNote } from './resume-hint.js';
import { describeExpiry, expireJobJournal } from './journal-retention.js';
import { UsageError } from './usage-error.js';
import { counted } from '../pipeline/report/counted.js';

export type StateAction = 'show' | 'reset' | 'prune' | 'copy';

export interface StateArgs {
  action: StateAction;
  jobsFile: string;
  /** The job whose state is meant; exactly one. */
  job: string;
  /** `show` only: list the first N keys with their contact ids. @default none listed */
  keys?: number;
  /** `reset` only: do it without asking. */
  yes?: boolean;
  /** `reset` only: forget the contacts but keep the message journal (no message sent twice). */
  keepMessages?: boolean;
  /** `prune` only: the newest runs whose change journal is kept. */
  keepRuns?: number;
  /** `prune` only: older runs that created contacts lose their journal too (kept otherwise). */
  includeCreatingRuns?: boolean;
  /** `copy` only: the store the job's state is copied from, a SQLite file (relative to the working folder) or a postgres:// URL. */
  from?: string;
  /** `copy` only: the schema of a `--from` URL. @default contact_sync */
  fromSchema?: string;
  /** `copy` only: replace the state the target already holds of the job. */
  replace?: boolean;
}

export async function stateCommand(args: StateArgs, io: CliIo, logger: Logger): Promise<number> {
  if (args.keys !== undefined && (!Number.isInteger(args.keys) || args.keys < 0)) {
    throw new UsageError(`--keys: expected a whole number of keys from 0 up, got ${String(args.keys)}`);
  }
  if (args.action === 'copy' && args.from === undefined) throw new UsageError('state copy: name the store to copy from with --from PATH|URL (a SQLite file, or postgres://USER:PASSWORD@HOST:PORT/DATABASE)');
  if (args.action !== 'copy' && (args.from !== undefined || args.replace === true)) throw new UsageError(`state ${args.action}: --from and --replace are for state copy`);
  // No call is made: the token's variable may be unset (issue 41 item 16).
  const [job] = await loadJobs(args.jobsFile, [args.job], io, logger, { tokenOptional: true });
  if (job === undefined) throw new UsageError(`${args.jobsFile}: no job named "${args.job}"`);
  const state = stateOf(job, args.jobsFile);
  // The state's own locks (a file's): whichever job, by whichever path or hard link, is running on
  // this state file. A database's lock is the store's, taken as a writing command opens it.
  const { lock, running } = typeof state === 'string' ? stateRun(resolve(io.cwd, args.jobsFile), job.name, state, io.env) : { lock: undefined, running: undefined };
  const resume: ResumeNote = (run) => resumeNote(run, args.jobsFile, job.name);
  if (args.action === 'show') {
    if (running !== undefined) io.stdout.write(`job "${job.name}": a run is in progress: pid ${running.pid} on ${running.host}, started ${running.startedAt} (${running.command})\n`);
    return show(job, args.keys ?? 0, io, resume);
  }
  // Deleting the state under a running job would make it lose track of what it did.
  if (running !== undefined && lock !== undefined) throw new LockHeldError(running, `${describeLock(lock)}: cannot ${args.action} its state while it`, lock.target.what);
  const runLock = runLockHolder(`state ${args.action} ${args.jobsFile} --job ${job.name}`);
  if (args.action === 'prune') return prune(job, args.keepRuns, args.includeCreatingRuns === true, io, runLock);
  if (args.action === 'copy') return copy(job, { from: args.from ?? '', fromSchema: args.fromSchema, replace: args.replace === true, jobsFile: args.jobsFile }, io, runLock);
  return reset(job, io, { yes: args.yes === true, keepMessages: args.keepMessages === true }, runLock);
}

/**
 * The run in progress on the state file, if any: held beside its real path, or by its inode in the
 * host's lock folder (a run through a hard link); the lock beside it when none is.
 */
export function stateRun(jobsFile: string, job: string, path: string, env: CliIo['env']): { lock: LockIdentity; running: LockHolder | undefined } {
  const beside: LockIdentity = { jobsFile, job, target: stateLockTarget(path) };
  const targets = [beside.target];
  try {
    const inode = stateInodeLockTarget(path, hostLockDir(env));
    if (inode !== undefined) targets.push(inode);
  } catch {
    // No host lock folder to be had: no run could have taken a lock there either.
  }
  for (const target of targets) {
    const lock: LockIdentity = { jobsFile, job, target };
    const running = runningHolder(lock);
    if (running !== undefined) return { lock, running };
  }
  return { lock: beside, running: undefined };
}

function stateOf(job: Job, jobsFile: string): Exclude<StateSpec, false> {
  if (job.state === false) {
    throw new UsageError(
      `${jobsFile}: job "${job.name}" has state: false, so it keeps no state store to show, reset, prune or copy into; ` +
        `set its state: to a file (e.g. state: .contact-sync/${job.name}.db) or a database (postgres://...) to keep one`,
    );
  }
  return job.state;
}

async function show(job: Job, keys: number, io: CliIo, resume: ResumeNote): Promise<number> {
  const store = await openExistingState(job);
  if (store === undefined) {
    io.stdout.write(`job "${job.name}": no state yet (${noStateYet(job)}); the first run of the job creates it\n`);
    return EXIT.ok;
  }
  try {
    io.stdout.write(formatSummary(store.summary(), resume, typeof job.state === 'string'));
    io.stdout.write(formatRuns(store.lastRuns(LAST_RUNS), resume));
    if (keys > 0) io.stdout.write(formatKeys(store, keys, store.summary().keys));
  } finally {
    store.close();
  }
  return EXIT.ok;
}

/**
 * Deletes a job's state, after saying what will be forgotten and asking (or `--yes`): the message
 * journal is what keeps a re-run from greeting everyone again, so `--keep-messages` keeps it. A
 * file is deleted with its SQLite companions; in a database, the job's rows are (its identity's:
 * other jobs there keep theirs).
 */
async function reset(job: Job, io: CliIo, options: { yes: boolean; keepMessages: boolean }, runLock: RunLockHolder): Promise<number> {
  const path = typeof job.state === 'string' ? job.state : undefined;
  let opened: { store: OpenedState; keys: number; messages: number } | { unreadable: string };
  if (path !== undefined) {
    if (!existsSync(path)) {
      io.stdout.write(`job "${job.name}": no state at ${path}; nothing to delete\n`);
      return EXIT.ok;
    }
    opened = await openForReset(job);
  } else {
    const store = await openExistingState(job, { runLock });
    if (store === undefined) {
      io.stdout.write(`job "${job.name}": no state yet (${noStateYet(job)}); nothing to delete\n`);
      return EXIT.ok;
    }
    const { keys, messages } = store.summary();
    opened = { store, keys, messages };
  }
  const where = 'store' in opened ? opened.store.path : (path ?? '');
  if ('unreadable' in opened && options.keepMessages) {
    throw new UsageError(`state reset --keep-messages: ${where} cannot be read (${opened.unreadable}), so its message journal cannot be kept; restore the file from a backup, or reset it whole without --keep-messages; nothing was changed`);
  }
  const forgotten =
    'unreadable' in opened
      ? `the file cannot be read (${opened.unreadable}): it is deleted whole, and the next run searches each key once and no longer knows which messages were sent`
      : options.keepMessages
        ? `${counted(opened.keys, 'key')} and ${opened.keys === 1 ? 'its contact id' : 'their contact ids'} will be forgotten (the next run searches each key once); the journal of ${counted(opened.messages, 'message')} is kept`
        : `${counted(opened.keys, 'key')} and ${opened.keys === 1 ? 'its contact id' : 'their contact ids'} will be forgotten (the next run searches each key once), and the journal of ${counted(opened.messages, 'message')} sent: ` +
          'the next run sends them again to every contact it touches (--keep-messages keeps the journal)';
  const store = 'store' in opened ? opened.store : undefined;
  io.stdout.write(`job "${job.name}", state ${where}: ${forgotten}.\n`);
  if (!options.yes) {
    if (io.confirm === undefined) {
      store?.close();
      throw new UsageError(`state reset: not confirmed; add --yes to reset without a question (this is not a terminal)`);
    }
    if (!(await io.confirm('Reset it? [y/N] '))) {
      store?.close();
      io.stdout.write('Nothing was changed.\n');
      return EXIT.ok;
    }
  }
  const { keys, messages } = 'store' in opened ? opened : { keys: 0, messages: 0 };
  if (store !== undefined && options.keepMessages) {
    store.forgetAllButMessages();
    store.close();
    io.stdout.write(`job "${job.name}": forgot ${counted(keys, 'key')}; kept the journal of ${counted(messages, 'message')}.\n`);
    return EXIT.ok;
  }
  if (path === undefined) {
    // The job's whole state replaced by nothing, in one transaction: what `state copy` uses.
    try {
      store?.importState(() => undefined);
    } finally {
      store?.close();
    }
    io.stdout.write(`job "${job.name}": deleted the job's state from ${where}\nThe next run searches each key once and records it again.\n`);
    return EXIT.ok;
  }
  store?.close();
  const removed = deleteStateFile(path);
  io.stdout.write(
    [`job "${job.name}": deleted the state store`, ...removed.map((file) => `  ${file}`), 'The next run searches each key once and records it again.', ''].join('\n'),
  );
  return EXIT.ok;
}

/**
 * The store and its counts; or, for a file that is empty or damaged (what `state reset` is
 * advised for), why it cannot be read: it can still be deleted whole.
 */
async function openForReset(job: Job): Promise<{ store: OpenedState; keys: number; messages: number } | { unreadable: string }> {
  let store: OpenedState | undefined;
  try {
    store = await openStateStore(job);
    const { keys, messages } = store.summary();
    return { store, keys, messages };
  } catch (error) {
    store?.close();
    if (error instanceof StateStoreError && error.code === 'STATE_UNREADABLE') {
      // Its cause is SQLite's error (a native module's: duck-typed); an empty file has none.
      const cause = (error.cause as { message?: unknown } | undefined)?.message;
      return { unreadable: typeof cause === 'string' ? cause : 'it is empty (0 bytes)' };
    }
    if (isStoreFailure(error) && !isBusyStore(error)) return { unreadable: error.message };
    throw error;
  }
}

/**
 * Expires the lines past the job's `retention.journal`, when it sets one, then drops the change
 * journal of all but the newest `keepRuns` runs, when given; the runs themselves stay listed,
 * marked expired or pruned. A run that created contacts (a migration) keeps its journal from
 * `--keep-runs` unless `includeCreating`: its undo is what tags those contacts for deletion (the
 * retention expires it like any other: it is what the user asked the journal be kept for).
 */
async function prune(job: Job, keepRuns: number | undefined, includeCreating: boolean, io: CliIo, runLock: RunLockHolder): Promise<number> {
  if (keepRuns === undefined && job.retention === undefined) {
    throw new UsageError(`state prune: say how many runs keep their change journal with --keep-runs N (older runs can then not be undone), or give job "${job.name}" a retention (retention: {journal: 90d}: docs/personal-data.md)`);
  }
  const store = await openExistingState(job, { runLock });
  if (store === undefined) {
    io.stdout.write(`job "${job.name}": no state yet (${noStateYet(job)}); nothing to prune\n`);
    return EXIT.ok;
  }
  try {
    const expiry = expireJobJournal(job, store, Date.now());
    if (expiry !== undefined) io.stdout.write(`job "${job.name}": ${describeExpiry(expiry)}\n`);
    if (keepRuns === undefined) {
      if (expiry !== undefined && expiry.lines > 0) io.stdout.write(`  ${reclaim(store, typeof job.state === 'string')}\n`);
      return EXIT.ok;
    }
    const pruned = store.pruneChanges(keepRuns, { includeCreating });
    io.stdout.write(`job "${job.name}": dropped ${counted(pruned.lines, 'change journal line')} of ${counted(pruned.runs, 'run')}; ${keepRuns === 1 ? 'the newest run keeps its' : `the newest ${keepRuns} runs keep theirs`} (they can be undone)\n`);
    if (pruned.keptCreating.length > 0) {
      const runs = pruned.keptCreating.map((id) => `run ${id}`).join(', ');
      io.stdout.write(`  kept the journal of ${runs}: ${pruned.keptCreating.length === 1 ? 'it' : 'they'} created contacts, which only an undo can tag for deletion; --include-creating-runs drops it too\n`);
    }
    if (pruned.lines > 0 || (expiry?.lines ?? 0) > 0) io.stdout.write(`  ${reclaim(store, typeof job.state === 'string')}\n`);
  } finally {
    store.close();
  }
  return EXIT.ok;
}

/**
 * `state copy`: the job's whole state (keys, runs, both journals, marks, departures, verification)
 * from another store into the one the jobs file names, either way between a file and a database,
 * through the port's `StateTransfer`. The source is opened with the job's identity (name, key
 * field, channel), read only; the target is held as a run holds it. Refused, nothing done, when
 * the source holds nothing of the job, or the target holds some unless `--replace`.
 */
async function copy(job: Job, options: { from: string; fromSchema: string | undefined; replace: boolean; jobsFile: string }, io: CliIo, runLock: RunLockHolder): Promise<number> {
  const source = sourceState(options.from, options.fromSchema, io.cwd);
  const target = stateOf(job, options.jobsFile);
  if (sameStore(source, target)) throw new UsageError(`state copy: --from names the store the job's state: already names (${stateLocation(target)}); name another store to copy from; nothing was done`);
  if (typeof source === 'string' && !existsSync(source)) throw new UsageError(`state copy --from: no file at ${source}; name the SQLite file (relative to this folder) or the postgres:// URL the job's state is in; nothing was done`);
  // Read only: a source that does not hold the job is left as it was found (no schema, no identity made there).
  const from = await openExistingState({ ...job, state: source });
  if (from === undefined || !from.holdsState()) {
    from?.close();
    throw new UsageError(
      `state copy: ${stateLocation(source)} holds nothing of job "${job.name}" (key field ${job.key.field || '(none)'}, on its connection's channel); ` +
        'a database keeps each job under its name, key field and token: check --from and the job; nothing was done',
    );
  }
  try {
    const into = await openStateStore(job, { runLock });
    try {
      if (into.holdsState() && !options.replace) {
        throw new UsageError(`state copy: ${into.path} already holds state of job "${job.name}"; add --replace to replace it with the copy (what it holds now is lost), or reset it first; nothing was done`);
      }
      const copied = new Map<string, number>();
      into.importState((visit) =>
        from.exportState((page) => {
          copied.set(page.table, (copied.get(page.table) ?? 0) + page.rows.length);
          visit(page);
        }),
      );
      const of = (table: string): number => copied.get(table) ?? 0;
      io.stdout.write(
        `job "${job.name}": copied ${counted(of('contacts'), 'key')}, ${counted(of('runs'), 'run')}, ${counted(of('changes'), 'change line')} and ${counted(of('messages'), 'message')} from ${from.path} to ${into.path}${options.replace ? ' (replacing what it held)' : ''}\n`,
      );
    } finally {
      into.close();
    }
  } finally {
    from.close();
  }
  return EXIT.ok;
}

/** `--from`: a postgres:// URL (its password never shown), or a SQLite file relative to the working folder. */
function sourceState(from: string, schema: string | undefined, cwd: string): Exclude<StateSpec, false> {
  if (looksLikeUrl(from)) {
    const problem = stateUrlProblem(from);
    if (problem !== undefined) throw new UsageError(`state copy --from: the value ${problem}`);
    const chosen = schema ?? DEFAULT_STATE_SCHEMA;
    if (!STATE_SCHEMA_PATTERN.test(chosen)) throw new UsageError(`--from-schema: ${JSON.stringify(chosen)} is not a schema name; use lower-case letters, digits and "_" (not starting with a digit), e.g. ${DEFAULT_STATE_SCHEMA}`);
    return { kind: 'postgres', url: from.trim(), schema: chosen };
  }
  if (schema !== undefined) throw new UsageError('--from-schema: --from names a file, which has no schema; name a postgres:// URL, or leave --from-schema out');
  return resolve(cwd, from);
}

/** The same file (by its real path) or the same database and schema (by host, port, database, schema). */
function sameStore(a: Exclude<StateSpec, false>, b: Exclude<StateSpec, false>): boolean {
  if (typeof a === 'string' || typeof b === 'string') return typeof a === 'string' && typeof b === 'string' && realPathOf(a) === realPathOf(b);
  const where = (state: PostgresState): string => {
    const url = new URL(state.url);
    return `${url.hostname}:${url.port || '5432'}${url.pathname}|${state.schema}`;
  };
  return where(a) === where(b);
}

/** The file made as small as what it still holds (issue 41 item 18): said in KB, or why it could not be now. */
function reclaim(store: StateAdmin, file: boolean): string {
  try {
    const { before, after } = store.reclaimSpace();
    const kb = (bytes: number): string => `${Math.ceil(bytes / 1024)} KB`;
    return `the ${file ? 'file' : 'store'} went from ${kb(before)} to ${kb(after)}`;
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return `the lines are dropped, but the file could not be compacted now (${why}): its free space is reused by later runs; run state prune again when no run holds the file and the disk has room for a copy of it`;
  }
}

const LABEL_WIDTH = 19;
/** Runs `state show` lists, newest first. */
const LAST_RUNS = 5;

/** What follows a run's line: how to resume an undo that did not finish (resume-hint.ts), or "". */
type ResumeNote = (run: RunRecord) => string;

function formatRuns(runs: readonly RunRecord[], resume: ResumeNote): string {
  if (runs.length === 0) return '';
  return ['', `last ${runs.length} run${runs.length === 1 ? '' : 's'}, newest first:`, ...runs.map((run) => `  ${formatRun(run, resume)}`), ''].join('\n');
}

function formatSummary(summary: StateSummary, resume: ResumeNote, file: boolean): string {
  const line = (label: string, value: string) => `${`${label}:`.padEnd(LABEL_WIDTH)}${value}`;
  return [
    line(file ? 'state file' : 'state store', summary.path),
    line('job', summary.job),
    line('key field', summary.keyField),
    line('keys', String(summary.keys)),
    line('pending creates', String(summary.pendingCreates)),
    line('messages', String(summary.messages)),
    line('departed keys', String(summary.departed)),
    line('change journal', counted(summary.changes, 'line')),
    line('last run', formatRun(summary.lastRun, resume)),
    line('last finished run', formatRun(summary.lastFinishedRun, resume)),
    '',
  ].join('\n');
}

function formatRun(run: RunRecord | undefined, resume: ResumeNote): string {
  if (run === undefined) return 'none';
  // The id (summary.json's runId, what history and undo take) and the command it was.
  const command = run.argv.split(' ')[0] ?? '';
  const started = `run ${run.id} (${command}), started ${new Date(run.startedAt).toISOString()}${run.full ? ' (--full)' : ''}`;
  if (!run.finished || run.finishedAt === null) return `${started}, not finished (still running, or killed)${resume(run)}`;
  // A reconcile's figures are its keys' (in file, same, differs, missing, extra...), not rows written.
  const counts = run.rows === null ? undefined : Object.entries(run.rows).map(([outcome, count]) => `${outcome === 'inFile' ? 'in file' : outcome} ${count}`).join(', ');
  const rows = counts === undefined ? '' : command === 'reconcile' ? `: keys ${counts}` : `: ${counts}`;
  const status = run.status === null ? '' : `${run.status}, `;
  const pruned =
    run.prunedAt !== null
      ? `; change journal pruned ${new Date(run.prunedAt).toISOString()} (cannot be undone)`
      : run.journalExpiredAt !== null
        ? `; change journal expired ${new Date(run.journalExpiredAt).toISOString()} (retention.journal; cannot be undone)`
        : '';
  return `${started}, ${status}finished ${new Date(run.finishedAt).toISOString()}, exit ${String(run.exitCode)}${rows}${pruned}${resume(run)}`;
}

function formatKeys(store: StateAdmin, limit: number, total: number): string {
  const known = store.listKeys(limit);
  const width = Math.max(3, ...known.map((contact) => contact.key.length));
  return [
    '',
    `keys (first ${known.length} of ${total}):`,
    `  ${'key'.padEnd(width)}  contact id`,
    ...known.map((contact) => `  ${contact.key.padEnd(width)}  ${contact.contact.id}`),
    '',
  ].join('\n');
}
