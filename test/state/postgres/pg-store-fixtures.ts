/** Opening the PostgreSQL store in the tests of its own behaviour (test/state/postgres/). */
import { PostgresStateStore, type PostgresStoreOptions } from '../../../src/state/postgres/postgres-store.js';
import type { TestDatabase } from '../../helpers/postgres-support.js';

/** A store of job `crm` (key field customerid, platform test:1 unless given) on the test database, schema contact_sync unless given. */
export function openPg(database: TestDatabase, options: Partial<PostgresStoreOptions> & { readonly schema?: string; readonly url?: string } = {}): PostgresStateStore {
  const { schema, url, ...rest } = options;
  return PostgresStateStore.open({ url: url ?? database.url, schema: schema ?? 'contact_sync' }, { job: 'crm', keyField: 'customerid', platform: 'test:1', ...rest });
}

/** The pids of the server's connections to the database, but the asking one's. */
export async function backendsOf(database: TestDatabase): Promise<number[]> {
  const rows = await database.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [database.name]);
  return rows.map((row) => row.pid);
}
