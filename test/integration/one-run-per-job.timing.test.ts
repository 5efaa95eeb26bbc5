/**
 * Two runs of one job started together (the most ordinary cron mishap): one runs, the other exits
 * 75 at once, before any call, naming the holder. One contact and one message per key, with a
 * state store or without. Real processes: the lock is the operating system's, per process. In the
 * in-band timing project: one run must still be going when the other starts.
 */
import type { RunningEmulator } from '../../src/emulator/index.js';
import { CUSTOMERS_JOB, TOKEN, customersCsv, fastEmulator, jobsYaml, workspace } from '../helpers/cli-harness.js';
import { startCli, useCliChildren, waitUntil } from '../helpers/cli-process.js';
import { describeWithRedis, redisJobsYaml, SEARCH_AND_CREATE_JOB } from '../helpers/redis-support.js';

const ROWS = 40;
const WELCOME = '\nmessage: { when: created, text: "Welcome {{first_name}}" }';

describe('one run per job at a time', () => {
  let emulator: RunningEmulator | undefined;
  const children = useCliChildren();
  afterEach(async () => {
    await emulator?.close();
    emulator = undefined;
  });

  it.each([
    { state: false, job: CUSTOMERS_JOB },
    { state: true, job: CUSTOMERS_JOB.replace('state: false', 'state: state/import.db') },
  ])('two runs started together (state store: $state): exit 0 and 75, one contact and one message per key', async ({ job }) => {
    emulator = await fastEmulator();
    const ws = workspace();
    ws.write('customers.csv', customersCsv(ROWS));
    // 20 calls a second, 4 a row (search, create, tags, message): the run that holds the lock runs
    // for seconds, far longer than the other takes to start.
    ws.write('jobs.yaml', jobsYaml({ url: emulator.url, job: `${job}${WELCOME}` }).replace('contacts: 60000/min', 'contacts: 20/s'));

    const one = children.track(startCli(['run', 'jobs.yaml', '--report-dir', 'one'], ws.dir));
    const two = children.track(startCli(['run', 'jobs.yaml', '--report-dir', 'two'], ws.dir));
    const codes = [(await one.exited(120_000)).code, (await two.exited(120_000)).code];

    expect([...codes].sort()).toEqual([0, 75]);
    const refused = codes[0] === 75 ? one : two;
    expect(refused.output()).toMatch(/job "import" of .*jobs\.yaml is already running: job "import" \(key field customerid\) on the channel at .* is in use by job "import": pid \d+ on .*, started .*\(run jobs\.yaml[^)]*\); nothing was done/);
    const keys = emulator.contacts(TOKEN).map((contact) => contact.custom_fields.customerid);
    expect(keys).toHaveLength(ROWS);
    expect(new Set(keys).size).toBe(ROWS);
    const greeted = emulator.messages(TOKEN).map((message) => message.contactId);
    expect(greeted).toHaveLength(ROWS);
    expect(new Set(greeted).size).toBe(ROWS);
  }, 180_000);

  it('after the holder is killed, the next run takes the lock over at once and says so', async () => {
    emulator = await fastEmulator({ faults: { latency: { minMs: 20, maxMs: 20 } } });
    const ws = workspace();
    ws.write('customers.csv', customersCsv(ROWS));
    ws.write('jobs.yaml', jobsYaml({ url: emulator.url, job: CUSTOMERS_JOB.replace('state: false', 'state: state/import.db') }));

    const first = children.track(startCli(['run', 'jobs.yaml', '--report-dir', 'one'], ws.dir));
    await waitUntil(() => emulator!.counters(TOKEN).total.received >= 5, 'the first run made calls', 60_000, first);
    first.child.kill('SIGKILL');
    await first.exited(30_000);

    const second = children.track(startCli(['run', 'jobs.yaml', '--report-dir', 'two'], ws.dir));
    const { code } = await second.exited(120_000);

    expect(code).toBe(0);
    expect(second.output()).toMatch(new RegExp(`took over the lock of job "import" of .*: its last run \\(pid ${first.child.pid} on .*\\) ended without releasing it`));
    expect(new Set(emulator.contacts(TOKEN).map((contact) => contact.custom_fields.customerid)).size).toBe(ROWS);
    expect(emulator.contacts(TOKEN)).toHaveLength(ROWS);
  }, 180_000);

  it('state show names the run in progress', async () => {
    emulator = await fastEmulator({ faults: { latency: { minMs: 20, maxMs: 20 } } });
    const ws = workspace();
    ws.write('customers.csv', customersCsv(ROWS));
    ws.write('jobs.yaml', jobsYaml({ url: emulator.url, job: CUSTOMERS_JOB.replace('state: false', 'state: state/import.db') }));
    const running = children.track(startCli(['run', 'jobs.yaml', '--report-dir', 'one'], ws.dir));
    await waitUntil(() => emulator!.counters(TOKEN).total.received >= 3, 'the run made calls', 60_000, running);

    const show = await ws.run(['state', 'show', 'jobs.yaml', '--job', 'import']);

    expect(show.stdout).toMatch(new RegExp(`a run is in progress: pid ${running.child.pid} on .*, started `));
    await running.exited(120_000);
    expect((await ws.run(['state', 'show', 'jobs.yaml', '--job', 'import'])).stdout).not.toContain('in progress');
  }, 180_000);
});

describeWithRedis('one run per job across hosts (rateLimits.redis)', (redisUrl) => {
  const children = useCliChildren();
  it('a run on another host (another folder, its own lock files) is refused through Redis: exit 75', async () => {
    const emulator = await fastEmulator();
    try {
      const hostA = workspace();
      const hostB = workspace();
      // 40 rows at 5 calls a second: host A runs for about 16 s, while host B starts.
      for (const ws of [hostA, hostB]) {
        ws.write('customers.csv', customersCsv(40));
        ws.write('jobs.yaml', redisJobsYaml({ url: emulator.url, token: TOKEN, contacts: '5/s', redis: redisUrl, job: SEARCH_AND_CREATE_JOB }));
      }
      const a = children.track(startCli(['run', 'jobs.yaml', '--report-dir', 'r'], hostA.dir));
      await waitUntil(() => emulator.counters(TOKEN).total.received >= 3, 'host A made calls', 60_000, a);
      const b = children.track(startCli(['run', 'jobs.yaml', '--report-dir', 'r'], hostB.dir));
      const refused = await b.exited(60_000);
      expect(refused.code).toBe(75);
      expect(b.output()).toMatch(/\(held in Redis\) is already running: job "import" \(key field customerid\) on the channel at .* is in use by job "import": pid \d+/);
      expect((await a.exited(120_000)).code).toBe(0);
      expect(emulator.contacts(TOKEN)).toHaveLength(40);
    } finally {
      await emulator.close();
    }
  }, 180_000);
});
