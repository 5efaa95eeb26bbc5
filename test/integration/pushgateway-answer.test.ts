/**
 * A Pushgateway (or the proxy before it) that refuses the push with a huge answer, terminal
 * escapes included (issue 33): the warning is one printable line, and the job's exit code stays.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CUSTOMERS_JOB, customersCsv, jobsYaml, workspace } from '../helpers/cli-harness.js';
import { emulatorPerTest } from '../helpers/integration-fixtures.js';

describe('a Pushgateway\'s error answer in the log', () => {
  const emulator = emulatorPerTest();
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
    server = undefined;
  });

  it('is cut to one printable line of its first text, however big and whatever escapes it holds', async () => {
    const body = `\u001b[2J\u001b[31mgateway says no\u001b[0m\n${'<p>x</p>\n'.repeat(600_000)}`;
    server = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        response.writeHead(500, { 'content-type': 'text/html' });
        response.end(body);
      });
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const ws = workspace();
    ws.write('customers.csv', customersCsv(2));
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: CUSTOMERS_JOB }));

    const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports', '--pushgateway', url]);

    expect(run.exitCode).toBe(0);
    const warning = run.stderr.split('\n').filter((line) => line.includes('did not take the metrics'));
    expect(warning).toHaveLength(1);
    expect(warning[0]).toContain(`the Pushgateway at ${url} did not take the metrics (push failed with status 500, gateway says no); the job's exit code is unchanged`);
    expect(run.stderr).not.toContain('\u001b');
    expect(run.stderr).not.toContain('<p>x</p>');
  });
});
