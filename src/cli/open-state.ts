/**
 * The one place a command opens a job's state store: the adapter `state:` names (docs/state.md,
 * "Choosing where the state lives"): a SQLite file (`state/state-store.ts`) or a PostgreSQL
 * database (`state/postgres/postgres-store.ts`, loaded only for a job that names one, so a SQLite
 * run never pays for the client). Every command (run, reconcile, undo, history, state
 * show/reset/prune/copy, the dry run) opens through it; the pipeline only sees the port.
 *
 * A store in PostgreSQL keys the job on its name, key field and platform identity
 * (`platformIdentity`: the surface and a digest of the token, never the token), never on a path;
 * a command that writes passes `runLock` and the store holds the job across hosts for its life
 * (a second run anywhere: exit 75 naming the holder).
 */
import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import type { Job } from '../config/job-types.js';
import { stateLocation } from '../config/state-location.js';
import { platformIdentity } from '../lock/lock-target.js';
import type { PostgresStoreOptions } from '../state/postgres/postgres-store.js';
import type { StatePort } from '../state/state-port.js';
import { StateStore } from '../state/state-store.js';

/** What a command holds of a job's state: every role of the port, the copy's among them. */
export type OpenedState = StatePort;

/** Who holds a job's run, for the lock across hosts of a store in PostgreSQL. */
export interface RunLockHolder {
  readonly host: string;
  readonly pid: number;
  /** The command line as the run journal records it (never a secret). */
  readonly command: string;
  /** `--shard I/N`: N; the shards of one count hold the job together, a whole run alone. */
  readonly shardCount?: number;
}

export interface OpenStateOptions {
  /** A command that writes (run, reconcile, undo, state reset/prune/copy): the job is held across hosts while the store is open (PostgreSQL; a file's lock files are the session's). */
  readonly runLock?: RunLockHolder;
  /** @default Date.now */
  readonly now?: () => number;
}

/** This process as the holder of a job's run: this host, this pid, the command line. */
export function runLockHolder(command: string, shardCount?: number): RunLockHolder {
  // `--shard 1/1` is a whole run (docs/scaling.md): it holds the job alone.
  return { host: hostname(), pid: process.pid, command, ...(shardCount === undefined || shardCount <= 1 ? {} : { shardCount }) };
}

/** The store a job with a state names; its opening failures are `StateStoreError`s (exit 2, or 75 for a held job). */
export async function openStateStore(job: Job, options: OpenStateOptions = {}): Promise<OpenedState> {
  const { state } = job;
  if (state === false) throw new Error(`internal: job "${job.name}" has state: false; its callers check before opening`);
  if (typeof state === 'string') return StateStore.open(state, { job: job.name, keyField: job.key.field, ...(options.now === undefined ? {} : { now: options.now }) });
  const { PostgresStateStore } = await loadPostgres();
  return PostgresStateStore.open({ url: state.url, schema: state.schema }, postgresOptions(job, options));
}

/** Loaded only for a job whose state is in PostgreSQL: a SQLite run never loads the client or its worker. */
const loadPostgres = () => import('../state/postgres/postgres-store.js');

/** The job's identity in a database (name, key field, platform identity), and the run lock's holder when given. */
function postgresOptions(job: Job, options: OpenStateOptions): PostgresStoreOptions {
  return {
    job: job.name,
    keyField: job.key.field,
    platform: platformIdentity(job.connection),
    ...(options.now === undefined ? {} : { now: options.now }),
    ...(options.runLock === undefined ? {} : { runLock: options.runLock }),
  };
}

/**
 * The job's store when it already holds state, else undefined: what reads that must leave no
 * state behind open (a dry run, `history`, `state show`, undo's check). Nothing is created: a
 * SQLite file's existence is asked, as before; a PostgreSQL database is asked whether it has the
 * product's schema, the job's identity and state in it, and nothing is written there when not.
 */
export async function openExistingState(job: Job, options: OpenStateOptions = {}): Promise<OpenedState | undefined> {
  const { state } = job;
  if (state === false) return undefined;
  if (typeof state === 'string') return existsSync(state) ? openStateStore(job, options) : undefined;
  const { PostgresStateStore } = await loadPostgres();
  const store = PostgresStateStore.openExisting({ url: state.url, schema: state.schema }, postgresOptions(job, options));
  if (store === undefined) return undefined;
  try {
    if (store.holdsState()) return store;
  } catch (error) {
    store.close();
    throw error;
  }
  store.close();
  return undefined;
}

/** Deletes a state file and its SQLite companions (`state reset`); returns the files that existed. */
export function deleteStateFile(path: string): string[] {
  return StateStore.reset(path);
}

/** "no file at PATH" or "nothing of it in DATABASE": why a job has no state yet, for messages. */
export function noStateYet(job: Job): string {
  if (typeof job.state === 'string') return `no file at ${job.state}`;
  return `nothing of it in ${stateLocation(job.state)}`;
}
