/**
 * One run of a job at a time however the job is named (issue 33): cron runs the jobs file by one
 * path while a person runs it through a symlinked folder, or a deploy and its backup copy run at
 * once. Started together, one run exits 75 naming what the two share (the state store's real
 * file, or the job on its channel), and the emulator holds each key once. Real processes: the
 * lock is the operating system's, per process. In the in-band timing project: one run must still
 * be going when the other starts.
 */
import { copyFileSync, linkSync, mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { CUSTOMERS_JOB, TOKEN, customersCsv, fastEmulator, jobsYaml } from '../helpers/cli-harness.js';
import { startCli, useCliChildren, waitUntil } from '../helpers/cli-process.js';
import { describeWithRedis, redisJobsYaml, SEARCH_AND_CREATE_JOB } from '../helpers/redis-support.js';
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

/** One of two runs started together: its folder (and HOME), jobs file, flags and environment. */
interface RunSpec {
  folder: string;
  yaml: string;
  args?: string[];
  env?: Record<string, string>;
}

/**
 * Issue 42 items 2 and 3: the job is its channel (the token, not the base URL's text), its key
 * field and its name, and its state file is known by its device and inode, whatever spelling, lock
 * folder or link names them; a shard holds the job shared with the shards of its count, a whole run
 * alone. Two runs started together: one exits 0, the other 75, and no key is created twice.
 */
describe('one run of a job at a time however it is spelt, sharded or linked', () => {
  let emulator: RunningEmulator | undefined;
  const children = useCliChildren();
  afterEach(async () => {
    await emulator?.close();
    emulator = undefined;
  });

  /** 20 calls a second, 3 a row: the run that holds the locks runs for seconds. */
  const slowYaml = (url: string, name = 'import', state = 'false', extra?: string): string =>
    jobsYaml({ url, name, job: CUSTOMERS_JOB.replace('state: false', `state: ${state}`), ...(extra === undefined ? {} : { connectionExtra: extra }) }).replace(
      'contacts: 60000/min',
      'contacts: 20/s',
    );

  function folder(root: string, name: string): string {
    const dir = join(root, name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'customers.csv'), customersCsv(ROWS));
    return dir;
  }

  async function runTogether(root: string, specs: [RunSpec, RunSpec]): Promise<{ refused: string; holder: string }> {
    const [one, two] = specs.map((spec, i) => {
      writeFileSync(join(spec.folder, 'jobs.yaml'), spec.yaml);
      return children.track(startCli(['run', 'jobs.yaml', '--report-dir', join(root, `r${i}`), ...(spec.args ?? [])], spec.folder, { HOME: spec.folder, ...spec.env }));
    }) as [ReturnType<typeof startCli>, ReturnType<typeof startCli>];
    const codes = [(await one.exited(120_000)).code, (await two.exited(120_000)).code];
    expect({ codes: [...codes].sort(), output: codes.includes(0) && codes.includes(75) ? '' : `${one.output()}\n${two.output()}` }).toEqual({ codes: [0, 75], output: '' });
    const keys = emulator!.contacts(TOKEN).map((contact) => contact.custom_fields.customerid);
    expect(keys.length).toBeGreaterThan(0);
    expect(new Set(keys).size).toBe(keys.length);
    const [refused, holder] = codes[0] === 75 ? [one, two] : [two, one];
    return { refused: refused.output(), holder: holder.output() };
  }

  // One user on one host: one lock folder (CONTACT_SYNC_LOCK_DIR, as /var/tmp/contact-sync-<uid> is for real).
  const oneHost = (root: string): Record<string, string> => ({ CONTACT_SYNC_LOCK_DIR: join(root, 'host-locks') });

  it.each([
    { case: '127.0.0.1 and localhost', spell: (url: string) => url.replace('127.0.0.1', 'localhost') },
    { case: '/api and /%61pi', spell: (url: string) => url.replace(/\/api$/, '/%61pi') },
  ])('$case: the job on its channel is one', async ({ spell }) => {
    emulator = await fastEmulator();
    const root = tempDir('however-spelt-');
    const url = emulator.url;
    expect(spell(url)).not.toBe(url);
    const { refused } = await runTogether(root, [
      { folder: folder(root, 'a'), yaml: slowYaml(url), env: oneHost(root) },
      { folder: folder(root, 'b'), yaml: slowYaml(spell(url)), env: oneHost(root) },
    ]);
    expect(refused).toMatch(/is already running: job "import" \(key field customerid\) on the channel at http:\/\/(127\.0\.0\.1|localhost):\d+\/(api|%61pi) is in use by job "import": pid \d+/);
  }, 180_000);

  it('another XDG_STATE_HOME: the lock folder is the host\'s', async () => {
    emulator = await fastEmulator();
    const root = tempDir('however-xdg-');
    const { refused } = await runTogether(root, [
      { folder: folder(root, 'a'), yaml: slowYaml(emulator.url), env: { ...oneHost(root), XDG_STATE_HOME: join(root, 'xdg-cron') } },
      { folder: folder(root, 'b'), yaml: slowYaml(emulator.url), env: { ...oneHost(root), XDG_STATE_HOME: join(root, 'xdg-person') } },
    ]);
    expect(refused).toContain('is already running: job "import" (key field customerid) on the channel at');
  }, 180_000);

  it('a hard link of the state file in another folder, by another job name: the state store is one', async () => {
    emulator = await fastEmulator();
    const root = tempDir('however-linked-');
    const a = folder(root, 'a');
    const b = folder(root, 'b');
    // A first run creates the state file (one row), which the second folder then links to.
    writeFileSync(join(a, 'jobs.yaml'), slowYaml(emulator.url, 'import', 'state/import.db'));
    expect((await children.track(startCli(['run', 'jobs.yaml', '--limit', '1', '--report-dir', join(root, 'first')], a, { HOME: a, ...oneHost(root) })).exited(60_000)).code).toBe(0);
    mkdirSync(join(b, 'state'));
    linkSync(join(a, 'state', 'import.db'), join(b, 'state', 'linked.db'));
    const { refused } = await runTogether(root, [
      { folder: a, yaml: slowYaml(emulator.url, 'import', 'state/import.db'), env: oneHost(root) },
      { folder: b, yaml: slowYaml(emulator.url, 'import-linked', 'state/linked.db'), env: oneHost(root) },
    ]);
    expect(refused).toMatch(/is already running: the state store .*(import|linked)\.db is in use by job "import(-linked)?": pid \d+/);
  }, 180_000);

  it.each([
    { case: 'a whole run and --shard 1/1 (a whole run)', args: [[], ['--shard', '1/1']] },
    { case: 'a whole run and --shard 1/2', args: [[], ['--shard', '1/2']] },
    { case: '--shard 1/2 and --shard 1/3', args: [['--shard', '1/2'], ['--shard', '1/3']] },
  ])('$case: one runs, the other exits 75', async ({ args }) => {
    emulator = await fastEmulator();
    const root = tempDir('however-sharded-');
    const { refused } = await runTogether(root, [
      { folder: folder(root, 'a'), yaml: slowYaml(emulator.url, 'import', 'state/import.db'), args: args[0]!, env: oneHost(root) },
      { folder: folder(root, 'b'), yaml: slowYaml(emulator.url, 'import', 'state/import.db'), args: args[1]!, env: oneHost(root) },
    ]);
    expect(refused).toMatch(/is already running: job "import" \(key field customerid\) on the channel at .* is in use by job "import": pid \d+/);
  }, 180_000);
});

