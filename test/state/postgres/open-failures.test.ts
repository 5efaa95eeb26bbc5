/**
 * What the PostgreSQL store says when it cannot open: one sentence naming host, port and database
 * and the fix, exit 2's STATE_UNREADABLE; the password never in `path` nor in any message.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { PostgresStateStore } from '../../../src/state/postgres/postgres-store.js';
import { pgQuery, postgresSettings, useTestDatabase } from '../../helpers/postgres-support.js';
import { openPg } from './pg-store-fixtures.js';
import { freePort } from '../../helpers/free-port.js';

const database = useTestDatabase();
const PASSWORD = 'Sup3r-s3cret';

/** The error `open` throws (it must throw). */
function openError(open: () => unknown): Error & { code?: string } {
  try {
    open();
  } catch (error) {
    return error as Error & { code?: string };
  }
  throw new Error('the open did not fail');
}


describe('opening the PostgreSQL store', () => {
  test('nothing listens on the port: a sentence naming host, port and database and the fix, no password', async () => {
    const port = await freePort();
    const error = openError(() => PostgresStateStore.open({ url: `postgres://alice:${PASSWORD}@127.0.0.1:${port}/crm_state`, schema: 'contact_sync' }, { job: 'crm', keyField: 'id', platform: 'p' }));
    expect(error.code).toBe('STATE_UNREADABLE');
    expect(error.message).toContain(`cannot reach the PostgreSQL database "crm_state" at host 127.0.0.1, port ${port} (ECONNREFUSED)`);
    expect(error.message).toContain('check that PostgreSQL runs there');
    expect(error.message).toContain(`postgres://alice@127.0.0.1:${port}/crm_state#contact_sync`);
    expect(`${error.message} ${String((error.cause as Error | undefined)?.message)}`).not.toContain(PASSWORD);
  });

  test('a server that accepts the connection and never answers: unreachable, no answer in time', async () => {
    // The kernel accepts the connection into the listen backlog; nothing ever answers it.
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const address = silent.address();
      const port = address !== null && typeof address === 'object' ? address.port : 0;
      const error = openError(() =>
        PostgresStateStore.open({ url: `postgres://alice:${PASSWORD}@127.0.0.1:${port}/crm_state`, schema: 'contact_sync' }, { job: 'crm', keyField: 'id', platform: 'p', connectTimeoutMs: 300 }),
      );
      expect(error.code).toBe('STATE_UNREADABLE');
      expect(error.message).toContain(`cannot reach the PostgreSQL database "crm_state" at host 127.0.0.1, port ${port} (no answer in time)`);
      expect(error.message).not.toContain(PASSWORD);
    } finally {
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  test('a URL with a password: the password is in neither the path nor any message', () => {
    const url = database.url.replace('postgres@', `postgres:${PASSWORD}@`);
    const store = openPg(database, { url });
    try {
      expect(store.path).toBe(`postgres://postgres@${postgresSettings().host}:${postgresSettings().port}/${database.name}#contact_sync`);
      expect(store.summary().path).not.toContain(PASSWORD);
    } finally {
      store.close();
    }
    const mismatch = openError(() => openPg(database, { url, keyField: 'email' }));
    expect(mismatch.code).toBe('STATE_KEY_FIELD_MISMATCH');
    expect(mismatch.message).toContain('holds keys of the field "customerid"');
    expect(mismatch.message).not.toContain(PASSWORD);
    const missing = openError(() => openPg(database, { url: url.replace(database.name, `${database.name}_gone`) }));
    expect(missing.message).not.toContain(PASSWORD);
    const notPg = openError(() => openPg(database, { url: `mysql://root:${PASSWORD}@127.0.0.1/db` }));
    expect(notPg.code).toBe('STATE_UNREADABLE');
    expect(notPg.message).toContain('not a PostgreSQL URL');
    expect(notPg.message).not.toContain(PASSWORD);
  });

  test('a login the server refuses (no such role): said with the user, no password', () => {
    const error = openError(() => openPg(database, { url: database.url.replace('postgres@', `nobody_${randomBytes(3).toString('hex')}:${PASSWORD}@`) }));
    expect(error.code).toBe('STATE_UNREADABLE');
    expect(error.message).toMatch(/at host \S+, port \d+ refused the login of user "nobody_\w+" \(28000\): check the user and password in the job's `state:` URL/);
    expect(error.message).not.toContain(PASSWORD);
  });

  test('no such database: said with createdb', () => {
    const error = openError(() => openPg(database, { url: database.url.replace(database.name, `${database.name}_gone`) }));
    expect(error.code).toBe('STATE_UNREADABLE');
    expect(error.message).toContain(`the PostgreSQL database "${database.name}_gone" at host ${postgresSettings().host}, port ${postgresSettings().port} does not exist (3D000): create it (createdb`);
  });

  test('a role without the right to create the schema: said with the GRANT that fixes it; once created by the owner, the role uses it', async () => {
    const role = `cs_reader_${randomBytes(3).toString('hex')}`;
    await pgQuery('postgres', `CREATE ROLE ${role} LOGIN`);
    try {
      const url = database.url.replace('postgres@', `${role}@`);
      const error = openError(() => openPg(database, { url, schema: 'reader_schema' }));
      expect(error.code).toBe('STATE_UNREADABLE');
      expect(error.message).toContain(`refused user "${role}" the right to create the state schema (42501): grant it (GRANT CREATE ON DATABASE ${database.name} TO ${role})`);
      // The owner creates it; the role, given the rights on its tables, opens it without creating anything.
      openPg(database, { schema: 'reader_schema' }).close();
      await database.query(`GRANT USAGE ON SCHEMA reader_schema TO ${role}; GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA reader_schema TO ${role}`);
      const store = openPg(database, { url, schema: 'reader_schema' });
      expect(store.summary().schemaVersion).toBeGreaterThan(0);
      store.close();
    } finally {
      await database.query(`DROP OWNED BY ${role}`);
      await pgQuery('postgres', `DROP ROLE ${role}`);
    }
  });

  test('a schema name that is not a plain identifier is refused', () => {
    const error = openError(() => openPg(database, { schema: 'Bad-Name"; DROP' }));
    expect(error.code).toBe('STATE_UNREADABLE');
    expect(error.message).toContain('is not a schema name contact-sync uses');
  });
});
