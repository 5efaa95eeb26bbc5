/** Counts the newlines of an input in a streaming pass (through gunzip for a gzip file): the progress bar's estimate of rows. */
import { open } from 'node:fs/promises';
import { inputBytes, isGzip } from '../pipeline/source/input-bytes.js';

export async function countLines(path: string): Promise<number> {
  const handle = await open(path, 'r');
  const head = Buffer.alloc(2);
  let lines = 0;
  let last = 10;
  try {
    const { bytesRead } = await handle.read(head, 0, 2, 0);
    for await (const chunk of inputBytes(handle, isGzip(head.subarray(0, bytesRead)), 64 * 1024)) {
      for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) lines++;
      if (chunk.length > 0) last = chunk[chunk.length - 1] ?? 10;
    }
  } finally {
    await handle.close().catch(() => undefined);
  }
  return last === 10 ? lines : lines + 1;
}
