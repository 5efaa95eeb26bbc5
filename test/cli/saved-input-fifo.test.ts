/**
 * A signal while a named pipe's open waits for its writer ends the save, also when it lands before
 * the worker thread has reached its open (CI, a loaded machine: the poke that ends the wait found
 * no reader yet, and the open then waited for ever, so SIGTERM did not end the command).
 *
 * The race is made certain here: every thread of libuv's pool is held by an open of another pipe,
 * so the input's open is queued, not started, when the signal arrives.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, constants, mkdtempSync, open, openSync, readdirSync, rmSync } from 'node:fs';
import { EventEmitter } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { InputSaveInterruptedError, saveInput } from '../../src/cli/saved-input.js';

const POOL_SIZE = Number.parseInt(process.env.UV_THREADPOOL_SIZE ?? '4', 10);

/** Opens `fifo` for writing and closes it: a reader waiting in its open goes on. */
function poke(fifo: string): void {
  try {
    closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
  } catch {
    // No reader there.
  }
}

describe('saveInput on a named pipe', () => {
  const systemTemporary = process.env.TMPDIR;
  let dir: string;
  // The save's copy goes to the test's own folder, where nothing else runs.
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'saved-input-fifo-'));
    process.env.TMPDIR = join(dir, 'tmp');
    execFileSync('mkdir', [process.env.TMPDIR]);
  });
  afterEach(() => {
    process.env.TMPDIR = systemTemporary;
    rmSync(dir, { recursive: true, force: true });
  });

  it('SIGTERM before the open has started still ends the save: the input is removed, nothing waits', async () => {
    const blockers = Array.from({ length: POOL_SIZE }, (_, i) => join(dir, `blocker-${i}.fifo`));
    const input = join(dir, 'export.fifo');
    execFileSync('mkfifo', [...blockers, input]);
    // Every pool thread waits in an open of its own pipe.
    const held = blockers.map((fifo) => promisify(open)(fifo, constants.O_RDONLY));

    const signals = new EventEmitter();
    const saving = saveInput({ fifo: input }, '--input export.fifo', { signals });
    const outcome = saving.then(
      () => 'saved',
      (error: unknown) => error,
    );
    // The input's open is queued behind the blockers: the signal's first poke finds no reader.
    signals.emit('SIGTERM');
    // The pool is freed; the input's open now starts, and must be ended by the save itself.
    for (const fifo of blockers) poke(fifo);
    for (const fd of await Promise.all(held)) closeSync(fd);

    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<string>((resolve) => (timer = setTimeout(() => resolve('still waiting for a writer'), 10_000)));
    const ended = await Promise.race([outcome, late]).finally(() => clearTimeout(timer));
    if (ended === 'still waiting for a writer') {
      poke(input);
      await outcome;
    }

    expect(ended).toBeInstanceOf(InputSaveInterruptedError);
    expect((ended as InputSaveInterruptedError).signal).toBe('SIGTERM');
    expect(signals.listenerCount('SIGTERM') + signals.listenerCount('SIGINT')).toBe(0);
    expect(readdirSync(join(dir, 'tmp'))).toEqual([]);
  });
});
