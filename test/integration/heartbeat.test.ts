/**
 * `notify.heartbeat` (issue 38, docs/operations.md): a cron monitor's check is pinged `/start` when
 * the job starts and its own URL when it ends 0 or 1, `/fail` otherwise; a dry run pings nothing;
 * a monitor that does not answer never changes the exit code, and no log names its secret path.
 */
import { emulatorPerTest } from '../helpers/integration-fixtures.js';
import { recordingServer, type RecordingServer } from '../helpers/recording-server.js';
import { CUSTOMERS_JOB, TOKEN, customersCsv, jobsYaml, workspace, type Workspace } from '../helpers/cli-harness.js';

const emulator = emulatorPerTest();
const servers: RecordingServer[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** A cron monitor on 127.0.0.1 that keeps every request line it is sent, in order. */
async function monitor(): Promise<{ url: string; pings: () => string[]; close: () => Promise<void> }> {
  const server = await recordingServer({ path: '/ping/0c1d-s3cr3t' });
  servers.push(server);
  return { url: server.url, pings: () => server.requests.map((request) => `${request.method} ${request.path}`), close: () => server.close() };
}

function setUp(ws: Workspace, notify: string, options: { bad?: boolean } = {}): void {
  ws.write('customers.csv', customersCsv(4, (i, cells) => (options.bad === true && i === 2 ? [...cells.slice(0, 3), 'not-an-email', ...cells.slice(4)] : cells)));
  ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: `${CUSTOMERS_JOB}\nnotify: ${notify}` }));
}

describe('notify.heartbeat', () => {
  it('pings /start then the URL itself on a night with failed rows (exit 1: the job ran)', async () => {
    const check = await monitor();
    const ws = workspace();
    setUp(ws, `{ heartbeat: "${check.url}" }`, { bad: true });
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports'])).exitCode).toBe(1);
    expect(check.pings()).toEqual(['GET /ping/0c1d-s3cr3t/start', 'GET /ping/0c1d-s3cr3t']);
    expect(emulator().contacts(TOKEN)).toHaveLength(3);
  });

  it('pings /fail when the job is aborted (the token refused: exit 3)', async () => {
    const check = await monitor();
    const ws = workspace();
    setUp(ws, `{ heartbeat: "${check.url}" }`);
    const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports'], { env: { CHANNEL_TOKEN: 'wrong-token' } });
    expect(run.exitCode).toBe(3);
    expect(check.pings()).toEqual(['GET /ping/0c1d-s3cr3t/start', 'GET /ping/0c1d-s3cr3t/fail']);
  });

  it('beside a webhook on failure only: a good night pings the monitor and posts nothing', async () => {
    const check = await monitor();
    const hook = await monitor();
    const ws = workspace();
    setUp(ws, `{ heartbeat: "${check.url}", webhook: "${hook.url}" }`);
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports'])).exitCode).toBe(0);
    expect(check.pings()).toEqual(['GET /ping/0c1d-s3cr3t/start', 'GET /ping/0c1d-s3cr3t']);
    expect(hook.pings()).toEqual([]);
  });

  it('a dry run pings nothing (the monitor would take it for the night\'s run)', async () => {
    const check = await monitor();
    const ws = workspace();
    setUp(ws, `{ heartbeat: "${check.url}" }`);
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports', '--dry-run'])).exitCode).toBe(0);
    expect(check.pings()).toEqual([]);
  });

  it('a monitor that does not answer leaves the exit code as it was; the warning names only its origin', async () => {
    const check = await monitor();
    await check.close();
    const ws = workspace();
    setUp(ws, `{ heartbeat: "${check.url}" }`);
    const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports']);
    expect(run.exitCode).toBe(0);
    expect(emulator().contacts(TOKEN)).toHaveLength(4);
    const origin = new URL(check.url).origin;
    expect(run.stderr).toContain(`the heartbeat at ${origin} did not take the start ping (ECONNREFUSED, after 3 attempts); the job's exit code is unchanged`);
    expect(run.stderr).toContain(`the heartbeat at ${origin} did not take the success ping (ECONNREFUSED, after 3 attempts)`);
    expect(`${run.stdout}${run.stderr}`).not.toContain('s3cr3t');
  });
});
