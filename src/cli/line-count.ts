/** Counts the newlines of a file in a streaming pass: the progress bar's estimate of rows. */
import { createReadStream } from 'node:fs';

export async function countLines(path: string): Promise<number> {
  let lines = 0;
  let last = 10;
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
    for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) lines++;
    if (chunk.length > 0) last = chunk[chunk.length - 1] ?? 10;
  }
  return last === 10 ? lines : lines + 1;
}
