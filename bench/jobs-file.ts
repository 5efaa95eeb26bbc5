/**
 * The jobs.yaml of each benchmark run. The connection reads its URL, token and rate from the
 * environment (`BENCH_API_URL`, `BENCH_CHANNEL_TOKEN`, `BENCH_CONTACTS_RATE`; on v2 shared,
 * `BENCH_REDIS_URL`), so the token is in no file and one file serves every channel.
 */

export interface BenchJob {
  name: string;
  /** CSV path, relative to the jobs file or absolute. */
  input: string;
  /** State store path, or false for none. */
  state: string | false;
  /** @default 'upsert' */
  mode?: 'upsert' | 'create';
  /** Page once through `source = crm` (every contact the job writes carries it) instead of a search per row. */
  prefetch?: boolean;
  /** Rows in flight. @default 8 (the product's default) */
  concurrency?: number;
  /** The key is the `email` column in the `email` field (the customer id becomes a plain field). @default false */
  emailKey?: boolean;
}

/**
 * The connection of a jobs file: v1 (a channel token, `BENCH_CONTACTS_RATE` its limit) or v2 (a
 * workspace token, the limits learnt; with `redis`, shared through `BENCH_REDIS_URL`).
 */
export type BenchConnection = { api: 'v1' } | { api: 'v2'; organisation: string; redis: boolean };

/**
 * The 8 fields and the tags of the benchmark job: plain columns, the email and phone transforms,
 * a value map and a constant (the marker `match.prefetch` pages through), as a CRM import has.
 */
export const JOB_BODY = `    key: { column: customer_id, field: customerid }
    fields:
      firstName: first_name
      lastName: last_name
      email: { column: email, transform: email }
      phone: { column: phone, transform: { phone: { defaultCountry: SG } } }
      locale: locale
      timezone: timezone
      plan: { column: plan, transform: { map: { basic: Basic, pro: Pro, enterprise: Enterprise } } }
      source: { value: crm }
    tags: { column: segments, separator: ";" }`;

/** JOB_BODY keyed by the email: the same fields, the customer id written as one of them. */
const EMAIL_KEY_BODY = JOB_BODY.replace('key: { column: customer_id, field: customerid }', 'key: { column: email, field: email }').replace(
  'email: { column: email, transform: email }',
  'customerid: customer_id',
);

function connectionLines(connection: BenchConnection): string[] {
  const head = ['connections:', '  bench:'];
  if (connection.api === 'v1') return [...head, '    baseUrl: ${BENCH_API_URL}', '    token: ${BENCH_CHANNEL_TOKEN}', '    rateLimits:', '      contacts: ${BENCH_CONTACTS_RATE}'];
  return [
    ...head,
    '    api: v2',
    '    baseUrl: ${BENCH_API_URL}',
    '    token: ${BENCH_CHANNEL_TOKEN}',
    `    organisation: ${JSON.stringify(connection.organisation)}`,
    ...(connection.redis ? ['    rateLimits:', '      redis: ${BENCH_REDIS_URL}'] : []),
  ];
}

export function jobsYaml(jobs: readonly BenchJob[], connection: BenchConnection = { api: 'v1' }): string {
  const lines = [...connectionLines(connection), 'jobs:'];
  for (const job of jobs) {
    lines.push(
      `  - name: ${job.name}`,
      '    connection: bench',
      `    input: ${JSON.stringify(job.input)}`,
      `    mode: ${job.mode ?? 'upsert'}`,
      `    state: ${job.state === false ? 'false' : JSON.stringify(job.state)}`,
      `    concurrency: ${job.concurrency ?? 8}`,
      ...(job.prefetch === true ? ['    match: { prefetch: { field: source, value: crm } }'] : []),
      job.emailKey === true ? EMAIL_KEY_BODY : JOB_BODY,
    );
  }
  return `${lines.join('\n')}\n`;
}
