import type { RunningEmulator } from '../../src/emulator/index.js';
import { TOKEN, customersCsv, fastEmulator, jobsYaml, workspace, type Workspace } from '../helpers/cli-harness.js';
import { STATE_JOB, contactIdOf } from '../helpers/state-fixtures.js';

/** STATE_JOB writing one more field, `nickname`, that the workspace below does not have. */
const NICKNAME_JOB = STATE_JOB.replace('  plan: plan\n', '  plan: plan\n  nickname: first_name\n');

describe('run with a state store: a write the platform refused is not recorded', () => {
  let emulator: RunningEmulator;
  let ws: Workspace;

  beforeEach(async () => {
    // `plan` exists in the workspace, `nickname` does not: writing it is answered 403.
    emulator = await fastEmulator({ allowedFields: ['plan'] });
    ws = workspace();
    ws.write('customers.csv', customersCsv(5));
    ws.write('jobs.yaml', jobsYaml({ url: emulator.url, job: STATE_JOB }));
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'first'])).exitCode).toBe(0);
  });

  afterEach(async () => {
    await emulator.close();
  });

  it('a refused update leaves the state as it was, so the next run tries the row again instead of calling it unchanged', async () => {
    ws.write('jobs.yaml', jobsYaml({ url: emulator.url, job: NICKNAME_JOB }));
    emulator.resetCounters(TOKEN);

    const refused = await ws.run(['run', 'jobs.yaml', '--report-dir', 'refused']);

    expect(refused.exitCode).toBe(1);
    expect(emulator.counters(TOKEN).byOperation.updateContact.received).toBe(5);
    const results = ws.results('import', 'refused');
    expect(results.filter((r) => !(r.outcome === 'failed' && r.api_calls === '1'))).toEqual([]);
    expect(results.find((r) => r.key === 'C0002')?.contact_id).toBe(contactIdOf(emulator, 'C0002'));
    emulator.resetCounters(TOKEN);

    const again = await ws.run(['run', 'jobs.yaml', '--report-dir', 'again']);

    expect(again.exitCode).toBe(1);
    expect(emulator.counters(TOKEN).byOperation.updateContact.received).toBe(5);
    expect(emulator.counters(TOKEN).total.received).toBe(5);
    expect(ws.summary('import', 'again').rows).toMatchObject({ failed: 5, unchanged: 0 });

    // Back to the fields the workspace has: what was confirmed before still stands, nothing to do.
    ws.write('jobs.yaml', jobsYaml({ url: emulator.url, job: STATE_JOB }));
    emulator.resetCounters(TOKEN);
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'fixed'])).exitCode).toBe(0);
    expect(emulator.counters(TOKEN).total.received).toBe(0);
  });
});
