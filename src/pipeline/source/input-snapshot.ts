/**
 * A guarded run judges and writes from one copy of its input (issue 42): the guards read the
 * input before the first write and the run reads it again as it writes, so an export rewritten in
 * place in between (a second export job, a sync that finished late) was written unjudged. The
 * input is copied once, before its first read, to a private folder of the system's temporary
 * folder (owner only: it holds personal data), and every read of the run (the first pass, the
 * guards, the rows) reads the copy; messages still name the input as the user gave it. The copy
 * is removed when the run ends, whatever the way.
 */
import { constants } from 'node:fs';
import { chmod, copyFile, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { InputSpec } from '../../config/job-types.js';
import { SourceError } from './source-error.js';

export interface InputSnapshot {
  /** The job's input, read from the copy, named as given. */
  readonly input: InputSpec;
  /** Removes the copy. */
  release(): Promise<void>;
}

/**
 * The copy of `input`; `input` itself (nothing to release) when it is not a regular file or is
 * missing: the reader then says what is wrong with it, as without a copy.
 */
export async function snapshotInput(input: InputSpec, temporary: string = tmpdir()): Promise<InputSnapshot> {
  const named = input.label ?? input.path;
  const isFile = await stat(input.path).then(
    (stats) => stats.isFile(),
    () => false,
  );
  if (!isFile) return { input, release: async () => {} };
  let dir: string | undefined;
  try {
    dir = await mkdtemp(join(temporary, 'contact-sync-input-'));
    const path = join(dir, 'input');
    await copyFile(input.path, path, constants.COPYFILE_EXCL);
    await chmod(path, 0o600);
    const folder = dir;
    return { input: { ...input, path, label: named }, release: () => rm(folder, { recursive: true, force: true }) };
  } catch (error) {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new SourceError(
      'INPUT_UNREADABLE',
      named,
      `${named}: the input could not be copied to ${dir ?? temporary} (${reason}) for its guards, which judge and write from one copy; free space there or set TMPDIR to a folder with room; nothing was done`,
      { cause: error },
    );
  }
}
