/**
 * `contact-sync ... | head`: a reader that closes the pipe early is not a failure of the command
 * (issue 29, point 8): no EPIPE stack trace, the command's own exit code, and a run still finishes.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { startCli, useCliChildren } from '../helpers/cli-process.js';
import { CUSTOMERS_JOB, TOKEN, customersCsv, fastEmulator, jobsYaml, workspace } from '../helpers/cli-harness.js';

const { track } = useCliChildren();
let emulator: RunningEmulator;

beforeEach(async () => {
  emulator = await fastEmulator();
});

afterEach(async () => {
  await emulator.close();
});

/** Starts the CLI with its stdout closed at once, as `| head -0` would. */
function withClosedStdout(argv: string[], cwd: string) {
  const cli = track(startCli(argv, cwd));
  cli.child.stdout?.destroy();
  return cli;
}

describe('stdout closed by its reader', () => {
  it('schema (30 KB of output) ends 0 with no stack trace', async () => {
    const ws = workspace();
    const cli = withClosedStdout(['schema'], ws.dir);
    expect(await cli.exited(60_000)).toEqual({ code: 0, signal: null });
    expect(cli.output()).not.toMatch(/EPIPE|Unhandled 'error' event|\n\s+at /);
  });

  it('state show ends 0, and a run piped to a closed reader still finishes its rows and reports', async () => {
    const ws = workspace();
    ws.write('customers.csv', customersCsv(30));
    ws.write('jobs.yaml', jobsYaml({ url: emulator.url, job: CUSTOMERS_JOB.replace('state: false', 'state: .contact-sync/import.db') }));
    const run = withClosedStdout(['run', 'jobs.yaml', '--report-dir', 'reports'], ws.dir);
    expect(await run.exited(60_000)).toEqual({ code: 0, signal: null });
    expect(emulator.contacts(TOKEN)).toHaveLength(30);
    expect(existsSync(join(ws.dir, 'reports', 'import.summary.json'))).toBe(true);
    const show = withClosedStdout(['state', 'show', 'jobs.yaml', '--job', 'import'], ws.dir);
    expect(await show.exited(60_000)).toEqual({ code: 0, signal: null });
    expect(`${run.output()}${show.output()}`).not.toMatch(/EPIPE|Unhandled 'error' event|\n\s+at /);
  });
});
