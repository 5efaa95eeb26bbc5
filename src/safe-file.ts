/**
 * Writing a file that nobody else can turn against the run (issue 33). The reports, `validate
 * --problems` and the metrics textfile are written into folders the job does not own alone (a
 * report folder given by hand, node_exporter's group-writable textfile folder), often by root from
 * cron. So a file is never written through a name another account could have prepared:
 *
 * - the temporary file has an unguessable name beside its target and is opened with
 *   O_CREAT|O_EXCL|O_NOFOLLOW: a link or file planted there fails the open, nothing is written
 *   through it;
 * - the target is replaced by a rename, which replaces a name, never writes into what a name
 *   points to: a pre-existing file keeps neither its inode nor its mode, nor its owner;
 * - a target that exists and is not a regular file (a symbolic link, a device, a pipe, a folder)
 *   is refused, not replaced: `--problems /dev/stdout` run as root must not rename over /dev's
 *   link;
 * - the mode is set on the open file (fchmod), so it is the one intended whatever the umask.
 *
 * One module at the root of src/ because the report writers, the CLI and the watchers share it.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, constants, fchmodSync, lstatSync, openSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** Reports and `--problems` hold customer data: owner read/write only. */
export const OWNER_ONLY = 0o600;
/** The metrics textfile: node_exporter runs as another user (it holds counts, never a contact or the token). */
export const READABLE_BY_ALL = 0o644;

// O_NOFOLLOW is POSIX; Windows has no symbolic links in the way and no such flag.
const NEW_FILE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);

/** The target exists and is not a regular file: it is refused, never replaced or written through. */
export class NotRegularFileError extends Error {
  override readonly name = 'NotRegularFileError';
  /** A system-like code, as the callers show a file error's (`ENOENT`, `EACCES`). */
  readonly code = 'ENOTREGULAR';
  constructor(
    readonly path: string,
    readonly kind: string,
  ) {
    super(`${path} is ${kind}, not a regular file`);
  }
}

/** Bytes that make a temporary name unguessable; injected by tests to plant a link at the name. */
export type RandomBytes = (size: number) => Buffer;

/** Writes `data` to `path` whole (a reader sees the old file or the new one), with `mode`. */
export function writeFileAtomically(path: string, data: string | Uint8Array, mode: number, random: RandomBytes = randomBytes): void {
  refuseIfNotRegularFile(path);
  const temporary = temporaryName(path, random);
  const fd = openNewFile(temporary, mode);
  try {
    try {
      writeFileSync(fd, data);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}

/**
 * A new, empty file at `path` with `mode`, open for writing (the caller streams into it and
 * closes the descriptor): a file already there is replaced, not truncated, so it keeps neither
 * its mode nor a reader who held it open.
 */
export function createReplacingFile(path: string, mode: number, random: RandomBytes = randomBytes): number {
  refuseIfNotRegularFile(path);
  const temporary = temporaryName(path, random);
  const fd = openNewFile(temporary, mode);
  try {
    renameSync(temporary, path);
    return fd;
  } catch (error) {
    closeSync(fd);
    rmSync(temporary, { force: true });
    throw error;
  }
}

/** What is at `path` when it is not a regular file ("a symbolic link", "a folder"...); undefined when it is one, or nothing is there. */
export function notRegularFileKind(path: string): string | undefined {
  let stats;
  try {
    stats = lstatSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  if (stats.isFile()) return undefined;
  if (stats.isSymbolicLink()) return 'a symbolic link';
  if (stats.isDirectory()) return 'a folder';
  if (stats.isFIFO()) return 'a named pipe';
  if (stats.isSocket()) return 'a socket';
  return 'a device';
}

function refuseIfNotRegularFile(path: string): void {
  const kind = notRegularFileKind(path);
  if (kind !== undefined) throw new NotRegularFileError(path, kind);
}

/** Hidden (node_exporter reads only *.prom, and `ls` hides it) and in the target's folder, so the rename is atomic. */
function temporaryName(path: string, random: RandomBytes): string {
  return join(dirname(path), `.${basename(path)}.${random(8).toString('hex')}.tmp`);
}

function openNewFile(path: string, mode: number): number {
  const fd = openSync(path, NEW_FILE, mode);
  try {
    // The umask narrows the mode given to open (0644 becomes 0600 under umask 077); the intended one is set here.
    fchmodSync(fd, mode);
  } catch (error) {
    closeSync(fd);
    rmSync(path, { force: true });
    throw error;
  }
  return fd;
}