describeWithRedis('one run of a job at a time across hosts however it is spelt or sharded (rateLimits.redis)', (redisUrl) => {
  let emulator: RunningEmulator | undefined;
  const children = useCliChildren();
  afterEach(async () => {
    await emulator?.close();
    emulator = undefined;
  });

  it.each([
    { case: '127.0.0.1 on one host, localhost on another', spell: true, args: [[], []] },
    { case: 'a whole run on one host, --shard 1/2 on another', spell: false, args: [[], ['--shard', '1/2']] },
  ])('$case: the second is refused through Redis (75)', async ({ spell, args }) => {
    emulator = await fastEmulator();
    const root = tempDir('however-hosts-');
    const url = emulator.url;
    // Two hosts: each its own folder, HOME and lock folder; only Redis is shared. Host A runs for
    // seconds (40 rows, 2 calls a row, 5 a second) while host B starts.
    const hosts = [join(root, 'host-a'), join(root, 'host-b')].map((dir, i) => {
      mkdirSync(dir);
      writeFileSync(join(dir, 'customers.csv'), customersCsv(40));
      writeFileSync(join(dir, 'jobs.yaml'), redisJobsYaml({ url: spell && i === 1 ? url.replace('127.0.0.1', 'localhost') : url, token: TOKEN, contacts: '5/s', redis: redisUrl, job: SEARCH_AND_CREATE_JOB }));
      return dir;
    });
    const start = (i: number) => children.track(startCli(['run', 'jobs.yaml', '--report-dir', 'r', ...args[i]!], hosts[i]!));
    const a = start(0);
    await waitUntil(() => emulator!.counters(TOKEN).total.received >= 3, 'host A made calls', 60_000, a);
    const b = start(1);
    expect((await b.exited(60_000)).code).toBe(75);
    expect(b.output()).toMatch(/\(held in Redis\) is already running: job "import" \(key field customerid\) on the channel at .* is in use by job "import": pid \d+/);
    expect((await a.exited(120_000)).code).toBe(0);
    expect(emulator.contacts(TOKEN)).toHaveLength(40);
  }, 180_000);
});
