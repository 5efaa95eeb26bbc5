/**
 * One run of a job at a time however the job is named (issue 33): cron runs the jobs file by one
 * path while a person runs it through a symlinked folder, or a deploy and its backup copy run at
 * once. Started together, one run exits 75 naming what the two share (the state store's real
 * file, or the job on its channel), and the emulator holds each key once. Real processes: the
 * lock is the operating system's, per process. In the in-band timing project: one run must still
 * be going when the other starts.
 */
import { copyFileSync, mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { CUSTOMERS_JOB, TOKEN, customersCsv, fastEmulator, jobsYaml } from '../helpers/cli-harness.js';
import { startCli, useCliChildren } from '../helpers/cli-process.js';
import { tempDir } from '../helpers/temp-dir.js';

const ROWS = 30;

/** Where each run starts (its folder and HOME) and what the refusal must name. */
interface Case {
  case: string;
  /** `state:` of the job as written in both jobs files; `{root}` is the test's folder. */
  state: string;
  /** The second run's folder: the first's reached through a symlink, or a copy of it. */
  second: 'symlink' | 'copy';
  /** The second jobs file's job name, when it is another job on the same state. */
  secondName?: string;
  /** One user (one HOME, so one folder of channel locks) or two. */
  homes: 'one' | 'two';
  /** What the refused run says is in use. */
  shared: (root: string, url: string) => string;
}

const stateStore = (root: string): string => `the state store ${join(realpathSync(root), 'deploy', 'state', 'import.db')}`;
const sharedStateStore = (root: string): string => `the state store ${join(realpathSync(root), 'shared', 'import.db')}`;
const channel = (_root: string, url: string): string => `job "import" (key field customerid) on the channel at ${url}`;

const CASES: Case[] = [
  // Two users: only the state store's real file is shared, and locked.
  { case: 'a symlinked folder, with a state store', state: 'state/import.db', second: 'symlink', homes: 'two', shared: stateStore },
  { case: 'a copied jobs file naming the same state file', state: '{root}/shared/import.db', second: 'copy', homes: 'two', shared: sharedStateStore },
  { case: 'another job name on the same state file', state: '{root}/shared/import.db', second: 'copy', secondName: 'import-copy', homes: 'two', shared: sharedStateStore },
  // One user: the job on its channel is locked, with no state or each copy its own.
  { case: 'a copied jobs file without a state store', state: 'false', second: 'copy', homes: 'one', shared: channel },
  { case: 'a copied jobs file, each copy its own state file', state: 'state/import.db', second: 'copy', homes: 'one', shared: channel },
];

describe('one run of a job at a time however it is named', () => {
  let emulator: RunningEmulator | undefined;
  const children = useCliChildren();
  afterEach(async () => {
    await emulator?.close();
    emulator = undefined;
  });

  it.each(CASES)('$case: exit 0 and 75, each key once on the platform', async ({ state, second, secondName, homes, shared }) => {
    emulator = await fastEmulator();
    const root = tempDir('however-named-');
    const deploy = join(root, 'deploy');
    mkdirSync(deploy);
    // 20 calls a second, 3 a row (search, create, tags): the run that holds the locks runs for
    // seconds, far longer than the other takes to start.
    const yaml = (name: string): string =>
      jobsYaml({ url: emulator!.url, name, job: CUSTOMERS_JOB.replace('state: false', `state: ${state.replace('{root}', root)}`) }).replace('contacts: 60000/min', 'contacts: 20/s');
    writeFileSync(join(deploy, 'customers.csv'), customersCsv(ROWS));
    writeFileSync(join(deploy, 'jobs.yaml'), yaml('import'));
    const other = join(root, second === 'symlink' ? 'link' : 'backup');
    if (second === 'symlink') symlinkSync(deploy, other);
    else {
      mkdirSync(other);
      copyFileSync(join(deploy, 'customers.csv'), join(other, 'customers.csv'));
      writeFileSync(join(other, 'jobs.yaml'), yaml(secondName ?? 'import'));
    }
    const home = (name: string): string => {
      const dir = join(root, homes === 'one' ? 'home' : `home-${name}`);
      mkdirSync(dir, { recursive: true });
      return dir;
    };

    const one = children.track(startCli(['run', 'jobs.yaml', '--report-dir', join(root, 'r1')], deploy, { HOME: home('cron') }));
    const two = children.track(startCli(['run', 'jobs.yaml', '--report-dir', join(root, 'r2')], other, { HOME: home('person') }));
    const codes = [(await one.exited(120_000)).code, (await two.exited(120_000)).code];

    expect({ codes: [...codes].sort(), output: codes.includes(0) && codes.includes(75) ? '' : `${one.output()}\n${two.output()}` }).toEqual({ codes: [0, 75], output: '' });
    const refused = codes[0] === 75 ? one : two;
    const holder = refused === one ? two : one;
    expect(refused.output()).toContain(`is already running: ${shared(root, emulator.url)} is in use by job "`);
    expect(refused.output()).toMatch(new RegExp(`is in use by job "[^"]+": pid ${holder.child.pid} on .*, started .*\\(run jobs\\.yaml[^)]*\\); nothing was done`));
    const keys = emulator.contacts(TOKEN).map((contact) => contact.custom_fields.customerid);
    expect(keys).toHaveLength(ROWS);
    expect(new Set(keys).size).toBe(ROWS);
  }, 180_000);
});
