/**
 * `undo` of a job with no state store is refused (exit 2) before the session takes its locks, so
 * it leaves nothing behind: no `<state>.lock` beside a state file that is not there, no state
 * folder, no channel lock (issue 41 item 18).
 */
import { readdirSync } from 'node:fs';
import { CUSTOMERS_JOB, jobsYaml, workspace } from '../helpers/cli-harness.js';

describe('undo of a job without a state store', () => {
  it('exits 2 naming the missing file and leaves no lock file or folder behind', async () => {
    const ws = workspace();
    // An unreachable URL: a refused undo makes no call.
    ws.write('jobs.yaml', jobsYaml({ url: 'http://127.0.0.1:9', job: CUSTOMERS_JOB.replace('state: false', 'state: state/import.db') }));
    const undo = await ws.run(['undo', 'jobs.yaml', '--job', 'import', '--run', '1']);
    expect({ exitCode: undo.exitCode, stderr: undo.stderr }).toEqual({
      exitCode: 2,
      stderr: expect.stringContaining(`job "import" has no state store yet (no file at ${ws.dir}/state/import.db); undo puts back what a journalled run changed; nothing was done`),
    });
    expect(readdirSync(ws.dir, { recursive: true }).sort()).toEqual(['jobs.yaml']);
  });
});
