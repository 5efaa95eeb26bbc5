/**
 * A v2 job against a platform whose every answer claims `X-RateLimit-Limit: 1000000000` and
 * `X-RateLimit-Remaining: 0` (issue 42 item 4: one such answer blocked the event loop, took 4 GB
 * and ignored SIGTERM). A proxy on port 0 rewrites the emulator's headers; the job finishes, every
 * row written, one request a call.
 */
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { CUSTOMERS_JOB, customersCsv, jobsYaml, workspace } from '../helpers/cli-harness.js';
import { startRecordingProxy, type RecordingProxy } from '../helpers/recording-proxy.js';

const WORKSPACE_TOKEN = 'workspace-token-absurd-7b3e';
const RUN = ['run', 'jobs.yaml', '--report-dir', 'out', '--log-level', 'silent'];

describe('a v2 job against absurd rate-limit headers', () => {
  let emulator: RunningEmulator;
  let proxy: RecordingProxy;
  beforeEach(async () => {
    emulator = await startEmulator({ workspaceTokens: [WORKSPACE_TOKEN], rateLimits: false });
    proxy = await startRecordingProxy(emulator.v2Url, {
      answerHeaders: (headers) => ({ ...headers, 'x-ratelimit-limit': '1000000000', 'x-ratelimit-remaining': '0' }),
    });
  });
  afterEach(async () => {
    await proxy.close();
    await emulator.close();
  });

  it('finishes: exit 0, every row created, one request a call (a list, a read of the email its create lands on, a create_or_update and a tag call a row)', async () => {
    const rows = 3;
    const ws = workspace();
    ws.write('customers.csv', customersCsv(rows));
    ws.write('jobs.yaml', jobsYaml({ url: proxy.url, token: WORKSPACE_TOKEN, job: CUSTOMERS_JOB, connectionExtra: '    api: v2\n    channelId: 1' }));

    const run = await ws.run(RUN);

    expect(run.exitCode).toBe(0);
    expect(ws.summary('import', 'out').rows).toMatchObject({ created: rows, failed: 0 });
    expect(proxy.requests).toHaveLength(4 * rows);
    expect(emulator.v2Counters().total.received).toBe(4 * rows);
  }, 60_000);
});
