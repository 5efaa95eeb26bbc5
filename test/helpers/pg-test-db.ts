/**
 * A PostgreSQL database of its own for a test file, on the machine's server: `PGHOST`, `PGPORT`,
 * `PGUSER` (127.0.0.1, 5432, postgres; trust auth), created before the file's first test and
 * dropped after its last. A server that does not answer fails every test of the file with what to
 * do: it never skips.
 */
import pg from 'pg';

export interface PgTestDb {
  /** postgres://USER@HOST:PORT/DATABASE of the test file's database (no password: trust auth). */
  url(): string;
  /** The same URL with a password in it (trust auth ignores it): for the tests that it is never printed. */
  urlWithPassword(password: string): string;
  /** Runs one query on the test file's database. */
  query<Row extends Record<string, unknown> = Record<string, unknown>>(text: string, values?: unknown[]): Promise<Row[]>;
}

function server(): { host: string; port: number; user: string } {
  const nonEmpty = (text: string | undefined, otherwise: string): string => (text === undefined || text === '' ? otherwise : text);
  return { host: nonEmpty(process.env.PGHOST, '127.0.0.1'), port: Number(nonEmpty(process.env.PGPORT, '5432')), user: nonEmpty(process.env.PGUSER, 'postgres') };
}

async function onDatabase<T>(database: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const { host, port, user } = server();
  const client = new pg.Client({ host, port, user, database, connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
  } catch (error) {
    throw new Error(
      `these tests need PostgreSQL and ${user}@${host}:${port} did not answer (${String(error)}): start it ` +
        '(pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start) or set PGHOST/PGPORT/PGUSER to one',
    );
  }
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** A database for the enclosing test file (or describe): created in beforeAll, dropped in afterAll. */
export function pgTestDb(prefix = 'cs_cli'): PgTestDb {
  const name = `${prefix}_${process.pid}_${Date.now().toString(36)}`.toLowerCase();
  beforeAll(() => onDatabase('postgres', (client) => client.query(`CREATE DATABASE "${name}"`)), 30_000);
  afterAll(() => onDatabase('postgres', (client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)), 30_000);
  const { host, port, user } = server();
  return {
    url: () => `postgres://${user}@${host}:${port}/${name}`,
    urlWithPassword: (password) => `postgres://${user}:${encodeURIComponent(password)}@${host}:${port}/${name}`,
    query: <Row extends Record<string, unknown>>(text: string, values?: unknown[]) => onDatabase(name, async (client) => (await client.query<Row>(text, values)).rows),
  };
}
