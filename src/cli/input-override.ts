/**
 * `--input FILE|-` on `run`, `validate` and `reconcile`: replaces one job's `input.path` for this
 * command (a nightly pipe from a database client's export, a file fed back by hand). A FILE is
 * resolved from the working folder, as any command-line path is.
 *
 * `-` is standard input. It is saved first to a private temporary file, removed when the command
 * ends: a job reads its input more than once (the first read finds repeated keys, the progress bar
 * counts lines), and a pipe can be read only once. Gzipped bytes on the pipe are recognised as a
 * gzip file is. An input that replaces the job's export is a complete input, as the export is.
 * A named pipe or a process substitution (`--input <(...)`, or a FIFO as `input.path`) is read
 * the same way (saved-input.ts); a device or a socket is refused.
 */
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Job } from '../config/job-types.js';
import type { CliIo } from './cli-io.js';
import { saveInput, type SavedInput } from './saved-input.js';
import { UsageError } from './usage-error.js';

/** How messages name the input of `--input -`. */
export const STANDARD_INPUT = 'standard input';

export interface SelectedInput {
  /** The jobs, the one job's input replaced when `--input` was given. */
  readonly jobs: Job[];
  /** Removes what `--input -` (or a pipe) saved; call once the command is done with the jobs. */
  release(): void;
}

export async function overrideInput(jobs: Job[], input: string | undefined, io: CliIo): Promise<SelectedInput> {
  if (input === undefined) return readOnceReadInputs(jobs, io);
  if (jobs.length !== 1) {
    const names = jobs.map((job) => job.name).join(', ');
    throw new UsageError(`--input replaces the input of one job, and ${jobs.length} are selected (${names}); name that job with --job NAME; nothing was done`);
  }
  const job = jobs[0]!;
  if (input !== '-') return readOnceReadInputs([{ ...job, input: { ...job.input, path: resolve(io.cwd, input), label: input } }], io, `--input ${input}`);
  const stdin = io.stdin?.();
  if (stdin === undefined || stdin.isTTY === true) {
    throw new UsageError(`--input -: standard input is a terminal, not a pipe; pipe the CSV in (e.g. psql -c "\\copy (...) to stdout csv header" | contact-sync run jobs.yaml --job ${job.name} --input -), or give a file with --input FILE`);
  }
  const saved = await saveInput({ stream: stdin }, '--input -', io);
  return { jobs: [{ ...job, input: { ...job.input, path: saved.path, label: STANDARD_INPUT } }], release: saved.release };
}

/**
 * Inputs that are not regular files (issue 33). A named pipe (`mkfifo`, a process substitution
 * `<(...)` as /dev/fd/N) is read as `-` is: saved first, before the job lock. A device or a
 * socket is refused (exit 2): `/dev/zero` would never end, and neither is an export.
 */
async function readOnceReadInputs(jobs: Job[], io: CliIo, given?: string): Promise<SelectedInput> {
  const saved: SavedInput[] = [];
  const release = (): void => {
    for (const copy of saved) copy.release();
  };
  try {
    const read: Job[] = [];
    for (const job of jobs) {
      const named = given ?? `job ${job.name}: input.path ${job.input.path}`;
      const kind = await inputKind(job.input.path);
      if (kind === 'pipe') {
        const copy = await saveInput({ fifo: job.input.path }, named, io);
        saved.push(copy);
        read.push({ ...job, input: { ...job.input, path: copy.path, label: job.input.label ?? job.input.path } });
      } else {
        if (kind !== undefined) {
          throw new UsageError(`${named}: ${job.input.path} is ${kind}, not a file, and no CSV export; give the export file, or pipe it in with --input - (e.g. producer | contact-sync run jobs.yaml --job ${job.name} --input -); nothing was done`);
        }
        read.push(job);
      }
    }
    return { jobs: read, release };
  } catch (error) {
    release();
    throw error;
  }
}

/** 'pipe' for a named pipe, the kind of a device or socket, undefined for a file, a folder or nothing (the source says those). */
async function inputKind(path: string): Promise<'pipe' | 'a device' | 'a socket' | undefined> {
  let stats;
  try {
    stats = await stat(path);
  } catch {
    return undefined;
  }
  if (stats.isFIFO()) return 'pipe';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  if (stats.isSocket()) return 'a socket';
  return undefined;
}
