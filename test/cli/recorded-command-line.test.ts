/**
 * The command line each command records in the state store's journal of runs (and in its locks'
 * holder files): the command, the jobs file and the flags that change what it does, in a fixed
 * order; not --report-dir, --check or --max-errors. The pipeline reads it back (a reconcile's or
 * an undo's earlier runs are told apart by it), so it is pinned here word for word.
 */
import { join } from 'node:path';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { StateStore } from '../../src/state/state-store.js';
import { CUSTOMERS_JOB, customersCsv, fastEmulator, jobsYaml, workspace } from '../helpers/cli-harness.js';

let emulator: RunningEmulator;
beforeEach(async () => {
  emulator = await fastEmulator();
});
afterEach(async () => {
  await emulator.close();
});

it('run, reconcile and undo record their flags in their own order', async () => {
  const ws = workspace();
  ws.write('customers.csv', customersCsv(5));
  ws.write('jobs.yaml', jobsYaml({ url: emulator.url, job: CUSTOMERS_JOB.replace('state: false', 'state: state/import.db') }));

  // The reconcile finds the fifth customer missing (the run took 4 rows): exit 1.
  const runs: Array<[number, string[]]> = [
    [0, ['run', 'jobs.yaml', '--report-dir', 'one', '--check', '--max-errors', '10', '--limit', '4', '--max-duration', '1h', '--max-missing', '40%', '--allow', 'minRows', '--allow', 'maxChange', '--partial', '--full']],
    [1, ['reconcile', 'jobs.yaml', '--report-dir', 'two', '--check', '--limit', '5', '--max-duration', '45m', '--input', 'customers.csv']],
    [0, ['undo', 'jobs.yaml', '--job', 'import', '--run', '1', '--force', '--key', 'C0001', '--key', 'C0002', '--keep-created', '--max-duration', '90s', '--report-dir', 'three']],
  ];
  for (const [exitCode, argv] of runs) expect([argv[0], (await ws.run(argv)).exitCode]).toEqual([argv[0], exitCode]);

  const state = StateStore.open(join(ws.dir, 'state', 'import.db'), { job: 'import', keyField: 'customerid' });
  try {
    expect([1, 2, 3].map((id) => state.run(id)?.argv)).toEqual([
      'run jobs.yaml --full --limit 4 --max-duration 1h00m --max-missing 40% --allow minRows --allow maxChange --partial',
      'reconcile jobs.yaml --limit 5 --max-duration 45m00s --input customers.csv',
      'undo jobs.yaml --max-duration 1m30s --run 1 --force --key (2 keys) --keep-created',
    ]);
  } finally {
    state.close();
  }
});
