/**
 * The baseline: the script users write by hand. For each row, one call at a time: search the key,
 * then create the contact or update ALL its fields, then add ALL its tags; calls spaced by
 * periodMs / limit (start to start, the most generous spacing that still respects the limit);
 * a 429 is waited out (Retry-After) and retried. No state, no diffing, no concurrency.
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { parse } from 'csv-parse/sync';
import type { Rate } from '../src/limits.js';
import { MAX_TAGS_PER_CALL } from '../src/limits.js';

export interface NaiveSyncOptions {
  /** API root, like `http://127.0.0.1:4010/api`. */
  baseUrl: string;
  token: string;
  csvPath: string;
  rate: Rate;
}

export interface NaiveRun {
  rows: number;
  /** Requests sent, retries of 429s included. */
  calls: number;
  rateLimited: number;
  wallMs: number;
}

/** A 429 retried more often than this ends the run: the script is naive, not endless. */
const MAX_RETRIES_PER_CALL = 10;

/** The column -> custom field mapping a user would write, the same fields the benchmark job writes. */
const FIELD_COLUMNS: ReadonlyArray<readonly [string, string]> = [
  ['firstName', 'first_name'],
  ['lastName', 'last_name'],
  ['email', 'email'],
  ['phone', 'phone'],
  ['locale', 'locale'],
  ['timezone', 'timezone'],
  ['plan', 'plan'],
];

export async function naiveSync(options: NaiveSyncOptions): Promise<NaiveRun> {
  const started = performance.now();
  const spacingMs = options.rate.periodMs / options.rate.limit;
  const rows = parse<Record<string, string>>(readFileSync(options.csvPath, 'utf8'), { columns: true });
  let nextStart = performance.now();
  let calls = 0;
  let rateLimited = 0;

  const call = async (method: string, path: string, body?: unknown): Promise<unknown> => {
    for (let attempt = 0; attempt <= MAX_RETRIES_PER_CALL; attempt++) {
      const wait = nextStart - performance.now();
      if (wait > 0) await sleep(wait);
      nextStart = Math.max(nextStart, performance.now()) + spacingMs;
      calls++;
      const response = await fetch(`${options.baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${options.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      if (response.status === 429) {
        rateLimited++;
        await sleep(Number(response.headers.get('retry-after') ?? '1') * 1000);
        continue;
      }
      if (!response.ok) throw new Error(`naive sync: ${method} ${path} answered ${response.status}: ${text}`);
      return JSON.parse(text) as unknown;
    }
    throw new Error(`naive sync: ${method} ${path} was refused with 429 ${MAX_RETRIES_PER_CALL + 1} times`);
  };

  for (const row of rows) {
    const key = row.customer_id ?? '';
    const fields = [{ name: 'customerid', value: key }, ...FIELD_COLUMNS.map(([name, column]) => ({ name, value: row[column] ?? '' })), { name: 'source', value: 'crm' }];
    const found = (await call('GET', `/v1/contact/by_custom_field?name=customerid&value=${encodeURIComponent(key)}`)) as { data: Array<{ id: string }> };
    let id = found.data[0]?.id;
    if (id === undefined) {
      id = ((await call('POST', '/v1/contact', { custom_fields: fields })) as { data: { id: string } }).data.id;
    } else {
      await call('PUT', `/v1/contact/${encodeURIComponent(id)}`, { custom_fields: fields });
    }
    const tags = (row.segments ?? '').split(';').filter((tag) => tag !== '');
    for (let i = 0; i < tags.length; i += MAX_TAGS_PER_CALL) {
      await call('POST', `/v1/contact/${encodeURIComponent(id)}/tags`, { tags: tags.slice(i, i + MAX_TAGS_PER_CALL) });
    }
  }
  return { rows: rows.length, calls, rateLimited, wallMs: performance.now() - started };
}
