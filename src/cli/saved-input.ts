/**
 * An input that can be read only once (standard input, a named pipe, a process substitution
 * `<(...)`), saved to a private temporary file before the job starts: a job reads its input more
 * than once (the first read finds repeated keys, the progress bar counts lines), and its reads
 * seek, which a pipe cannot (issue 33: a FIFO given as a file hung a libuv worker for ever and
 * kept the job lock; `<(...)` failed with a raw ESPIPE).
 *
 * The copy is made before the job lock is taken, and it cannot outlive the command: a SIGINT or
 * SIGTERM while it is made removes it (it holds personal data) and ends the command with the
 * signal's exit code; an input that starts with 64 KiB of NUL bytes (`/dev/zero` behind a pipe,
 * a disk image) is refused rather than copied for ever.
 */
import { closeSync, constants, createWriteStream, mkdtempSync, open, openSync, rmSync } from 'node:fs';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import { ContactSyncError } from '../failure/contact-sync-error.js';
import type { CliIo } from './cli-io.js';
import { UsageError } from './usage-error.js';

/** Leading bytes that may all be NUL: no CSV starts so (UTF-16 text has a letter every other byte, gzip starts 1f 8b). */
export const NUL_PROBE_BYTES = 64 * 1024;

/** A signal arrived while an input was being saved: the copy is removed, the command ends with the signal's exit code. */
export class InputSaveInterruptedError extends ContactSyncError<'INTERRUPTED'> {
  override readonly name = 'InputSaveInterruptedError';
  readonly code = 'INTERRUPTED';
  constructor(readonly signal: 'SIGINT' | 'SIGTERM') {
    super(`interrupted (${signal}) while the input was being saved; its copy was removed and nothing was done`);
  }

  get context(): Readonly<Record<string, unknown>> {
    return { signal: this.signal };
  }
}

/** The saved copy; `release` removes it (call it once the command is done with the input). */
export interface SavedInput {
  readonly path: string;
  readonly release: () => void;
}

/** Where the bytes come from: the process's stdin (already open) or a named pipe to open. */
export type OnceReadInput = { readonly stream: NodeJS.ReadableStream } | { readonly fifo: string };

/**
 * Copies `input` to a new owner-only file in a private folder of the system's temporary folder.
 * `described` names the input in messages (`--input -`, `--input /dev/fd/63`).
 */
export async function saveInput(input: OnceReadInput, described: string, io: Pick<CliIo, 'signals'>): Promise<SavedInput> {
  const interrupt = new AbortController();
  const onSignal = (signal: 'SIGINT' | 'SIGTERM') => () => {
    if (!interrupt.signal.aborted) interrupt.abort(signal);
  };
  const onSigint = onSignal('SIGINT');
  const onSigterm = onSignal('SIGTERM');
  io.signals.on('SIGINT', onSigint);
  io.signals.on('SIGTERM', onSigterm);
  let dir: string | undefined;
  const release = (): void => {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  };
  try {
    dir = mkdtempSync(join(tmpdir(), 'contact-sync-input-'));
    const path = join(dir, 'input');
    // A signal before this line found no open to end: it ends the copy here.
    interrupt.signal.throwIfAborted();
    let source: NodeJS.ReadableStream;
    if ('stream' in input) {
      source = input.stream;
    } else {
      source = await openFifo(input.fifo, interrupt.signal);
    }
    await pipeline(source, refuseLeadingNuls(described), createWriteStream(path, { flags: 'wx', mode: 0o600 }), { signal: interrupt.signal });
    return { path, release };
  } catch (error) {
    release();
    if (interrupt.signal.aborted) throw new InputSaveInterruptedError(interrupt.signal.reason as 'SIGINT' | 'SIGTERM');
    if (error instanceof UsageError) throw error;
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new UsageError(`${described}: the input could not be saved to ${dir ?? tmpdir()} (${reason}); free space there or set TMPDIR to a folder with room, or give the file with --input FILE; nothing was done`);
  } finally {
    io.signals.off('SIGINT', onSigint);
    io.signals.off('SIGTERM', onSigterm);
  }
}

/** How often an aborted open of a named pipe is poked until it has ended. */
const UNBLOCK_EVERY_MS = 20;

/**
 * Opens a named pipe for reading, as a socket of the event loop: a read that waits for the writer
 * then holds no worker thread, so a signal can end the command (a file stream's pending read
 * would keep the process alive). The open itself waits for a writer in a worker: a signal in
 * between opens the pipe for writing for a moment, which ends that wait (`unblockOpen`). That
 * poke finds no reader (ENXIO) while the worker has not yet reached its open (a busy pool, a
 * loaded machine), so it is repeated until the open has ended.
 */
async function openFifo(path: string, signal: AbortSignal): Promise<Readable> {
  let poking: NodeJS.Timeout | undefined;
  const onAbort = (): void => {
    unblockOpen(path);
    poking = setInterval(() => unblockOpen(path), UNBLOCK_EVERY_MS);
  };
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });
  let fd: number;
  try {
    fd = await promisify(open)(path, constants.O_RDONLY);
  } finally {
    signal.removeEventListener('abort', onAbort);
    clearInterval(poking);
  }
  if (signal.aborted) {
    closeSync(fd);
    throw signal.reason;
  }
  return new Socket({ fd, readable: true, writable: false });
}

/** Opens the pipe for writing and closes it at once, which ends a reader's wait for a writer. */
function unblockOpen(path: string): void {
  try {
    closeSync(openSync(path, constants.O_WRONLY | constants.O_NONBLOCK));
  } catch {
    // No reader has reached its open yet (ENXIO: poked again), or the writer came or went.
  }
}

/** Passes the bytes through; fails when the first NUL_PROBE_BYTES are all NUL. */
function refuseLeadingNuls(described: string): Transform {
  let probed = 0;
  let settled = false;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      if (!settled) {
        const probe = chunk.subarray(0, NUL_PROBE_BYTES - probed);
        if (probe.some((byte) => byte !== 0)) {
          settled = true;
        } else {
          probed += probe.length;
          if (probed >= NUL_PROBE_BYTES) {
            callback(new UsageError(`${described}: the input starts with ${NUL_PROBE_BYTES / 1024} KiB of NUL bytes, so it is not a CSV export (is it /dev/zero or a disk image?); give the export itself; nothing was done`));
            return;
          }
        }
      }
      callback(null, chunk);
    },
  });
}
