/**
 * summary.json `retries` counts every request that repeats an earlier one (issue 41 item 17):
 * under injected faults the platform received 206 creates for 121 rows while the summary said
 * `retries 0`, because a create whose answer was lost is sent again by the writer (after a search
 * found nothing), not by the client's retry loop. Against the emulator (port 0), on v1.
 */
import { join } from 'node:path';
import type { RunningEmulator } from '../../../src/emulator/index.js';
import { runSync } from '../../../src/pipeline/run-job.js';
import { testClient } from '../../api/support/test-client.js';
import { customersCsv, fastEmulator, TOKEN, workspace, type Workspace } from '../../helpers/cli-harness.js';
import { columnField, makeJob } from '../../helpers/job-factory.js';

describe('retries counted under injected faults', () => {
  let emulator: RunningEmulator;
  let ws: Workspace;

  beforeEach(async () => {
    // A third of the creates dropped before the platform did anything: each is searched, then sent again.
    emulator = await fastEmulator({ seed: 7, faults: { dropConnection: 0.35, operations: ['createContact'] } });
    ws = workspace();
  });

  afterEach(async () => {
    await emulator.close();
  });

  it('summary.json retries equals the requests the platform received beyond one a call', async () => {
    const rows = 40;
    const job = makeJob({
      name: 'import',
      connection: { ...makeJob().connection, baseUrl: emulator.url, token: TOKEN },
      input: { path: join(ws.dir, 'customers.csv'), delimiter: 'auto', encoding: 'utf-8' },
      fields: [columnField('firstName', 'first_name')],
    });
    ws.write('customers.csv', customersCsv(rows));
    const api = testClient({ baseUrl: emulator.url, token: TOKEN, retry: { limit: 4, baseDelayMs: 1, maxDelayMs: 5 } });

    const { summary } = await runSync({ job, api, reportDir: join(ws.dir, 'out'), dryRun: false });

    const received = emulator.counters(TOKEN).byOperation;
    // Every row is new: one create each, and one search each before it (its key looked up), plus
    // one search after each lost create. Beyond one create a row, every create is a retry.
    expect(received.createContact.faulted).toBeGreaterThan(0);
    expect(summary.rows.created + summary.rows.failed).toBe(rows);
    expect(summary.retries).toBe(received.createContact.received - rows);
    expect(api.stats.byOperation.createContact.retries).toBe(received.createContact.received - rows);
  });
});
