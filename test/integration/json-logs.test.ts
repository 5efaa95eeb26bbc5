/** `--log-format json`: every line on stderr is a JSON object, so a collector reads the stream whole. */
import { customersCsv, CUSTOMERS_JOB, fastEmulator, jobsYaml, workspace } from '../helpers/cli-harness.js';

it('a run with JSON logs writes only JSON lines to stderr, a failed row and the warnings included', async () => {
  const emulator = await fastEmulator();
  try {
    const ws = workspace();
    ws.write('customers.csv', customersCsv(6, (i, cells) => (i === 3 ? ['', ...cells.slice(1)] : cells)));
    ws.write('jobs.yaml', jobsYaml({ url: emulator.url, job: CUSTOMERS_JOB }));

    const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports', '--log-format', 'json']);

    expect(run.exitCode).toBe(1);
    const lines = run.stderr.split('\n').filter((line) => line !== '');
    expect(lines.length).toBeGreaterThan(0);
    const notJson = lines.filter((line) => {
      try {
        return typeof JSON.parse(line) !== 'object';
      } catch {
        return true;
      }
    });
    expect(notJson).toEqual([]);
    expect(lines.map((line) => (JSON.parse(line) as { msg: string }).msg)).toContain('job started');
  } finally {
    await emulator.close();
  }
});
