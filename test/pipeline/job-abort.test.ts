/** A state store failure is recognised by its code (SQLite's, the PostgreSQL store's), whatever realm the error comes from. */
import { runInNewContext } from 'node:vm';
import { isStoreFailure, stateWriteFailed } from '../../src/pipeline/job-abort.js';
import { StoreFailure } from '../../src/state/state-store-error.js';

describe('isStoreFailure', () => {
  it('knows an SQLite error by its code, also one made in another realm (instanceof Error fails there)', () => {
    const foreign: unknown = runInNewContext("Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' })");
    expect(foreign instanceof Error).toBe(false);
    expect(isStoreFailure(foreign)).toBe(true);
    expect(isStoreFailure(Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR_WRITE' }))).toBe(true);
    expect(isStoreFailure(Object.assign(new Error('no such file'), { code: 'ENOENT' }))).toBe(false);
    expect(isStoreFailure(new TypeError('x'))).toBe(false);
    expect(isStoreFailure('SQLITE_FULL')).toBe(false);
  });

  it("knows the PostgreSQL store's failure by its code, also from another realm, and the job's abort gives its fix", () => {
    const lost = new StoreFailure('STATE_PG_LOST', 'postgres://u@db:5432/state#contact_sync: the state store of job "crm" lost its connection to the database (57P01: terminating connection)');
    const foreign: unknown = runInNewContext("Object.assign(new Error('no answer'), { code: 'STATE_PG_TIMEOUT' })");
    expect([isStoreFailure(lost), isStoreFailure(foreign), isStoreFailure(Object.assign(new Error('x'), { code: 'STATE_BUSY' }))]).toEqual([true, true, false]);
    const abort = stateWriteFailed('postgres://u@db:5432/state#contact_sync', 'for row 7', lost);
    expect(abort.code).toBe('STATE_WRITE_FAILED');
    expect(abort.message).toContain('lost its connection');
    expect(abort.message).toContain('Check the database server and the network');
    expect(abort.message).toContain('what was confirmed is kept');
  });
});
