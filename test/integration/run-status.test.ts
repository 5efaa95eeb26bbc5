/**
 * summary.json says how a run ended (`status`) and how much of the input it did not take
 * (`rows.notReached`); the console summary ends with one sentence saying what is left and what to
 * run; the state store journals each run with its real status and exit code.
 */
import { CUSTOMERS_JOB, customersCsv, fastEmulator, jobsYaml, workspace } from '../helpers/cli-harness.js';
import type { RunningEmulator } from '../../src/emulator/index.js';

describe('run status', () => {
  let emulator: RunningEmulator;
  beforeEach(async () => {
    emulator = await fastEmulator();
  });
  afterEach(() => emulator.close());

  it('completed: every row taken, nothing left', async () => {
    const ws = workspace();
    ws.write('customers.csv', customersCsv(5));
    ws.write('jobs.yaml', jobsYaml({ url: emulator.url, job: CUSTOMERS_JOB }));
    const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'r']);
    expect(run.exitCode).toBe(0);
    expect(ws.summary('import', 'r')).toMatchObject({ status: 'completed', rows: { total: 5, notReached: 0 } });
    expect(run.stdout.trim().split('\n').at(-1)).toBe('Done: every row ended well; nothing is left to run.');
  });

  it('--limit: the rest of the input is counted as not reached', async () => {
    const ws = workspace();
    ws.write('customers.csv', customersCsv(12));
    ws.write('jobs.yaml', jobsYaml({ url: emulator.url, job: CUSTOMERS_JOB }));
    const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'r', '--limit', '5']);
    expect(ws.summary('import', 'r')).toMatchObject({ status: 'completed', rows: { total: 5, notReached: 7 } });
    expect(run.stdout.trim().split('\n').at(-1)).toBe('Took the rows asked for; 7 rows of the input not reached.');
  });

  it('aborted: the summary names what is left and what to do', async () => {
    const ws = workspace();
    ws.write('jobs.yaml', jobsYaml({ url: emulator.url, job: `${CUSTOMERS_JOB}\nconcurrency: 1` }));
    // The first rows fail for their data; the others fail on the platform (every create refused), which --max-errors counts.
    ws.write('customers.csv', customersCsv(30, (i, cells) => (i <= 2 ? [cells[0]!, cells[1]!, cells[2]!, 'not-an-email', ...cells.slice(4)] : cells)));
    emulator.setFaults({ echoTokenEscaped: 1, operations: ['createContact'] });
    const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'r', '--max-errors', '2']);
    expect(run.exitCode).toBe(3);
    const summary = ws.summary('import', 'r');
    expect(summary.status).toBe('aborted');
    expect(summary.rows.total! + summary.rows.notReached!).toBe(30);
    expect(run.stdout.trim().split('\n').at(-1)).toMatch(
      /^Stopped \(MAX_ERRORS\) with \d+ rows not reached; 2 rows failed for their data: fix them in .*import\.rejected\.csv and feed it back as input \(--input\); \d+ rows failed for a cause outside their data \(the job stopped, or the platform refused or failed\): nothing in the rows to fix; results\.csv gives the error_code of each, and the same command run again takes them once that is fixed: fix the cause above, then run the same command again\.$/,
    );
  });

  it('state show lists the last runs with their status and real exit code', async () => {
    const ws = workspace();
    ws.write('customers.csv', customersCsv(4, (i, cells) => (i === 2 ? ['', ...cells.slice(1)] : cells)));
    ws.write('jobs.yaml', jobsYaml({ url: emulator.url, job: CUSTOMERS_JOB.replace('state: false', 'state: state/import.db') }));
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'a'])).exitCode).toBe(1);
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'b', '--limit', '2'])).exitCode).toBe(1);

    const show = await ws.run(['state', 'show', 'jobs.yaml', '--job', 'import']);

    const runs = show.stdout.slice(show.stdout.indexOf('last 2 runs, newest first:')).split('\n').slice(1, 3);
    expect(runs[0]).toMatch(/completed, finished .*, exit 1: total 2, created 0, updated 0, unchanged 1, skipped 0, failed 1/);
    expect(runs[1]).toMatch(/completed, finished .*, exit 1: total 4, created 3/);
  });
});
