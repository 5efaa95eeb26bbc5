/**
 * `state show`, `history` and `forget` make no call: they read the state store only, so they run with the
 * token's variable unset (issue 41 item 16), on the CLI as a user types them. The token is needed
 * only by the run that wrote the store.
 */
import type { RunningEmulator } from '../../src/emulator/index.js';
import { CUSTOMERS_JOB, customersCsv, fastEmulator, jobsYaml, TOKEN, workspace, type Workspace } from '../helpers/cli-harness.js';

describe('commands that make no call run without the token', () => {
  let emulator: RunningEmulator;
  let ws: Workspace;

  beforeAll(async () => {
    emulator = await fastEmulator();
    ws = workspace();
    // The token only from the environment: no default in the file.
    ws.write('jobs.yaml', jobsYaml({ url: emulator.url, job: CUSTOMERS_JOB.replace('state: false', 'state: state.db') }).replace(/\$\{CHANNEL_TOKEN:-[^}]*\}/, '${CHANNEL_TOKEN}'));
    ws.write('customers.csv', customersCsv(2));
    const run = await ws.run(['run', 'jobs.yaml', '--job', 'import'], { env: { CHANNEL_TOKEN: TOKEN } });
    expect(run.exitCode).toBe(0);
  });

  afterAll(async () => {
    await emulator.close();
  });

  it('state show lists the run with no token set', async () => {
    const shown = await ws.run(['state', 'show', 'jobs.yaml', '--job', 'import']);
    // A warning, not an error: this command makes no call.
    expect([shown.exitCode, shown.stderr]).toEqual([0, expect.stringContaining('a warning here: this command makes no call')]);
    expect(shown.stdout).toMatch(/run 1\b|\b1\b.*run jobs\.yaml/);
  });

  it('history --run and --key print the journal with no token set', async () => {
    const byRun = await ws.run(['history', 'jobs.yaml', '--job', 'import', '--run', '1']);
    expect([byRun.exitCode, byRun.stdout]).toEqual([0, expect.stringContaining('C0001')]);
    const byKey = await ws.run(['history', 'jobs.yaml', '--job', 'import', '--key', 'C0002', '--csv']);
    expect([byKey.exitCode, byKey.stdout.split('\n')[0]]).toEqual([0, 'run_id,recorded_at,key,contact_id,operation,field,before,after,before_read']);
  });

  it('forget erases a key with no token set', async () => {
    const forget = await ws.run(['forget', 'jobs.yaml', '--job', 'import', '--key', 'C0001']);
    expect([forget.exitCode, forget.stdout]).toEqual([0, expect.stringMatching(/^C0001: erased from the state store: 1 record/)]);
  });

  it('run still refuses without it (exit 2, naming the variable)', async () => {
    const run = await ws.run(['run', 'jobs.yaml', '--job', 'import']);
    expect([run.exitCode, run.stderr]).toEqual([2, expect.stringContaining('CHANNEL_TOKEN')]);
  });
});
