/**
 * `--input FILE|-` on `run`, `validate` and `reconcile`: replaces one job's `input.path` for this
 * command (a nightly pipe from a database client's export, a file fed back by hand). A FILE is
 * resolved from the working folder, as any command-line path is.
 *
 * `-` is standard input. It is saved first to a private temporary file, removed when the command
 * ends: a job reads its input more than once (the first read finds repeated keys, the progress bar
 * counts lines), and a pipe can be read only once. Gzipped bytes on the pipe are recognised as a
 * gzip file is. An input that replaces the job's export is a complete input, as the export is.
 */
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Job } from '../config/job-types.js';
import type { CliIo } from './cli-io.js';
import { UsageError } from './usage-error.js';

/** How messages name the input of `--input -`. */
export const STANDARD_INPUT = 'standard input';

export interface SelectedInput {
  /** The jobs, the one job's input replaced when `--input` was given. */
  readonly jobs: Job[];
  /** Removes what `--input -` saved; call once the command is done with the jobs. */
  release(): void;
}

export async function overrideInput(jobs: Job[], input: string | undefined, io: CliIo): Promise<SelectedInput> {
  if (input === undefined) return { jobs, release: () => undefined };
  if (jobs.length !== 1) {
    const names = jobs.map((job) => job.name).join(', ');
    throw new UsageError(`--input replaces the input of one job, and ${jobs.length} are selected (${names}); name that job with --job NAME; nothing was done`);
  }
  const job = jobs[0]!;
  if (input !== '-') return { jobs: [{ ...job, input: { ...job.input, path: resolve(io.cwd, input), label: input } }], release: () => undefined };
  const stdin = io.stdin?.();
  if (stdin === undefined || stdin.isTTY === true) {
    throw new UsageError(`--input -: standard input is a terminal, not a pipe; pipe the CSV in (e.g. psql -c "\\copy (...) to stdout csv header" | contact-sync run jobs.yaml --job ${job.name} --input -), or give a file with --input FILE`);
  }
  let dir: string | undefined;
  const release = (): void => {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  };
  try {
    dir = mkdtempSync(join(tmpdir(), 'contact-sync-input-'));
    const path = join(dir, 'input');
    await pipeline(stdin, createWriteStream(path, { flags: 'wx', mode: 0o600 }));
    return { jobs: [{ ...job, input: { ...job.input, path, label: STANDARD_INPUT } }], release };
  } catch (error) {
    release();
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new UsageError(`--input -: standard input could not be saved to ${dir ?? tmpdir()} (${reason}); free space there or set TMPDIR to a folder with room, or give the file with --input FILE; nothing was done`);
  }
}
