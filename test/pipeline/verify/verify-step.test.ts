/**
 * Verification as a step of the run (issue 38), at the pipeline's level against the emulator
 * (port 0), on a clock of its own: the run's deadline stops it like the rows, but a verification
 * cut short leaves the rest to the next night without making a run that did all its rows a
 * `deadline` run.
 */
import { join } from 'node:path';
import type { RunningEmulator } from '../../../src/emulator/index.js';
import type { Job } from '../../../src/config/job-types.js';
import { runSync } from '../../../src/pipeline/run-job.js';
import { StateStore } from '../../../src/state/state-store.js';
import { testClient } from '../../api/support/test-client.js';
import { customersCsv, fastEmulator, TOKEN, workspace, type Workspace } from '../../helpers/cli-harness.js';
import { columnField, makeJob } from '../../helpers/job-factory.js';

let emulator: RunningEmulator;
let ws: Workspace;
let state: StateStore | undefined;

beforeEach(async () => {
  emulator = await fastEmulator();
  ws = workspace();
});

afterEach(async () => {
  state?.close();
  state = undefined;
  await emulator.close();
});

/** A job of the workspace's customers.csv with a state store that verifies every trusted key a night. */
function verifyingJob(extra: Partial<Job> = {}): Job {
  return makeJob({
    name: 'import',
    connection: { ...makeJob().connection, baseUrl: emulator.url, token: TOKEN },
    input: { path: join(ws.dir, 'customers.csv'), delimiter: 'auto', encoding: 'utf-8' },
    fields: [columnField('firstName', 'first_name')],
    state: join(ws.dir, 'state.db'),
    verify: { sharePercent: 100 },
    ...extra,
  });
}

describe('verification and the deadline', () => {
  it('a deadline reached as the rows end: no contact re-read, all left for the next night, and the run still completed (exit 0)', async () => {
    const job = verifyingJob();
    let clock = 500;
    state = StateStore.open(job.state as string, { job: job.name, keyField: job.key.field, now: () => clock });
    ws.write('customers.csv', customersCsv(3));
    const api = () => testClient({ baseUrl: emulator.url, token: TOKEN });
    await runSync({ job, api: api(), reportDir: join(ws.dir, 'first'), dryRun: false, state, now: () => new Date(clock) });
    emulator.resetCounters(TOKEN);

    clock = 1000;
    const deadline = 60_000;
    let rows = 0;
    const night = await runSync({
      job,
      api: api(),
      reportDir: join(ws.dir, 'night'),
      dryRun: false,
      state,
      now: () => new Date(clock),
      deadline,
      // The last row ends at the deadline.
      onRow: () => {
        if (++rows === 3) clock = deadline;
      },
    });

    expect(night.summary.rows).toMatchObject({ unchanged: 3, notReached: 0 });
    expect([night.summary.status, night.exitCode]).toEqual(['completed', 0]);
    expect(night.summary.verification).toMatchObject({ budget: 3, by: 'contacts', reads: 0, verified: 0, notReached: 3 });
    expect(emulator.counters(TOKEN).total.received).toBe(0);

    // The next night, with time: the three are re-read.
    clock = 100_000;
    const next = await runSync({ job, api: api(), reportDir: join(ws.dir, 'next'), dryRun: false, state, now: () => new Date(clock) });
    expect(next.summary.verification).toMatchObject({ reads: 3, verified: 3, drift: 0, notReached: 0 });
    expect(next.exitCode).toBe(0);
  });
});

describe('verification under 429s', () => {
  it('counts the retries against the share: every read answered 429, the requests stop at the budget and the rest is left not reached', async () => {
    const job = verifyingJob({ concurrency: 1 });
    let clock = 500;
    state = StateStore.open(job.state as string, { job: job.name, keyField: job.key.field, now: () => clock });
    ws.write('customers.csv', customersCsv(10));
    // 5 attempts a read; a breaker that never trips here, so only the budget bounds the reads.
    const api = () => testClient({ baseUrl: emulator.url, token: TOKEN, retry: { limit: 4, baseDelayMs: 1, maxDelayMs: 5 }, unavailableAfter: { attempts: 1_000 } });
    await runSync({ job, api: api(), reportDir: join(ws.dir, 'first'), dryRun: false, state, now: () => new Date(clock) });
    emulator.resetCounters(TOKEN);
    emulator.setFaults({ rateLimited: 1, retryAfterSeconds: 0, operations: ['getContact'] });

    clock = 1000;
    const night = await runSync({ job, api: api(), reportDir: join(ws.dir, 'night'), dryRun: false, state, now: () => new Date(clock) });

    expect(night.summary.rows).toMatchObject({ unchanged: 10 });
    expect(night.summary.verification).toMatchObject({ budget: 10, by: 'contacts', verified: 0, failed: 2, notReached: 8 });
    // Two reads of 5 attempts each: the budget of 10 requests (before: 10 reads of 5 attempts, 50).
    expect(emulator.counters(TOKEN).byOperation.getContact.received).toBe(10);
  });
});
