/**
 * The bytes of an input file as the CSV reader sees them: the file's own, or, for a gzip file
 * (a CRM export that arrives compressed), what gunzip makes of them. Gzip is recognised by its
 * first two bytes, whatever the file's name, so a piped `pg_dump | gzip` works as well as
 * `customers.csv.gz`. Decompression streams, a chunk at a time: memory stays flat.
 */
import { createReadStream } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { pipeline } from 'node:stream';
import { createGunzip } from 'node:zlib';

/** Every gzip member starts with these two bytes (RFC 1952). */
const GZIP_MAGIC = [0x1f, 0x8b] as const;

/** Whether the first bytes of a file are gzip's. */
export function isGzip(head: Uint8Array): boolean {
  return head.length >= GZIP_MAGIC.length && GZIP_MAGIC.every((byte, i) => head[i] === byte);
}

/** A name that promises gzip (`.gz`), so a file that is not is reported instead of read as text. */
export function namedGzip(path: string): boolean {
  return /\.gz$/i.test(path);
}

/**
 * The file's bytes (decompressed when `gzip`), read from the start of `source` in chunks of
 * `chunkBytes`. Ending the iteration early closes the file; a damaged gzip file fails the
 * iteration with zlib's error (the source reports it as an unreadable input, with its line).
 */
export function inputBytes(source: FileHandle | string, gzip: boolean, chunkBytes: number): AsyncIterable<Buffer> {
  const raw = typeof source === 'string' ? createReadStream(source, { highWaterMark: chunkBytes }) : source.createReadStream({ highWaterMark: chunkBytes, start: 0 });
  if (!gzip) return raw;
  const gunzip = createGunzip({ chunkSize: chunkBytes });
  // The error reaches the reader through the gunzip stream; destroying either closes the file.
  pipeline(raw, gunzip, () => undefined);
  return gunzip;
}
