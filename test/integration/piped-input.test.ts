/**
 * Inputs as exports arrive (issue 23, `../shared/DESIGN.md` "Watching unattended runs"): a gzipped
 * `input.path`, and `--input FILE|-` on run, validate and reconcile, `-` being a pipe. The same
 * rows give the same results.csv lines, byte for byte, whichever way they came in.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { countLines } from '../../src/cli/line-count.js';
import { CUSTOMERS_JOB, TOKEN, customersCsv, fastEmulator, jobsYaml, workspace, type Workspace } from '../helpers/cli-harness.js';
import { expectedCustomer } from '../helpers/state-fixtures.js';

let emulator: RunningEmulator;
/**
 * The temporary folder the commands of this file see (TMPDIR, read by os.tmpdir() at each call):
 * a folder of this file's own, so that the copies other test files' runs make beside it are not
 * counted as this file's leftovers.
 */
let temporary: string;
const systemTmpdir = process.env.TMPDIR;

beforeAll(() => {
  temporary = mkdtempSync(join(tmpdir(), 'piped-input-test-'));
  process.env.TMPDIR = temporary;
});

afterAll(() => {
  if (systemTmpdir === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = systemTmpdir;
  rmSync(temporary, { recursive: true, force: true });
});

beforeEach(async () => {
  emulator = await fastEmulator();
});

afterEach(async () => {
  await emulator.close();
});

/** Customers 1..20 on the platform; the file has 1..25 and a bad email on line 4 (customer 3). */
function setUp(job = CUSTOMERS_JOB): { ws: Workspace; csv: string } {
  emulator.loadContacts(
    TOKEN,
    Array.from({ length: 20 }, (_unused, index) => {
      const expected = expectedCustomer(index + 1);
      return { custom_fields: expected.fields, tags: expected.tags };
    }),
  );
  const csv = customersCsv(25, (i, cells) => (i === 3 ? [...cells.slice(0, 3), 'not-an-email', ...cells.slice(4)] : i === 7 ? [...cells.slice(0, 1), 'Renamed', ...cells.slice(2)] : cells));
  const ws = workspace();
  ws.write('customers.csv', csv);
  ws.write('jobs.yaml', jobsYaml({ url: emulator.url, job }));
  return { ws, csv };
}

/** results.csv's header and its lines in line order (rows finish, and are written, in the order their calls answer). */
function resultsBytes(ws: Workspace, dir: string): string {
  const [header, ...lines] = readFileSync(join(ws.dir, dir, 'import.results.csv'), 'utf8').trimEnd().split('\n');
  return [header, ...lines.sort((a, b) => Number.parseInt(a, 10) - Number.parseInt(b, 10))].join('\n');
}

/** The folders `--input -` left in the temporary folder (none once a command is done). */
const savedInputs = (): string[] => readdirSync(temporary).filter((name) => name.startsWith('contact-sync-input-'));

describe('a gzipped input and --input FILE|- give the results of the plain file', () => {
  it('dry runs of the file, its .gz, the file on a pipe and the .gz on a pipe write the same results.csv lines, byte for byte', async () => {
    const { ws, csv } = setUp();
    ws.write('customers.csv.gz', gzipSync(Buffer.from(csv)));
    ws.write('gz-jobs.yaml', readFileSync(join(ws.dir, 'jobs.yaml'), 'utf8').replace('input: customers.csv', 'input: customers.csv.gz'));

    const plain = await ws.run(['run', 'jobs.yaml', '--dry-run', '--report-dir', 'plain']);
    const gzipped = await ws.run(['run', 'gz-jobs.yaml', '--dry-run', '--report-dir', 'gzipped']);
    const piped = await ws.run(['run', 'jobs.yaml', '--dry-run', '--report-dir', 'piped', '--input', '-'], { stdin: csv });
    const pipedGzip = await ws.run(['run', 'jobs.yaml', '--dry-run', '--report-dir', 'piped-gzip', '--input', '-'], { stdin: gzipSync(Buffer.from(csv)) });

    for (const run of [plain, gzipped, piped, pipedGzip]) expect(run.exitCode).toBe(1);
    const expected = resultsBytes(ws, 'plain');
    // 25 rows: 5 creates, 1 update (customer 7), 1 failed (line 4), the rest unchanged.
    expect(ws.summary('import', 'plain').rows).toMatchObject({ total: 25, created: 5, updated: 1, failed: 1, unchanged: 18 });
    expect(resultsBytes(ws, 'gzipped')).toBe(expected);
    expect(resultsBytes(ws, 'piped')).toBe(expected);
    expect(resultsBytes(ws, 'piped-gzip')).toBe(expected);
    expect(readFileSync(join(ws.dir, 'piped', 'import.rejected.csv'), 'utf8')).toBe(readFileSync(join(ws.dir, 'plain', 'import.rejected.csv'), 'utf8'));
    expect(savedInputs()).toEqual([]);
  });

  it('a run from a pipe writes the platform as the file would, and a second run from the pipe finds nothing to do', async () => {
    const { ws, csv } = setUp(CUSTOMERS_JOB.replace('state: false', 'state: state/import.db'));

    const first = await ws.run(['run', 'jobs.yaml', '--job', 'import', '--report-dir', 'first', '--input', '-'], { stdin: gzipSync(Buffer.from(csv)) });
    const second = await ws.run(['run', 'jobs.yaml', '--job', 'import', '--report-dir', 'second', '--input', '-'], { stdin: csv });

    expect(first.exitCode).toBe(1);
    expect(ws.summary('import', 'first').rows).toMatchObject({ created: 5, updated: 1, failed: 1 });
    expect(emulator.contacts(TOKEN)).toHaveLength(25);
    expect(second.exitCode).toBe(1);
    expect(ws.summary('import', 'second').rows).toMatchObject({ created: 0, updated: 0, failed: 1 });
    expect(savedInputs()).toEqual([]);
  });

  it('--input FILE is read from the working folder, and validate names standard input in its problems', async () => {
    const { ws, csv } = setUp();
    ws.write('tonight.csv', csv.replace('user10@example.com', 'also-not-an-email'));

    const fromFile = await ws.run(['validate', 'jobs.yaml', '--input', 'tonight.csv']);
    const fromPipe = await ws.run(['validate', 'jobs.yaml', '--input', '-'], { stdin: csv });

    expect(fromFile.exitCode).toBe(1);
    expect(fromFile.stdout).toContain('tonight.csv:4: ');
    expect(fromFile.stdout).toContain('tonight.csv:11: ');
    expect(fromFile.stdout).toContain('import: 25 rows, 23 valid, 2 invalid');
    expect(fromPipe.exitCode).toBe(1);
    expect(fromPipe.stdout).toContain('standard input:4: ');
    expect(fromPipe.stdout).toContain('import: 25 rows, 24 valid, 1 invalid');
  });

  it('reconcile reads a pipe as it reads the job file, and writes nothing', async () => {
    const { ws, csv } = setUp();

    const fromFile = await ws.run(['reconcile', 'jobs.yaml', '--report-dir', 'file']);
    const fromPipe = await ws.run(['reconcile', 'jobs.yaml', '--report-dir', 'pipe', '--input', '-'], { stdin: gzipSync(Buffer.from(csv)) });

    expect(fromFile.exitCode).toBe(1);
    expect(fromPipe.exitCode).toBe(1);
    expect(readFileSync(join(ws.dir, 'pipe', 'import.diff.csv'), 'utf8')).toBe(readFileSync(join(ws.dir, 'file', 'import.diff.csv'), 'utf8'));
    expect(emulator.counters(TOKEN).byOperation.createContact?.received ?? 0).toBe(0);
  });
});

describe('inputs that cannot be read say which and what to do', () => {
  it('--input with several jobs selected is exit 2, naming them and --job', async () => {
    const { ws, csv } = setUp();
    ws.write('jobs.yaml', `${readFileSync(join(ws.dir, 'jobs.yaml'), 'utf8')}  - name: second\n    connection: main\n${CUSTOMERS_JOB.replace(/^/gm, '    ')}\n`);

    const run = await ws.run(['run', 'jobs.yaml', '--input', '-'], { stdin: csv });

    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain('--input replaces the input of one job, and 2 are selected (import, second); name that job with --job NAME');
    expect(emulator.counters(TOKEN).total.received).toBe(0);
  });

  it('--input - with no pipe is exit 2 with the way to pipe', async () => {
    const { ws } = setUp();

    const run = await ws.run(['run', 'jobs.yaml', '--input', '-']);

    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain('--input -: standard input is a terminal, not a pipe; pipe the CSV in');
  });

  it('a file named .gz that is not gzip is exit 2 before any call', async () => {
    const { ws, csv } = setUp();
    ws.write('customers.csv.gz', csv);

    const run = await ws.run(['run', 'jobs.yaml', '--input', 'customers.csv.gz']);

    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain("customers.csv.gz: the name ends in .gz but the file is not gzip (it does not start with gzip's bytes 1f 8b)");
    expect(emulator.counters(TOKEN).total.received).toBe(0);
  });

  it('a gzip file cut short is exit 2 before any call: the first read of the file (repeated keys) meets the break', async () => {
    const { ws } = setUp();
    const big = gzipSync(Buffer.from(customersCsv(3000)));
    ws.write('cut.csv.gz', big.subarray(0, Math.floor(big.length * 0.6)));

    const run = await ws.run(['run', 'jobs.yaml', '--input', 'cut.csv.gz', '--report-dir', 'cut']);

    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain('cut.csv.gz: the gzip data is damaged or cut short (unexpected end of file); compress the export again');
    expect(emulator.counters(TOKEN).total.received).toBe(0);
    expect(existsSync(join(ws.dir, 'cut'))).toBe(false);
  });

  it('an input that breaks mid-run (mode: message reads it once) aborts the job with INPUT_READ_FAILED, exit 3 and complete reports of the rows before the break', async () => {
    const { ws } = setUp();
    const contacts = emulator.contacts(TOKEN).map((contact) => contact.id);
    const ids = `contact_id\n${Array.from({ length: 3000 }, (_unused, i) => contacts[i % contacts.length]).join('\n')}\n`;
    const big = gzipSync(Buffer.from(ids));
    ws.write('ids.csv.gz', big.subarray(0, Math.floor(big.length * 0.6)));
    ws.write('jobs.yaml', jobsYaml({ url: emulator.url, job: 'input: ids.csv.gz\nmode: message\nstate: false\nmessage: { text: "Reminder", contactIdColumn: contact_id }' }));

    const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'cut']);

    expect(run.exitCode).toBe(3);
    const summary = ws.summary('import', 'cut') as ReturnType<Workspace['summary']> & { aborted?: { code: string; message: string } };
    expect(summary.aborted?.code).toBe('INPUT_READ_FAILED');
    expect(summary.aborted?.message).toContain('ids.csv.gz: the gzip data is damaged or cut short');
    const sent = summary.rows.total ?? 0;
    expect(sent).toBeGreaterThan(0);
    expect(sent).toBeLessThan(3000);
    // Every row taken is in results.csv and every message it reports sent was sent.
    expect(ws.results('import', 'cut')).toHaveLength(sent);
    expect(emulator.counters(TOKEN).byOperation.sendMessage?.received).toBe(sent);
    // A test's own bound: up to 3,000 sends in process took past the default 30 s at a load of 13 on 2 cores.
  }, 120_000);
});

describe('the progress estimate', () => {
  it('counts the lines of a gzip file as those of the file inside', async () => {
    const { ws, csv } = setUp();
    const path = ws.write('customers.csv.gz', gzipSync(Buffer.from(csv)));

    expect(await countLines(path)).toBe(26);
    expect(await countLines(join(ws.dir, 'customers.csv'))).toBe(26);
  });
});
