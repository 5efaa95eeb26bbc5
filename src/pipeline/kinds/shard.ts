/**
 * `--shard I/N`: N processes split one file by key, so each key (and every row of it) belongs to
 * exactly one shard and no two workers write the same contact. The hash is of the key's text, so
 * every worker, on any machine, assigns a row to the same shard.
 */
import { createHash } from 'node:crypto';

export interface Shard {
  /** 1-based. */
  index: number;
  count: number;
}

/** Parses `I/N` with 1 <= I <= N; throws a message naming the flag and the fix. */
export function parseShard(text: string): Shard {
  const match = /^(\d+)\/(\d+)$/.exec(text.trim());
  const index = Number(match?.[1]);
  const count = Number(match?.[2]);
  if (match === null || count < 1 || index < 1 || index > count) {
    throw new Error(`--shard: "${text}" is not I/N with I from 1 to N; write e.g. --shard 2/4 for the second of four workers`);
  }
  return { index, count };
}

/**
 * The shard (1-based) a key belongs to. Rows without a key (malformed or keyless rows, reported
 * as failed) belong to shard 1, so exactly one worker reports them.
 */
export function shardOf(key: string, count: number): number {
  if (key === '' || count === 1) return 1;
  return (createHash('sha256').update(key, 'utf8').digest().readUInt32BE(0) % count) + 1;
}

/** The name of a job's reports (and of its metrics' `sync_job`): the job's, or `<job>.shard-I-of-N` for a shard. */
export function reportName(job: string, shard: Shard | undefined): string {
  return shard === undefined ? job : `${job}.shard-${shard.index}-of-${shard.count}`;
}
