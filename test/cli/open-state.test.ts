/**
 * The one opener of a job's state store (src/cli/open-state.ts): a file is opened as SQLite, a
 * read that must leave no state never creates the file, and what is said of a job with no state
 * yet names where it was looked for, never a password.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { noStateYet, openExistingState, openStateStore } from '../../src/cli/open-state.js';
import { makeJob } from '../helpers/job-factory.js';
import { tempDir } from '../helpers/temp-dir.js';

describe('openStateStore and openExistingState', () => {
  it('a file: a read finds no state and creates no file; a writer creates it, and then the read opens it', async () => {
    const path = join(tempDir('open-state-'), 'state', 'crm.db');
    const job = makeJob({ state: path });

    expect(await openExistingState(job)).toBeUndefined();
    expect(existsSync(path)).toBe(false);
    const store = await openStateStore(job);
    store.startRun({ job: job.name, argv: 'run jobs.yaml', full: false, surface: 'v1' });
    store.close();
    expect(existsSync(path)).toBe(true);
    const read = await openExistingState(job);
    expect(read?.path).toBe(path);
    expect(read?.lastRuns(5)).toHaveLength(1);
    read?.close();
  });

  it('state: false has no store; opening one is a bug of the caller', async () => {
    const job = makeJob({ state: false });
    expect(await openExistingState(job)).toBeUndefined();
    await expect(openStateStore(job)).rejects.toThrow('internal: job "test-job" has state: false');
  });

  it('"no state yet" names the file, or the database without its password', () => {
    expect(noStateYet(makeJob({ state: '/srv/crm.db' }))).toBe('no file at /srv/crm.db');
    expect(noStateYet(makeJob({ state: { kind: 'postgres', url: 'postgres://sync:pw-77aa@db.internal:5432/crm', schema: 'contact_sync' } }))).toBe(
      'nothing of it in postgres://sync@db.internal:5432/crm#contact_sync',
    );
  });
});
