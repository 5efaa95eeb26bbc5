/**
 * Redis for the tests of shared rate limits: the machine's server, `REDIS_URL` or
 * redis://127.0.0.1:6379 (every development machine and CI run one; `.ci/run` starts it when it has
 * stopped). A test that needs it and cannot reach it fails, naming the URL and how to start one:
 * it never skips. A test that kills Redis starts its own `redis-server` on a free port.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { freePort } from './free-port.js';
import { Redis } from 'ioredis';
import { REDIS_ID_PREFIX } from '../../src/api/limiter.js';
import { V2_REDIS_ID_PREFIX } from '../../src/api/v2/learnt-limits.js';

/** The shared server the Redis tests use. */
export function sharedRedisUrl(): string {
  const url = process.env.REDIS_URL;
  return url === undefined || url === '' ? 'redis://127.0.0.1:6379' : url;
}

/** Resolves when the server answers PING; rejects with what to do when it does not (5 s). */
export async function assertRedisReachable(url: string): Promise<void> {
  const probe = new Redis(url, { lazyConnect: true, connectTimeout: 5_000, maxRetriesPerRequest: 0, retryStrategy: () => null });
  probe.on('error', () => undefined);
  try {
    await probe.connect();
    await probe.ping();
  } catch (error) {
    throw new Error(
      `these tests need a Redis server and ${url} did not answer (${String(error)}): start one ` +
        "(redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save '' --appendonly no) or set REDIS_URL to one",
    );
  } finally {
    probe.disconnect();
  }
}

/**
 * `describe(name, body)` over the machine's Redis. Its first hook checks that the server answers,
 * so an unreachable Redis fails every test of the block with the reason, never skips them.
 */
export function describeWithRedis(name: string, body: (redisUrl: string) => void): void {
  const url = sharedRedisUrl();
  describe(name, () => {
    beforeAll(() => assertRedisReachable(url));
    body(url);
  });
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


/** A `redis-server` of this test alone, on a free port of 127.0.0.1, nothing saved to disk. */
export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  if (!hasRedisServer()) throw new Error('this test starts a redis-server of its own and none is on the PATH: install Redis (apt-get install redis-server)');
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
