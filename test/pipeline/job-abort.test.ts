/** A state store failure is recognised by its SQLite code, whatever realm the error comes from. */
import { runInNewContext } from 'node:vm';
import { isSqliteError } from '../../src/pipeline/job-abort.js';

describe('isSqliteError', () => {
  it('knows an SQLite error by its code, also one made in another realm (instanceof Error fails there)', () => {
    const foreign: unknown = runInNewContext("Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' })");
    expect(foreign instanceof Error).toBe(false);
    expect(isSqliteError(foreign)).toBe(true);
    expect(isSqliteError(Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR_WRITE' }))).toBe(true);
    expect(isSqliteError(Object.assign(new Error('no such file'), { code: 'ENOENT' }))).toBe(false);
    expect(isSqliteError(new TypeError('x'))).toBe(false);
    expect(isSqliteError('SQLITE_FULL')).toBe(false);
  });
});
