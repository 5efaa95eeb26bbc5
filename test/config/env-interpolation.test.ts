import { loadJobsFile } from '../../src/config/index.js';
import { createTempJobsDir, expectCode, loadError } from './temp-jobs-dir.js';
import type { TempJobsDir } from './temp-jobs-dir.js';

let temp: TempJobsDir;
beforeEach(async () => {
  temp = await createTempJobsDir();
});
afterEach(async () => {
  await temp.close();
});

const JOB = `jobs:\n  - { name: a, connection: main, input: a.csv, key: { column: id, field: customerid } }\n`;

function file(connection: string, job = JOB): string {
  return `connections:\n  main:\n${connection.replace(/^/gm, '    ')}\n${job}`;
}

describe('${VAR} interpolation and the token', () => {
  test('${VAR} takes its value from the injected environment', async () => {
    const path = await temp.write('jobs.yaml', file('baseUrl: ${API_URL}\ntoken: ${CHANNEL_TOKEN}'));
    const { jobsFile, warnings } = await loadJobsFile(path, { env: { API_URL: 'https://api.example.com/', CHANNEL_TOKEN: ' tok#en:x#1 ' } });
    expect(jobsFile.connections.main).toMatchObject({ baseUrl: 'https://api.example.com', token: 'tok#en:x#1' });
    expect(warnings).toEqual([]);
  });

  test('a missing variable is an issue naming the variable and the YAML path, reported once', async () => {
    const path = await temp.write('jobs.yaml', file('baseUrl: ${API_URL}\ntoken: ${CHANNEL_TOKEN}'));
    const error = await loadError(path, { API_URL: '' });
    expectCode(error, 'CONFIG_INVALID');
    expect(error.issues).toEqual([
      {
        path: 'connections.main.baseUrl',
        message: 'environment variable API_URL is not set (${API_URL} has no default); set API_URL in the environment, or give a default: ${API_URL:-value}',
        line: 3,
        column: 5,
      },
      {
        path: 'connections.main.token',
        message:
          'environment variable CHANNEL_TOKEN is not set (${CHANNEL_TOKEN} has no default); set CHANNEL_TOKEN in the environment, or name a file holding the token with tokenFile:',
        line: 4,
        column: 5,
      },
    ]);
  });

  test('${VAR:-default} uses the default when the variable is unset or empty, and the variable otherwise', async () => {
    const path = await temp.write(
      'jobs.yaml',
      file('baseUrl: ${API_URL:-http://127.0.0.1:4010/api}\ntoken: ${CHANNEL_TOKEN:-demo-token}\nrateLimits:\n  contacts: ${CONTACTS_RATE:-100/min}'),
    );
    const unset = await loadJobsFile(path, { env: { CHANNEL_TOKEN: '' } });
    expect(unset.jobsFile.connections.main).toMatchObject({
      baseUrl: 'http://127.0.0.1:4010/api',
      token: 'demo-token',
      rateLimits: { contacts: { limit: 100, periodMs: 60_000 } },
    });
    const set = await loadJobsFile(path, { env: { API_URL: 'https://x.example.com', CONTACTS_RATE: '200/min' } });
    expect(set.jobsFile.connections.main).toMatchObject({ baseUrl: 'https://x.example.com', rateLimits: { contacts: { limit: 200 } } });
  });

  test('variables fill numbers and booleans, in any string of the file', async () => {
    const job = `jobs:
  - name: \${JOB_NAME:-nightly}
    connection: main
    input: \${INPUT_DIR:-exports}/customers.csv
    key: { column: id, field: customerid }
    concurrency: \${CONCURRENCY:-4}
    fields:
      source: { value: "\${SOURCE:-crm}-\${REGION:-sg}" }
`;
    const path = await temp.write('jobs.yaml', file('baseUrl: http://crm.internal/api\ntoken: ${CHANNEL_TOKEN:-t}\nallowInsecure: ${ALLOW_HTTP:-false}', job));
    const { jobsFile } = await loadJobsFile(path, { env: { ALLOW_HTTP: 'true', REGION: 'eu' } });
    const loaded = jobsFile.jobs[0]!;
    expect(jobsFile.connections.main!.allowInsecure).toBe(true);
    expect(loaded.name).toBe('nightly');
    expect(loaded.concurrency).toBe(4);
    expect(loaded.input.path).toBe(`${temp.dir}/exports/customers.csv`);
    expect(loaded.fields[0]!.source).toEqual({ kind: 'value', value: 'crm-eu' });

    const refused = await loadError(path, { CONCURRENCY: 'many' });
    expect(refused.issues.map((issue) => issue.path)).toEqual(['connections.main.baseUrl', 'jobs[0].concurrency']);
  });

  test('$${ is a literal "${", and a malformed reference is an issue', async () => {
    const job = `jobs:
  - name: a
    connection: main
    input: a.csv
    key: { column: id, field: customerid }
    fields:
      note: { value: "costs $\${PRICE}" }
      bad: { value: "\${not a name}" }
`;
    const error = await loadError(await temp.write('jobs.yaml', file('baseUrl: https://x.example.com\ntoken: ${T:-t}', job)));
    expect(error.issues).toEqual([
      expect.objectContaining({
        path: 'jobs[0].fields.bad.value',
        message: '"${not a name}" is not a variable reference; write ${NAME} or ${NAME:-default} with NAME made of letters, digits and _, or $${ for a literal "${"',
      }),
    ]);
    const fixed = await temp.write('fixed.yaml', file('baseUrl: https://x.example.com\ntoken: ${T:-t}', job.replace(/ {6}bad:.*\n/, '')));
    const { jobsFile } = await loadJobsFile(fixed, { env: {} });
    expect(jobsFile.jobs[0]!.fields[0]!.source).toEqual({ kind: 'value', value: 'costs ${PRICE}' });
  });

  test('a token written in the file loads, with a warning that says to move it to the environment', async () => {
    const path = await temp.write('jobs.yaml', file('baseUrl: https://x.example.com\ntoken: abc123secret'));
    const { jobsFile, warnings } = await loadJobsFile(path, { env: {} });
    expect(jobsFile.connections.main!.token).toBe('abc123secret');
    expect(warnings).toEqual([
      `${path}: connections.main.token: is written in the file; put it in an environment variable: token: \${CHANNEL_TOKEN} (line 4)`,
    ]);
  });

  test('a connection needs exactly one of token and tokenFile', async () => {
    const none = await loadError(await temp.write('none.yaml', file('baseUrl: https://x.example.com')));
    expect(none.issues).toEqual([
      expect.objectContaining({ path: 'connections.main.token', message: 'is missing; add token: ${CHANNEL_TOKEN} (or tokenFile: a file holding the token)' }),
    ]);
    const both = await loadError(await temp.write('both.yaml', file('baseUrl: https://x.example.com\ntoken: ${T:-t}\ntokenFile: t.txt')));
    expect(both.issues).toEqual([expect.objectContaining({ path: 'connections.main.tokenFile', message: 'token and tokenFile are both given; keep one of them' })]);
  });

  test('a baseUrl ending in /v1 loads with a warning naming the API root to write', async () => {
    const path = await temp.write('jobs.yaml', file('baseUrl: https://x.example.com/api/v1/\ntoken: ${T:-t}'));
    const { warnings } = await loadJobsFile(path, { env: {} });
    expect(warnings).toEqual([
      `${path}: connections.main.baseUrl: ends with /v1, and request paths already start with /v1/; write the API root: https://x.example.com/api (line 3)`,
    ]);
  });
});
