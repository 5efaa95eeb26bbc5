/** The state port's contract, run against the PostgreSQL adapter (src/state/postgres/postgres-store.ts): each test a job of its own in one database. */
import { PostgresStateStore } from '../../../src/state/postgres/postgres-store.js';
import { useTestDatabase } from '../../helpers/postgres-support.js';
import { storeContract } from './store-contract.js';

const database = useTestDatabase();
let jobs = 0;

storeContract('PostgreSQL', ({ now }) => {
  jobs++;
  // The job's identity differs by platform: a fresh, empty job for each test (the database goes after the file).
  return Promise.resolve(PostgresStateStore.open({ url: database.url, schema: 'contact_sync' }, { job: 'crm', keyField: 'customerid', platform: `test:${jobs}`, now }));
});

// Holding the run lock, the store skips the tables the job has no row in: the same contract.
storeContract('PostgreSQL, holding the run lock', ({ now }) => {
  jobs++;
  return Promise.resolve(
    PostgresStateStore.open({ url: database.url, schema: 'contact_sync' }, { job: 'crm', keyField: 'customerid', platform: `test:${jobs}`, now, runLock: { host: 'test', pid: process.pid, command: 'jest' } }),
  );
});
