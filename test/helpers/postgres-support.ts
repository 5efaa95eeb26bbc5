/**
 * PostgreSQL for the tests of the state store's PostgreSQL adapter: the machine's server,
 * PGHOST/PGPORT/PGUSER or 127.0.0.1:5432 as postgres (trust auth: every development machine and
 * CI run one; `.ci/run` starts it when it is not running). A test that needs it and cannot reach
 * it fails, naming the server and how to start one: it never skips. Each test file gets a database
 * of its own (`contact_sync_test_<pid>_<random>`), created before its tests and dropped after
 * them, so parallel jest workers never meet.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** Where the tests' server is, from the environment. */
export function postgresSettings(): { host: string; port: number; user: string } {
  const env = (name: string, fallback: string): string => {
    const value = process.env[name];
    return value === undefined || value === '' ? fallback : value;
  };
  return { host: env('PGHOST', '127.0.0.1'), port: Number(env('PGPORT', '5432')), user: env('PGUSER', 'postgres') };
}

/** `postgres://user@host:port/database` of the tests' server. */
export function postgresUrl(database: string, user: string = postgresSettings().user): string {
  const { host, port } = postgresSettings();
  return `postgres://${encodeURIComponent(user)}@${host}:${port}/${database}`;
}

/** Runs one statement on `database` with a connection of its own; returns its rows. */
export async function pgQuery<R extends Record<string, unknown> = Record<string, unknown>>(database: string, text: string, values: unknown[] = []): Promise<R[]> {
  const client = new pg.Client({ connectionString: postgresUrl(database), connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    return (await client.query<R>(text, values)).rows;
  } finally {
    await client.end();
  }
}

/** Resolves when the server answers; rejects with what to do when it does not (it never skips). */
export async function assertPostgresReachable(): Promise<void> {
  const { host, port, user } = postgresSettings();
  try {
    await pgQuery('postgres', 'SELECT 1');
  } catch (error) {
    throw new Error(
      `these tests need a PostgreSQL server and ${user}@${host}:${port} did not answer (${String(error)}): start it ` +
        '(pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start), or set PGHOST, PGPORT and PGUSER to one that trusts this user',
    );
  }
}

export interface TestDatabase {
  /** The database's name (set once beforeAll ran). */
  readonly name: string;
  /** Its URL, without a password (trust auth). */
  readonly url: string;
  query<R extends Record<string, unknown> = Record<string, unknown>>(text: string, values?: unknown[]): Promise<R[]>;
}

/**
 * A database of this test file: created in beforeAll (after checking that the server answers),
 * dropped in afterAll (with any connection a test left). Call it at the top of a describe or file.
 */
export function useTestDatabase(): TestDatabase {
  let name = '';
  beforeAll(async () => {
    await assertPostgresReachable();
    name = `contact_sync_test_${process.pid}_${randomBytes(4).toString('hex')}`;
    await pgQuery('postgres', `CREATE DATABASE ${name}`);
  });
  afterAll(async () => {
    if (name !== '') await pgQuery('postgres', `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  });
  return {
    get name() {
      return name;
    },
    get url() {
      return postgresUrl(name);
    },
    query: (text, values) => pgQuery(name, text, values),
  };
}
