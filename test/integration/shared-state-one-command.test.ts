/**
 * Two jobs of one command whose `state:` paths lead to one file through a symlink or a hard link:
 * the config's rule, which compares the paths as written, cannot see it; the lock's real path, or
 * the state file's inode, does. Refused
 * before any call (exit 2), naming both jobs and the file: each would take the other's record of
 * what it wrote for its own.
 */
import { linkSync, mkdirSync, realpathSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { CUSTOMERS_JOB, TOKEN, customersCsv, fastEmulator, jobsYaml, workspace } from '../helpers/cli-harness.js';

describe('two jobs of one command on one state file', () => {
  let emulator: RunningEmulator;
  beforeEach(async () => {
    emulator = await fastEmulator();
  });
  afterEach(async () => {
    await emulator.close();
  });

  it('through a symlinked folder: exit 2 naming both jobs and the real file, and no call', async () => {
    const ws = workspace();
    mkdirSync(join(ws.dir, 'state'));
    symlinkSync(join(ws.dir, 'state'), join(ws.dir, 'state-link'));
    ws.write('customers.csv', customersCsv(3));
    const second = ['  - name: import-b', '    connection: main', ...CUSTOMERS_JOB.replace('state: false', 'state: state-link/import.db').split('\n').map((line) => `    ${line}`)].join('\n');
    ws.write('jobs.yaml', `${jobsYaml({ url: emulator.url, job: CUSTOMERS_JOB.replace('state: false', 'state: state/import.db') })}${second}\n`);

    const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'r']);

    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain(
      `${join(ws.dir, 'jobs.yaml')}: jobs "import" and "import-b" share the state store ${join(realpathSync(ws.dir), 'state', 'import.db')} ` +
        '(their state: paths lead to one file, through a symlink, a hard link or another spelling); give each job its own state file, or state: false; nothing was done',
    );
    expect(emulator.counters(TOKEN).total.received).toBe(0);
  });

  it('through a hard link in another folder: exit 2 naming both jobs, and no call', async () => {
    const ws = workspace();
    ws.write('customers.csv', customersCsv(3));
    ws.write('jobs.yaml', jobsYaml({ url: emulator.url, job: CUSTOMERS_JOB.replace('state: false', 'state: state/import.db') }));
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'first'])).exitCode).toBe(0);
    const before = emulator.counters(TOKEN).total.received;
    mkdirSync(join(ws.dir, 'other'));
    linkSync(join(ws.dir, 'state', 'import.db'), join(ws.dir, 'other', 'linked.db'));
    const second = ['  - name: import-b', '    connection: main', ...CUSTOMERS_JOB.replace('state: false', 'state: other/linked.db').split('\n').map((line) => `    ${line}`)].join('\n');
    ws.write('jobs.yaml', `${jobsYaml({ url: emulator.url, job: CUSTOMERS_JOB.replace('state: false', 'state: state/import.db') })}${second}\n`);

    const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'r']);

    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(/jobs "import" and "import-b" share the state store .*(import|linked)\.db \(their state: paths lead to one file, through a symlink, a hard link or another spelling\)/);
    expect(emulator.counters(TOKEN).total.received).toBe(before);
  });
});
