/**
 * Secrets: the channel token comes from the environment (or a file the config names) and its text
 * never appears in any output, log line, report, state file or error message, on every path a
 * run can take: rows failing in the reader, the mapper and on the platform (403), retries after
 * 500s, 429s and dropped or reset connections, creates and sends whose answer was lost, a refused
 * token (401), config errors (a syntax error on the token's own line included), a missing input,
 * a dry run, validate and the embedded emulator, all with `--log-format json --log-level debug`.
 * Report and state files are created readable by their owner only.
 */
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { workspace, type CliRun, type Workspace } from '../helpers/cli-harness.js';
import { csvLines } from '../helpers/integration-fixtures.js';

/** Distinctive, so a match anywhere is a leak and nothing else. */
const SECRET = 'Tk-7Qv93LmZp-reliability-5e0c';
const SECRET_FROM_FILE = 'Tk-FileB0rn-reliability-81aa';
const WRONG = 'Tk-Wr0ng-reliability-3d9f';
const SECRETS = [SECRET, SECRET_FROM_FILE, WRONG];

const DEBUG_JSON = ['--log-format', 'json', '--log-level', 'debug'];

/** Files that hold a secret on purpose: the token file, and jobs files that write one literally. */
const HOLDS_A_SECRET_ON_PURPOSE = new Set(['secrets/token.txt', 'jobs-literal-token.yaml', 'jobs-literal-token-syntax-error.yaml']);

function jobsFile(url: string, extra = ''): string {
  return `connections:
  main:
    baseUrl: ${url}
    token: \${CHANNEL_TOKEN}
    rateLimits: { contacts: 60000/min, messages: 1000/s }
  filed:
    baseUrl: ${url}
    tokenFile: secrets/token.txt
    rateLimits: { contacts: 60000/min, messages: 1000/s }
jobs:
  - name: messy
    connection: main
    input: messy.csv
    key: { column: customer_id, field: customerid }
    fields:
      firstName: first_name
      email: { column: email, transform: [email] }
      loyaltyTier: loyalty_tier
    tags: { column: segments, static: [crm] }
    message: { when: changed, text: "Hello {{first_name}}" }
    state: state/messy.db
    concurrency: 4
  - name: from-file
    connection: filed
    input: clean.csv
    key: { column: customer_id, field: customerid }
    fields: { firstName: first_name }
    state: state/from-file.db
${extra}`;
}

/** Every way a row can fail before the platform, and rows the platform refuses (loyalty_tier). */
const MESSY_CSV = csvLines([
  'customer_id,first_name,email,segments,loyalty_tier',
  'C01,Ann,ann@example.com,vip,',
  'C02,Bob,not-an-email,,',
  ',Nobody,nobody@example.com,,',
  'C04,"Dee,dee@example.com,,',
  'C05,Eve,eve@example.com,vip,gold',
  'C06,Fay,fay@example.com,,',
  'C07,Gus,gus@example.com,,',
  'C08,Hal,hal@example.com,vip;news,',
  'C09,Ivy,ivy@example.com,,',
  'C10,Jon,jon@example.com,,',
  'C11,Kim,kim@example.com,,',
  'C12,Lou,lou@example.com,,silver',
]);

const CLEAN_CSV = csvLines(['customer_id,first_name', 'F1,Ann', 'F2,Bob', 'F3,Cid']);

/** Every file under `dir`, as paths relative to it. */
function filesUnder(dir: string, base = dir): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(path, base) : [relative(base, path)];
  });
}

function modeOf(path: string): string {
  return (statSync(path).mode & 0o777).toString(8);
}

