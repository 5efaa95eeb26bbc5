/**
 * `--emulator-seed FILE`: a seed file that cannot be used is the user's to fix: exit 2 naming the
 * file and what to write, before any row (not exit 3, as a bug would be).
 */
import { workspace } from '../helpers/cli-harness.js';

const JOBS = [
  'connections:',
  '  main:',
  '    baseUrl: http://127.0.0.1:9/api',
  '    token: ${CHANNEL_TOKEN}',
  'jobs:',
  '  - name: seeded',
  '    connection: main',
  '    input: customers.csv',
  '    key: { column: id, field: customerid }',
  '    state: false',
  '',
].join('\n');

describe('run --emulator --emulator-seed', () => {
  const ws = workspace();
  ws.write('jobs.yaml', JOBS);
  ws.write('customers.csv', 'id\nc-1\n');

  async function runWithSeed(seed: string): Promise<{ exitCode: number; stderr: string }> {
    ws.write('seed.json', seed);
    return ws.run(['run', 'jobs.yaml', '--emulator', '--emulator-seed', 'seed.json', '--report-dir', 'reports'], { env: { CHANNEL_TOKEN: 'seed-test-token' } });
  }

  it.each([
    ['malformed JSON', '{"main": [', /seed\.json: not valid JSON \(.+\); write \{"<connection name>": \[/],
    ['a list instead of an object', '[]', /seed\.json: must be an object keyed by connection name, .*got a list/],
    ['a key that is no connection', '{"mian": []}', /seed\.json: "mian" is not a connection of the selected jobs \(main\); key the seed by connection name/],
    ['a contact of the wrong shape', '{"main": [{"custom_fields": {"customerid": 7}}]}', /seed\.json: "main": contacts\[0\]\.custom_fields\.customerid must be a string/],
  ])('%s: exit 2 naming the file and the fix', async (_case, seed, message) => {
    const { exitCode, stderr } = await runWithSeed(seed);
    expect(stderr).toMatch(message);
    expect(exitCode).toBe(2);
  });

  it('a seed file that does not exist: exit 2 naming it', async () => {
    const { exitCode, stderr } = await ws.run(['run', 'jobs.yaml', '--emulator', '--emulator-seed', 'nope.json'], { env: { CHANNEL_TOKEN: 'seed-test-token' } });
    expect(stderr).toMatch(/--emulator-seed .*nope\.json: cannot be read \(ENOENT\); name a JSON file of contacts keyed by connection name/);
    expect(exitCode).toBe(2);
  });

  it('a good seed is loaded: the seeded key is found, not created', async () => {
    const { exitCode } = await runWithSeed('{"main": [{"custom_fields": {"customerid": "c-1"}}]}');
    expect(exitCode).toBe(0);
    expect(ws.summary('seeded').rows).toMatchObject({ created: 0, unchanged: 1 });
  });
});
