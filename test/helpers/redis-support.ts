/**
 * Redis for the tests of shared rate limits. The shared server is the one `REDIS_URL` names
 * (`.ci/run` sets it when a Redis answers on 127.0.0.1:6379); without it those tests are skipped
 * with the reason printed. A test that kills Redis starts its own `redis-server` on a free port.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { Redis } from 'ioredis';
import { REDIS_ID_PREFIX, V2_REDIS_ID_PREFIX } from '../../src/api/limiter.js';

const SKIP_REASON = 'REDIS_URL is not set (set it to a Redis server, e.g. REDIS_URL=redis://127.0.0.1:6379; .ci/run does when one answers there)';

/**
 * `describe(name, body)` when REDIS_URL is set; otherwise a visible skip: a todo test and a
 * printed line that name the reason.
 */
export function describeWithRedis(name: string, body: (redisUrl: string) => void): void {
  const url = process.env.REDIS_URL;
  if (url === undefined || url === '') {
    console.log(`${name}: skipped, ${SKIP_REASON}`);
    describe(`${name} (skipped: ${SKIP_REASON})`, () => {
      it.todo(`needs a Redis server: ${SKIP_REASON}`);
    });
    return;
  }
  describe(name, () => body(url));
}

/** Deletes the shared-limiter keys of one base URL (every token and group); returns how many. */
export async function deleteLimiterKeys(redisUrl: string, baseUrl: string): Promise<number> {
  const client = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  try {
    const pattern = `b_${REDIS_ID_PREFIX}|${baseUrl}|*`.replace(/[[\]?\\]/g, '\\$&');
    let deleted = 0;
    let cursor = '0';
    // Bounded: a test's keys are a handful.
    for (let round = 0; round < 1_000; round++) {
      const [next, keys] = await client.scan(cursor, 'MATCH', pattern, 'COUNT', 1_000);
      if (keys.length > 0) deleted += await client.del(...keys);
      cursor = next;
      if (cursor === '0') break;
    }
    return deleted;
  } finally {
    client.disconnect();
  }
}

/** Deletes v2's learnt-limit keys of one host (every organisation): its Bottlenecks' and its pauses. */
export async function deleteV2LimitKeys(redisUrl: string, host: string): Promise<void> {
  const client = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  try {
    const stem = `${V2_REDIS_ID_PREFIX}|${host}|`.replace(/[[\]?\\*]/g, '\\$&');
    const keys = [...(await client.keys(`b_${stem}*`)), ...(await client.keys(`${stem}*`))];
    if (keys.length > 0) await client.del(...keys);
  } finally {
    client.disconnect();
  }
}

/** The shared-limiter keys of one base URL. */
export async function limiterKeys(redisUrl: string, baseUrl: string): Promise<string[]> {
  const client = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  try {
    return (await client.keys(`b_${REDIS_ID_PREFIX}|${baseUrl}|*`.replace(/[[\]?\\]/g, '\\$&'))).sort();
  } finally {
    client.disconnect();
  }
}

/** Reads one field of a shared limiter's settings (like `minTime`). */
export async function limiterSetting(redisUrl: string, id: string, field: string): Promise<string | null> {
  const client = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  try {
    return await client.hget(`b_${id}_settings`, field);
  } finally {
    client.disconnect();
  }
}

/** True when a `redis-server` binary is on the PATH. */
export function hasRedisServer(): boolean {
  return spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
}

export interface PrivateRedis {
  url: string;
  /** SIGKILL: the server goes away without a word, as a crashed or partitioned Redis would. */
  kill(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** A `redis-server` of this test alone, on a free port of 127.0.0.1, nothing saved to disk. */
export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  const child: ChildProcess = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `redis://127.0.0.1:${port}`;
  const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  probe.on('error', () => undefined);
  try {
    // Up to 5 s for the server to listen.
    for (let attempt = 0; ; attempt++) {
      try {
        await probe.connect();
        await probe.ping();
        break;
      } catch (error) {
        if (attempt >= 100 || child.exitCode !== null) {
          child.kill('SIGKILL');
          throw new Error(`redis-server on port ${port} did not answer: ${String(error)}`);
        }
        probe.disconnect();
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  } finally {
    probe.disconnect();
  }
  return {
    url,
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

export interface RedisJobsYamlOptions {
  /** The emulator's API root. */
  url: string;
  token: string;
  /** `rateLimits.contacts`, like `20/s`. */
  contacts: string;
  /** `rateLimits.redis` as written in the file (a URL or `${REDIS_URL}`); none when absent. */
  redis?: string;
  /** YAML of the job's keys after `name` and `connection`, unindented. */
  job: string;
  /** The job's name. @default import */
  name?: string;
}

/** A jobs.yaml with one connection `main` and one job `import`. */
export function redisJobsYaml(options: RedisJobsYamlOptions): string {
  const redis = options.redis === undefined ? '' : `, redis: "${options.redis}"`;
  return [
    'connections:',
    '  main:',
    `    baseUrl: ${options.url}`,
    `    token: \${CHANNEL_TOKEN:-${options.token}}`,
    `    rateLimits: { contacts: ${options.contacts}, messages: 25/s${redis} }`,
    'jobs:',
    `  - name: ${options.name ?? 'import'}`,
    '    connection: main',
    options.job.replace(/^/gm, '    '),
    '',
  ].join('\n');
}

/** A job of two calls a row (search, create): no tags. */
export const SEARCH_AND_CREATE_JOB = `input: customers.csv
key: { column: customer_id, field: customerid }
fields:
  firstName: first_name
state: false`;