describe('the channel token never leaks, on any path of a run', () => {
  let emulator: RunningEmulator;
  let ws: Workspace;
  const runs: Array<{ argv: string; run: CliRun }> = [];

  beforeAll(async () => {
    // Only the spec's fields exist in this workspace (loyaltyTier is refused with a 403), and a
    // quarter of the calls fail at random (seeded).
    emulator = await startEmulator({
      channels: [{ token: SECRET }, { token: SECRET_FROM_FILE }],
      rateLimits: false,
      allowedFields: [],
      faults: { serverError: 0.1, rateLimited: 0.03, dropConnection: 0.04, resetConnection: 0.04, createCommitThenDrop: 0.2, sendCommitThenDrop: 0.3 },
      seed: 42,
    });
    ws = workspace();
    ws.write('messy.csv', MESSY_CSV);
    ws.write('clean.csv', CLEAN_CSV);
    // The token file lives in a folder of its own, with a trailing line break the loader trims.
    mkdirSync(join(ws.dir, 'secrets'));
    writeFileSync(join(ws.dir, 'secrets', 'token.txt'), `${SECRET_FROM_FILE}\n`);
  });

  afterAll(async () => {
    await emulator.close();
  });

  const run = async (argv: string[], env: Record<string, string> = { CHANNEL_TOKEN: SECRET }): Promise<CliRun> => {
    const result = await ws.run([...argv, ...DEBUG_JSON], { env });
    runs.push({ argv: argv.join(' '), run: result });
    return result;
  };

  it('a run through failing rows, a 403, retries, lost answers and unknown sends, then again (state store), then a dry run and validate', async () => {
    ws.write('jobs.yaml', jobsFile(emulator.url));

    const first = await run(['run', 'jobs.yaml', '--report-dir', 'first']);
    expect(first.exitCode).toBe(1);
    const codes = new Set(ws.results('messy', 'first').map((row) => row.error_code));
    for (const code of ['INVALID_EMAIL', 'KEY_MISSING', 'CSV_UNCLOSED_QUOTE', 'FORBIDDEN']) expect(codes).toContain(code);
    expect(ws.summary('messy', 'first').retries).toBeGreaterThan(0);
    // The debug path was taken: a line per request, and retries logged.
    expect(first.stderr).toContain('"msg":"api request"');
    expect(first.stderr).toContain('"msg":"api call retried"');
    // The job that reads its token from a file worked with it.
    expect(ws.summary('from-file', 'first').rows).toMatchObject({ created: 3, failed: 0 });

    expect((await run(['run', 'jobs.yaml', '--report-dir', 'second'])).exitCode).toBe(1);
    expect((await run(['run', 'jobs.yaml', '--report-dir', 'dry', '--dry-run'])).exitCode).toBe(1);
    expect((await run(['validate', 'jobs.yaml'])).exitCode).toBe(1);
  }, 60_000);

  it('a refused token (401): exit 3', async () => {
    ws.write('jobs.yaml', jobsFile(emulator.url));
    expect((await run(['run', 'jobs.yaml', '--job', 'messy', '--report-dir', 'refused'], { CHANNEL_TOKEN: WRONG })).exitCode).toBe(3);
  });

  it('config errors, a missing input and a token that is not a header value: exit 2 or 3', async () => {
    ws.write('jobs-unknown-key.yaml', jobsFile(emulator.url, '    onDuplicat: oldest\n'));
    ws.write('jobs-missing-input.yaml', jobsFile(emulator.url).replace('input: clean.csv', 'input: nowhere.csv'));
    // A token written in the file loads with a warning; a syntax error on its line is shown without it.
    ws.write('jobs-literal-token.yaml', jobsFile(emulator.url).replace('token: ${CHANNEL_TOKEN}', `token: ${SECRET}`));
    ws.write('jobs-literal-token-syntax-error.yaml', jobsFile(emulator.url).replace('token: ${CHANNEL_TOKEN}', `token: "${SECRET}`));

    expect((await run(['run', 'jobs-unknown-key.yaml', '--report-dir', 'config'])).exitCode).toBe(2);
    expect((await run(['run', 'jobs-missing-input.yaml', '--job', 'from-file', '--report-dir', 'missing'])).exitCode).toBe(2);
    expect((await run(['validate', 'jobs-literal-token.yaml'])).exitCode).toBe(1);
    expect((await run(['run', 'jobs-literal-token-syntax-error.yaml'])).exitCode).toBe(2);
    // A space inside the token: refused before any call, never echoed.
    expect([2, 3]).toContain((await run(['run', 'jobs.yaml', '--job', 'messy', '--report-dir', 'spaced'], { CHANNEL_TOKEN: `${SECRET} x` })).exitCode);
  });

  it('the embedded emulator (--emulator) with the same jobs', async () => {
    ws.write('jobs.yaml', jobsFile(emulator.url));
    expect((await run(['run', 'jobs.yaml', '--report-dir', 'embedded', '--emulator'])).exitCode).toBe(1);
  });

  it('no output, log line, report, state file or error message of any of those runs holds a token', () => {
    expect(runs.length).toBeGreaterThanOrEqual(11);
    for (const { argv, run: result } of runs) {
      for (const secret of SECRETS) {
        expect({ argv, leaked: result.stdout.includes(secret) || result.stderr.includes(secret) }).toEqual({ argv, leaked: false });
      }
    }
    const files = filesUnder(ws.dir).filter((file) => !HOLDS_A_SECRET_ON_PURPOSE.has(file));
    expect(files.filter((file) => file.endsWith('.db'))).toHaveLength(2);
    expect(files.filter((file) => file.endsWith('.results.csv')).length).toBeGreaterThanOrEqual(6);
    for (const file of files) {
      const bytes = readFileSync(join(ws.dir, file));
      for (const secret of SECRETS) expect({ file, leaked: bytes.includes(secret) }).toEqual({ file, leaked: false });
    }
  });

  it('report and state files are created readable by their owner only', () => {
    const files = filesUnder(ws.dir).filter((file) => /\.(results\.csv|rejected\.csv|summary\.json|db|db-wal|db-shm)$/.test(file));
    expect(files.length).toBeGreaterThanOrEqual(20);
    expect(files.filter((file) => modeOf(join(ws.dir, file)) !== '600')).toEqual([]);
    expect(modeOf(join(ws.dir, 'first'))).toBe('700');
  });
});
