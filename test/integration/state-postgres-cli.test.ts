/**
 * `state: postgres://...` through the CLI (issue 44): a run and a second run that makes no call,
 * `state show`, `history`, `undo`, a dry run that leaves no state of the job, one run per job
 * across "hosts" (two working folders, two lock folders: only the database's lock can see both),
 * bad URLs and an unreachable server refused before any call, a password never printed, and
 * `state copy` both ways between a SQLite file and the database.
 */
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { CUSTOMERS_JOB, TOKEN, customersCsv, fastEmulator, jobsYaml, workspace, type CliRun, type Workspace } from '../helpers/cli-harness.js';
import { pgQuery, postgresSettings, useTestDatabase } from '../helpers/postgres-support.js';
import { customerKey } from '../helpers/state-fixtures.js';

const database = useTestDatabase();
const db = {
  url: (): string => database.url,
  /** The same URL with a password in it (trust auth ignores it): for the tests that it is never printed. */
  urlWithPassword: (password: string): string => {
    const { host, port, user } = postgresSettings();
    return `postgres://${encodeURIComponent(user)}:${encodeURIComponent(password)}@${host}:${port}/${database.name}`;
  },
};

let emulator: RunningEmulator;

beforeEach(async () => {
  emulator = await fastEmulator();
});

afterEach(async () => {
  await emulator.close();
});

/** The customers job with its state in `state` (a YAML value). */
function stateJob(state: string, extra = ''): string {
  return `${CUSTOMERS_JOB.replace('state: false', `state: ${state}`)}${extra}`;
}

/** The job's state in schema `schema` of the test file's database, its URL from `${STATE_URL}`. */
function inSchema(schema: string): string {
  return stateJob(`{ url: "\${STATE_URL}", schema: ${schema} }`);
}

function calls(): number {
  return emulator.counters(TOKEN).total.received;
}

function expectOk(run: CliRun): void {
  if (run.exitCode !== 0) throw new Error(`exit ${run.exitCode}: ${run.stderr}${run.stdout}`);
}

/** A workspace whose jobs.yaml is the job in `job`, with 20 customers. */
function workspaceWith(job: string, rows = 20): Workspace {
  const ws = workspace();
  ws.write('customers.csv', customersCsv(rows));
  ws.write('jobs.yaml', jobsYaml({ url: emulator.url, job }));
  return ws;
}

