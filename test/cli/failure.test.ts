/**
 * One failure model (issue 27): every failure outside the report is a ContactSyncError with a code
 * of one closed union, and its exit code comes from one table. A table of failures as they escape
 * a command: the exit code, the code and what the message keeps.
 */
import { InvalidTokenError } from '../../src/api/errors.js';
import { RateLimiterUnavailableError } from '../../src/api/rate-limiter-unavailable-error.js';
import { describeFailure } from '../../src/cli/failure.js';
import { InputSaveInterruptedError } from '../../src/cli/saved-input.js';
import { UsageError, UsageErrorFromYargs } from '../../src/cli/usage-error.js';
import { ConfigError } from '../../src/config/config-error.js';
import { ContactSyncError } from '../../src/failure/contact-sync-error.js';
import { LockHeldError } from '../../src/lock/job-lock.js';
import { GuardRefusedError } from '../../src/pipeline/guards/guard-refused-error.js';
import { JobAbortError } from '../../src/pipeline/job-abort.js';
import { REPORT_WRITE_FIX, ReportWriteError } from '../../src/pipeline/report/report.js';
import { SourceError } from '../../src/pipeline/source/source-error.js';
import { StateStoreError } from '../../src/state/state-store-error.js';
import { SqliteBindingError } from '../../src/state/sqlite-database.js';

describe('describeFailure', () => {
  it.each<[string, unknown, number, string, boolean]>([
    ['a usage mistake found by the command', new UsageError('--limit: "x" is not a whole number'), 2, 'USAGE', false],
    ['yargs refused the arguments: the usage is shown', new UsageErrorFromYargs('Unknown argument: --fast'), 2, 'USAGE', true],
    ['a jobs file that is not YAML', new ConfigError('CONFIG_SYNTAX', 'jobs.yaml', [{ path: '', message: 'bad', line: 3 }]), 2, 'CONFIG_SYNTAX', false],
    ['an input file that is not there', new SourceError('INPUT_NOT_FOUND', 'c.csv', 'c.csv: no such file'), 2, 'INPUT_NOT_FOUND', false],
    ['a state store of another key field', new StateStoreError('STATE_KEY_FIELD_MISMATCH', 's.db', 's.db: another key'), 2, 'STATE_KEY_FIELD_MISMATCH', false],
    ['a state store another process holds past the wait: try later', new StateStoreError('STATE_BUSY', 's.db', 's.db: cannot open (database is locked)'), 75, 'STATE_BUSY', false],
    ['SQLite failing in a read before the run', Object.assign(new Error('database disk image is malformed'), { code: 'SQLITE_CORRUPT' }), 2, 'STATE_UNREADABLE', false],
    ['SQLite that does not load', new SqliteBindingError('cannot load SQLite'), 2, 'SQLITE_BINDING_UNAVAILABLE', false],
    ['Redis unreachable at the start', new RateLimiterUnavailableError({ redis: 'redis://h', phase: 'start', reason: 'ECONNREFUSED' }), 2, 'RATE_LIMITER_UNAVAILABLE', false],
    ['Redis lost mid-run', new RateLimiterUnavailableError({ redis: 'redis://h', phase: 'lost', reason: 'ECONNRESET' }), 3, 'RATE_LIMITER_UNAVAILABLE', false],
    ['a guard refused the run before any write', new GuardRefusedError('crm', [{ guard: 'minRows', message: 'c.csv has 3 data rows' }]), 2, 'GUARD_REFUSED', false],
    ['another run holds the lock', new LockHeldError(undefined, 'job crm'), 75, 'LOCK_HELD', false],
    ['a report that cannot be written', new ReportWriteError('r/crm.results.csv', 'ENOSPC'), 3, 'REPORT_WRITE_FAILED', false],
    ['SIGTERM while --input - was saved', new InputSaveInterruptedError('SIGTERM'), 143, 'INTERRUPTED', false],
    ['SIGINT while --input - was saved', new InputSaveInterruptedError('SIGINT'), 130, 'INTERRUPTED', false],
    ['a job abort', new JobAbortError('MAX_ERRORS', '11 of 100 rows failed'), 3, 'MAX_ERRORS', false],
    ['an API failure that escaped its row', new InvalidTokenError({ operation: 'searchContacts' }), 3, 'INVALID_TOKEN', false],
    ['anything else: a bug', new TypeError('x is undefined'), 3, 'UNEXPECTED', false],
  ])('%s', (_case, error, exitCode, code, showUsage) => {
    const failure = describeFailure(error);
    expect([failure.exitCode, failure.code, failure.showUsage]).toEqual([exitCode, code, showUsage]);
    expect(failure.message.startsWith((error as Error).message)).toBe(true);
  });

  it('a report that cannot be written says the fix', () => {
    expect(describeFailure(new ReportWriteError('r/crm.results.csv', 'ENOSPC')).message).toBe(`the report r/crm.results.csv could not be written (ENOSPC); ${REPORT_WRITE_FIX}`);
    expect(describeFailure(new ReportWriteError('r/crm.results.csv', 'EACCES')).message).toBe('the report r/crm.results.csv could not be written (EACCES); make the report folder writable by this user (or choose another with --report-dir), then run again');
    expect(describeFailure(new ReportWriteError('r/crm.results.csv', 'ELOOP')).message).toMatch(/\(ELOOP\); remove what is at that name/);
  });

  it('every failure carries its context as data, and its cause', () => {
    const cause = new Error('disk');
    const error = new StateStoreError('STATE_UNREADABLE', 's.db', 's.db: cannot open', { cause });
    expect(error).toBeInstanceOf(ContactSyncError);
    expect(error.context).toEqual({ path: 's.db' });
    expect(error.cause).toBe(cause);
    expect(new InvalidTokenError({ operation: 'searchContacts', method: 'GET', path: '/api/v1/contact' }).context).toEqual({ operation: 'searchContacts', method: 'GET', path: '/api/v1/contact', status: 401 });
  });
});
