/**
 * Jobs for tests: a complete, valid `Job` with plain defaults, overridden where a test cares.
 * Fields are built with the small helpers below so a test reads like the jobs.yaml it stands for.
 */
import { join } from 'node:path';
import type { FieldSpec, Job, Transform } from '../../src/config/job-types.js';
import { DEFAULT_CONTACTS_RATE, DEFAULT_MESSAGES_RATE } from '../../src/limits.js';

export function makeJob(overrides: Partial<Job> = {}): Job {
  return {
    name: 'test-job',
    connection: {
      name: 'main',
      baseUrl: 'http://127.0.0.1:1/api',
      token: 'test-token',
      channelType: 'generic',
      api: 'v1',
      organisation: 'main',
      rateLimits: { contacts: DEFAULT_CONTACTS_RATE, messages: DEFAULT_MESSAGES_RATE },
      allowInsecure: false,
      timeouts: { requestMs: 30_000, maxPages: 1000, maxRetryAfterMs: 120_000, unavailableAfterAttempts: 20, unavailableAfterMs: 300_000 },
    },
    input: { path: '', delimiter: 'auto', encoding: 'utf-8' },
    key: { column: 'customer_id', field: 'customerid' },
    mode: 'upsert',
    onDuplicate: 'fail',
    onDuplicateRows: 'last',
    fields: [],
    emptyValues: 'ignore',
    tags: { separator: ';', static: [], remove: [], prune: false },
    match: {},
    state: false,
    concurrency: 8,
    ...overrides,
  };
}

/** `name: column` (with `trim` first, as the config adds it). */
/**
 * The customers job (`customersCsv`'s `customers.csv` in `dir`, first names mapped, one row at a
 * time) on the v1 platform at `baseUrl` with `token`, its state in `dir`/state.db: what the engine
 * tests run against the emulator.
 */
export function emulatorJob(baseUrl: string, token: string, dir: string): Job {
  return makeJob({
    name: 'import',
    connection: { ...makeJob().connection, baseUrl, token },
    input: { path: join(dir, 'customers.csv'), delimiter: 'auto', encoding: 'utf-8' },
    fields: [columnField('firstName', 'first_name')],
    state: join(dir, 'state.db'),
    concurrency: 1,
  });
}

export function columnField(name: string, column: string, transforms: Transform[] = [{ kind: 'trim' }], fieldDefault?: string): FieldSpec {
  return withDefault({ name, source: { kind: 'column', column }, transforms }, fieldDefault);
}

/** `name: { value: ... }`. */
export function valueField(name: string, value: string, transforms: Transform[] = []): FieldSpec {
  return { name, source: { kind: 'value', value }, transforms };
}

/** `name: { template: "{{a}} {{b}}" }`; the columns are read from the template like the config does. */
export function templateField(name: string, template: string, transforms: Transform[] = [{ kind: 'trim' }], fieldDefault?: string): FieldSpec {
  const columns = [...new Set([...template.matchAll(/\{\{([^{}]*)\}\}/g)].map((match) => (match[1] ?? '').trim()))];
  return withDefault({ name, source: { kind: 'template', template, columns }, transforms }, fieldDefault);
}

function withDefault(spec: FieldSpec, fieldDefault: string | undefined): FieldSpec {
  return fieldDefault === undefined ? spec : { ...spec, default: fieldDefault };
}