/** Every file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/** A port on 127.0.0.1 that nothing listens on (listened on, then closed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}

describe('a job whose state is in PostgreSQL', () => {
  it('a second run of an unchanged file makes no call; state show and history read the database', async () => {
    const env = { STATE_URL: db.url() };
    const ws = workspaceWith(inSchema('s_rerun'));

    expectOk(await ws.run(['run', 'jobs.yaml', '--report-dir', 'first'], { env }));
    expect(ws.summary('import', 'first').rows).toMatchObject({ created: 20 });
    emulator.resetCounters(TOKEN);

    const second = await ws.run(['run', 'jobs.yaml', '--report-dir', 'second'], { env });

    expectOk(second);
    expect(calls()).toBe(0);
    expect(ws.summary('import', 'second').rows).toMatchObject({ total: 20, unchanged: 20, created: 0, updated: 0 });
    // No SQLite file was made beside the jobs file, under any name.
    expect(filesUnder(ws.dir).filter((file) => /\.db(-wal|-shm)?$/.test(file))).toEqual([]);

    const show = await ws.run(['state', 'show', 'jobs.yaml', '--job', 'import', '--keys', '3'], { env });
    expectOk(show);
    expect(show.stdout).toMatch(/^state store: +postgres:\/\//m);
    expect(show.stdout).toMatch(/^keys: +20$/m);
    expect(show.stdout).toContain(customerKey(3));
    const history = await ws.run(['history', 'jobs.yaml', '--job', 'import', '--key', customerKey(1)], { env });
    expectOk(history);
    expect(history.stdout).toMatch(/^run 1 \(run jobs\.yaml/m);
    expect(history.stdout).toContain(`${customerKey(1)} `);
    expect(calls()).toBe(0);
  });

  it('two jobs of one jobs file on one database keep their states apart; a rerun of both makes no call', async () => {
    const env = { STATE_URL: db.url() };
    const ws = workspaceWith(inSchema('s_two'));
    const second = `  - name: import-b\n    connection: main\n${inSchema('s_two').replace(/^/gm, '    ')}\n`;
    ws.write('jobs.yaml', `${jobsYaml({ url: emulator.url, job: inSchema('s_two') })}${second}`);

    expectOk(await ws.run(['run', 'jobs.yaml', '--report-dir', 'first'], { env }));
    expect(ws.summary('import', 'first').rows).toMatchObject({ created: 20 });
    // The second job finds the first one's contacts by search: its state was not the first one's.
    expect(ws.summary('import-b', 'first').rows).toMatchObject({ created: 0, unchanged: 20 });
    emulator.resetCounters(TOKEN);
    expectOk(await ws.run(['run', 'jobs.yaml', '--report-dir', 'second'], { env }));
    expect(calls()).toBe(0);
    for (const job of ['import', 'import-b']) {
      const show = await ws.run(['state', 'show', 'jobs.yaml', '--job', job], { env });
      expect(show.stdout).toMatch(new RegExp(`^job: +${job}$`, 'm'));
      expect(show.stdout).toMatch(/^keys: +20$/m);
    }
  });

  it('shards side by side on one database and schema hold the job together (docs/scaling.md): every row once, the rerun of both makes no call, a whole run after knows every key', async () => {
    const ws = workspaceWith(stateJob('{ url: "${STATE_URL}", schema: "s_shards" }'), 40);
    const env = { STATE_URL: db.url() };
    const shard = (index: number, dir: string) => ws.run(['run', 'jobs.yaml', '--shard', `${index}/2`, '--report-dir', `${dir}-${index}`], { env });

    const first = await Promise.all([shard(1, 'first'), shard(2, 'first')]);

    for (const run of first) expectOk(run);
    const created = [1, 2].map((index) => ws.summary(`import.shard-${index}-of-2`, `first-${index}`).rows.created ?? 0);
    expect(created[0]! + created[1]!).toBe(40);
    expect(created.every((count) => count > 0)).toBe(true);
    expect(emulator.contacts(TOKEN)).toHaveLength(40);
    emulator.resetCounters(TOKEN);
    for (const run of await Promise.all([shard(1, 'second'), shard(2, 'second')])) expectOk(run);
    expect(calls()).toBe(0);
    // One state for the job: a whole run knows every key the two shards wrote.
    expectOk(await ws.run(['run', 'jobs.yaml', '--report-dir', 'whole'], { env }));
    expect(calls()).toBe(0);
    const show = await ws.run(['state', 'show', 'jobs.yaml', '--job', 'import'], { env });
    expect(show.stdout).toMatch(/^keys: +40$/m);
  });

  it('a dry run before any run reads no state and writes nothing to the database: state show, history and undo say none, no schema is made', async () => {
    const env = { STATE_URL: db.url() };
    const ws = workspaceWith(inSchema('s_dry'));

    const dry = await ws.run(['run', 'jobs.yaml', '--dry-run', '--report-dir', 'dry'], { env });

    expectOk(dry);
    const show = await ws.run(['state', 'show', 'jobs.yaml', '--job', 'import'], { env });
    expectOk(show);
    expect(show.stdout).toMatch(/^job "import": no state yet \(nothing of it in postgres:\/\/.*#s_dry\); the first run of the job creates it$/m);
    const history = await ws.run(['history', 'jobs.yaml', '--job', 'import', '--run', '1'], { env });
    expect(history.stdout).toMatch(/no state yet/);
    const undo = await ws.run(['undo', 'jobs.yaml', '--job', 'import', '--run', '1'], { env });
    expect(undo.exitCode).toBe(2);
    expect(undo.stderr).toMatch(/job "import" has no state store yet \(nothing of it in postgres:\/\/.*\); undo puts back what a journalled run changed; nothing was done/);
    // Read-only commands leave the database as they found it.
    expect(await pgQuery(database.name, `SELECT nspname FROM pg_namespace WHERE nspname = 's_dry'`)).toEqual([]);
  });

  it('a role that may only connect (no right to create a schema) runs the dry run, state show and history of a job not there yet', async () => {
    const reader = `cs_reader_${process.pid}_${randomBytes(3).toString('hex')}`;
    await pgQuery('postgres', `CREATE ROLE ${reader} LOGIN`);
    try {
      const { host, port } = postgresSettings();
      const env = { STATE_URL: `postgres://${reader}@${host}:${port}/${database.name}` };
      const ws = workspaceWith(inSchema('s_reader'));
      expectOk(await ws.run(['run', 'jobs.yaml', '--dry-run', '--report-dir', 'dry'], { env }));
      const show = await ws.run(['state', 'show', 'jobs.yaml', '--job', 'import'], { env });
      expectOk(show);
      expect(show.stdout).toMatch(/no state yet/);
      expectOk(await ws.run(['history', 'jobs.yaml', '--job', 'import', '--run', '1'], { env }));
      // The run that writes needs the right to create the schema: refused before any call, with the fix.
      const before = calls();
      const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'real'], { env });
      expect({ exitCode: run.exitCode, calls: calls() - before }).toEqual({ exitCode: 2, calls: 0 });
      expect(run.stderr).toContain(`refused user "${reader}" the right to create the state schema (42501): grant it (GRANT CREATE ON DATABASE ${database.name} TO ${reader})`);
    } finally {
      await pgQuery('postgres', `DROP ROLE IF EXISTS ${reader}`);
    }
  });

  it('a dry run of a job the schema does not hold yet records no identity for it; the run that writes does', async () => {
    const env = { STATE_URL: db.url() };
    const ws = workspaceWith(inSchema('s_dry_other'));
    ws.write('other.yaml', jobsYaml({ url: emulator.url, job: inSchema('s_dry_other'), name: 'other' }));
    expectOk(await ws.run(['run', 'other.yaml'], { env }));
    const jobs = async (): Promise<string[]> => (await pgQuery<{ name: string }>(database.name, 'SELECT name FROM s_dry_other.jobs ORDER BY name')).map((row) => row.name);
    expect(await jobs()).toEqual(['other']);

    expectOk(await ws.run(['run', 'jobs.yaml', '--dry-run', '--report-dir', 'dry'], { env }));
    expectOk(await ws.run(['state', 'show', 'jobs.yaml', '--job', 'import'], { env }));
    expect(await jobs()).toEqual(['other']);

    expectOk(await ws.run(['run', 'jobs.yaml', '--report-dir', 'real'], { env }));
    expect(await jobs()).toEqual(['import', 'other']);
  });

  it('a run while another "host" runs the job exits 75 naming the holder; the first run is unharmed', async () => {
    await emulator.close();
    // Each call answers after 250 ms: the first run of 20 rows, one at a time, lasts 10 s, so the
    // second (started once the first made its second call) meets it running even on a busy machine.
    emulator = await fastEmulator({ faults: { latency: { minMs: 250, maxMs: 250 } } });
    const env = { STATE_URL: db.url() };
    const job = inSchema('s_lock').replace(/$/, '\nconcurrency: 1');
    // Two working folders: two lock folders (the harness puts each in its folder), as two hosts have.
    const first = workspaceWith(job);
    const second = workspaceWith(job);

    const running = first.run(['run', 'jobs.yaml', '--report-dir', 'first'], { env });
    const started = Date.now();
    while (calls() < 2 && Date.now() - started < 20_000) await new Promise((wait) => setTimeout(wait, 20));
    expect(calls()).toBeGreaterThanOrEqual(2);

    const refused = await second.run(['run', 'jobs.yaml', '--report-dir', 'second'], { env });

    expect(refused.exitCode).toBe(75);
    expect(refused.stderr).toContain(hostname());
    expect(refused.stderr).toContain(String(process.pid));
    const done = await running;
    expectOk(done);
    expect(first.summary('import', 'first').rows).toMatchObject({ created: 20 });
    // The refused run made no call: the first made one search and one create a row, no more.
    expect(emulator.counters(TOKEN).byOperation.searchContacts.received).toBe(20);
    expect(emulator.counters(TOKEN).byOperation.createContact.received).toBe(20);
  }, 60_000);

  it.each([
    ['a mysql:// URL', '"mysql://root@127.0.0.1/crm"', /jobs\[0\]\.state: is a mysql:\/\/ URL, which no state store takes/],
    ['a sqlite:// URL', '"sqlite:///tmp/crm.db"', /jobs\[0\]\.state: is a sqlite:\/\/ URL, which no state store takes/],
    ['a postgres URL that does not parse', '"postgres://sync:pw-9x@127.0.0.1:5x4/crm"', /jobs\[0\]\.state: is a postgres:\/\/ URL that does not parse/],
  ])('%s: exit 2 before any call, naming the YAML path', async (_case, state, message) => {
    const ws = workspaceWith(stateJob(state));

    const run = await ws.run(['run', 'jobs.yaml']);

    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).not.toContain('pw-9x');
    expect(calls()).toBe(0);
    expect(filesUnder(ws.dir).filter((file) => !/(jobs\.yaml|customers\.csv)$/.test(file))).toEqual([]);
  });

  it('an unreachable server: exit 2 before any call, naming host and port, never the password', async () => {
    const port = await closedPort();
    const password = 'unreachable-pw-4d2c';
    const ws = workspaceWith(stateJob('${STATE_URL}'));

    const run = await ws.run(['run', 'jobs.yaml'], { env: { STATE_URL: `postgres://postgres:${password}@127.0.0.1:${port}/nowhere` } });

    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain('127.0.0.1');
    expect(run.stderr).toContain(String(port));
    expect(`${run.stdout}${run.stderr}`).not.toContain(password);
    expect(calls()).toBe(0);
  });

  it('a URL with a password: it appears in no output and in no byte of any report', async () => {
    const password = 'never-printed-7c1e';
    const env = { STATE_URL: db.urlWithPassword(password) };
    const ws = workspaceWith(inSchema('s_password'));

    const outputs = [
      await ws.run(['run', 'jobs.yaml', '--report-dir', 'first'], { env }),
      await ws.run(['run', 'jobs.yaml', '--report-dir', 'second', '--log-format', 'json', '--log-level', 'debug'], { env }),
      await ws.run(['run', 'jobs.yaml', '--dry-run', '--report-dir', 'dry'], { env }),
      await ws.run(['state', 'show', 'jobs.yaml', '--job', 'import'], { env }),
      await ws.run(['history', 'jobs.yaml', '--job', 'import', '--run', '1'], { env }),
      await ws.run(['state', 'prune', 'jobs.yaml', '--job', 'import', '--keep-runs', '1'], { env }),
      await ws.run(['validate', 'jobs.yaml'], { env }),
    ];

    for (const output of outputs) expectOk(output);
    for (const output of outputs) expect(`${output.stdout}${output.stderr}`).not.toContain(password);
    const files = filesUnder(ws.dir).filter((file) => !file.endsWith('jobs.yaml'));
    expect(files.some((file) => file.endsWith('import.summary.json'))).toBe(true);
    for (const file of files) expect({ file, holds: readFileSync(file).includes(password) }).toEqual({ file, holds: false });
  });
});

describe('state copy', () => {
  it('SQLite -> PostgreSQL: the next run makes the same calls it would have on the file (none), history and undo of a copied run work', async () => {
    const env = { STATE_URL: db.url() };
    const ws = workspaceWith(stateJob('state/import.db'));
    expectOk(await ws.run(['run', 'jobs.yaml', '--report-dir', 'first']));
    // Run 2 changes the email of 5 customers.
    ws.write('customers.csv', customersCsv(20, (i, cells) => (i % 4 === 0 ? [...cells.slice(0, 3), `moved${i}@example.com`, ...cells.slice(4)] : cells)));
    expectOk(await ws.run(['run', 'jobs.yaml', '--report-dir', 'second']));
    expect(ws.summary('import', 'second').rows).toMatchObject({ updated: 5 });
    ws.write('pg.yaml', jobsYaml({ url: emulator.url, job: inSchema('s_copy_in') }));
    emulator.resetCounters(TOKEN);

    const copy = await ws.run(['state', 'copy', 'pg.yaml', '--job', 'import', '--from', 'state/import.db'], { env });

    expectOk(copy);
    expect(copy.stdout).toMatch(/^job "import": copied 20 keys, 2 runs, \d+ change lines and 0 messages from .*state\/import\.db to postgres:\/\/\S+/m);
    const rerun = await ws.run(['run', 'pg.yaml', '--report-dir', 'on-postgres'], { env });
    expectOk(rerun);
    expect(calls()).toBe(0);
    expect(ws.summary('import', 'on-postgres').rows).toMatchObject({ total: 20, unchanged: 20 });

    const history = await ws.run(['history', 'pg.yaml', '--job', 'import', '--run', '2'], { env });
    expectOk(history);
    expect(history.stdout.match(/ update \(before not read: the state store's\): email "user\d+@example\.com" -> "moved\d+@example\.com"$/gm)).toHaveLength(5);
    // Run 2 wrote by what the state knew (no read): --force puts its values back.
    const undo = await ws.run(['undo', 'pg.yaml', '--job', 'import', '--run', '2', '--force', '--report-dir', 'undo'], { env });
    expectOk(undo);
    expect(undo.stdout).toMatch(/undo of run 2: 5 contacts; 5 put back/);
    const emails = emulator.contacts(TOKEN).map((contact) => contact.custom_fields.email ?? '');
    expect(emails.filter((email) => email.startsWith('moved'))).toEqual([]);

    const again = await ws.run(['state', 'copy', 'pg.yaml', '--job', 'import', '--from', 'state/import.db'], { env });
    expect(again.exitCode).toBe(2);
    expect(again.stderr).toMatch(/already holds state of job "import"; add --replace/);
    const replaced = await ws.run(['state', 'copy', 'pg.yaml', '--job', 'import', '--from', 'state/import.db', '--replace'], { env });
    expectOk(replaced);
    expect(replaced.stdout).toContain('(replacing what it held)');
  }, 60_000);

  it('PostgreSQL -> SQLite: the next run on the file makes no call; a source holding nothing is refused', async () => {
    const env = { STATE_URL: db.url() };
    const ws = workspaceWith(inSchema('s_copy_out'));
    expectOk(await ws.run(['run', 'jobs.yaml', '--report-dir', 'first'], { env }));
    ws.write('file.yaml', jobsYaml({ url: emulator.url, job: stateJob('state/copied.db') }));
    emulator.resetCounters(TOKEN);

    const copy = await ws.run(['state', 'copy', 'file.yaml', '--job', 'import', '--from', db.url(), '--from-schema', 's_copy_out']);

    expectOk(copy);
    expect(copy.stdout).toMatch(/^job "import": copied 20 keys, 1 run, \d+ change lines and 0 messages from postgres:\/\/\S+ .*to .*state\/copied\.db/m);
    const rerun = await ws.run(['run', 'file.yaml', '--report-dir', 'on-file']);
    expectOk(rerun);
    expect(calls()).toBe(0);
    expect(ws.summary('import', 'on-file').rows).toMatchObject({ total: 20, unchanged: 20 });

    const empty = await ws.run(['state', 'copy', 'file.yaml', '--job', 'import', '--from', db.url(), '--from-schema', 's_nothing_here', '--replace']);
    expect(empty.exitCode).toBe(2);
    expect(empty.stderr).toMatch(/holds nothing of job "import"/);
    // The source is only read: a schema that was not there is not made by asking it.
    expect(await pgQuery(database.name, `SELECT nspname FROM pg_namespace WHERE nspname = 's_nothing_here'`)).toEqual([]);
    const missing = await ws.run(['state', 'copy', 'file.yaml', '--job', 'import', '--from', 'no-such.db']);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toMatch(/state copy --from: no file at .*no-such\.db/);
    const bad = await ws.run(['state', 'copy', 'file.yaml', '--job', 'import', '--from', 'mysql://root:pw-zz@db/crm']);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/state copy --from: the value is a mysql:\/\/ URL/);
    expect(bad.stderr).not.toContain('pw-zz');
    expect(calls()).toBe(0);
  }, 60_000);
});
