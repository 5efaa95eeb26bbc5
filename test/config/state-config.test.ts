/**
 * `state:` (issue 44): a file path, false, a postgres:// or postgresql:// URL (`${ENV}` allowed) or
 * {url, schema}. A value that looks like a URL is never taken for a file path; a refused one is
 * named by its YAML path and the accepted forms, and no message carries its password.
 */
import { loadJobsFile } from '../../src/config/index.js';
import { stateLocation, shownStateUrl } from '../../src/config/state-location.js';
import { CONNECTION, expectCode, loadError, tempJobsDirPerTest } from './temp-jobs-dir.js';

const PASSWORD = 'pw-s3cr3t-9f1b';
const env = { CHANNEL_TOKEN: 'secret-token', STATE_URL: `postgres://sync:${PASSWORD}@db.internal:5433/crm` };
const dir = tempJobsDirPerTest();

function jobs(...states: string[]): string {
  const list = states.map((state, index) => `  - name: job${index}\n    connection: main\n    input: a.csv\n    key: { column: id, field: customerid }\n${state === '' ? '' : `    state: ${state}\n`}`);
  return `${CONNECTION}jobs:\n${list.join('')}`;
}

async function stateOf(...states: string[]): Promise<unknown[]> {
  const { jobsFile } = await loadJobsFile(await dir().write('jobs.yaml', jobs(...states)), { env });
  return jobsFile.jobs.map((job) => job.state);
}

async function messagesOf(...states: string[]): Promise<string[]> {
  const error = await loadError(await dir().write('jobs.yaml', jobs(...states)), env);
  expectCode(error, 'CONFIG_INVALID');
  return error.issues.map(({ path, message }) => `${path}: ${message}`);
}

describe('state: the forms it takes', () => {
  test('a file path (resolved against the jobs file), the default, false, a URL, ${ENV} and {url, schema}', async () => {
    const states = await stateOf(
      'state/crm.db',
      '',
      'false',
      '"postgresql://sync@db.internal/crm"',
      '${STATE_URL}',
      '{ url: "${STATE_URL}", schema: crm_state }',
    );
    expect(states).toEqual([
      `${dir().dir}/state/crm.db`,
      `${dir().dir}/.contact-sync/job1.db`,
      false,
      { kind: 'postgres', url: 'postgresql://sync@db.internal/crm', schema: 'contact_sync' },
      { kind: 'postgres', url: env.STATE_URL, schema: 'contact_sync' },
      { kind: 'postgres', url: env.STATE_URL, schema: 'crm_state' },
    ]);
  });

  test('two jobs naming one database are fine (each its own identity there); two naming one file are not', async () => {
    expect(await stateOf('${STATE_URL}', '${STATE_URL}')).toHaveLength(2);
    expect(await messagesOf('shared.db', 'shared.db')).toEqual(['jobs[1].state: "shared.db" is also the state file of jobs[0]; give each job its own state file, or state: false']);
  });

  test.each([
    ['mysql://root@db/crm', 'mysql'],
    ['sqlite:///var/lib/crm.db', 'sqlite'],
    ['file:///var/lib/crm.db', 'file'],
    ['http://db.internal/crm', 'http'],
  ])('%s is refused, never taken for a file path', async (url, scheme) => {
    const [message] = await messagesOf(`"${url}"`);
    expect(message).toMatch(new RegExp(`^jobs\\[0\\]\\.state: is a ${scheme}:// URL, which no state store takes \\(a URL is never taken for a file path\\); write a file path .*false.*postgres://.*\\{url: postgres://\\.\\.\\., schema: contact_sync\\}$`));
  });

  test('a postgres URL that does not parse is refused without its password, wherever it is written', async () => {
    const broken = `postgres://sync:${PASSWORD}@db.internal:54x32/crm`;
    const messages = [
      ...(await messagesOf(`"${broken}"`)),
      ...(await messagesOf(`{ url: "${broken}" }`)),
      ...(await messagesOf(`{ url: "${broken}", schema: "1bad-name" }`)),
    ];
    expect(messages).toEqual([
      expect.stringMatching(/^jobs\[0\]\.state: is a postgres:\/\/ URL that does not parse \(the value is not shown: it may hold a password\); write postgres:\/\/USER:PASSWORD@HOST:PORT\/DATABASE/),
      expect.stringMatching(/^jobs\[0\]\.state\.url: is a postgres:\/\/ URL that does not parse/),
      expect.stringMatching(/^jobs\[0\]\.state\.url: is a postgres:\/\/ URL that does not parse/),
      'jobs[0].state.schema: "1bad-name" is not a schema name; use lower-case letters, digits and "_" (not starting with a digit, at most 63), e.g. contact_sync',
    ]);
    expect(messages.join('\n')).not.toContain(PASSWORD);
  });

  test('{url} that is not a URL, and an unknown key, are named with the fix', async () => {
    expect(await messagesOf('{ url: crm.db }', '{ url: "${STATE_URL}", table: x }')).toEqual([
      'jobs[0].state.url: is not a postgres:// URL (the value is not shown: it may hold a password); write postgres://USER:PASSWORD@HOST:PORT/DATABASE',
      'jobs[1].state.table: unknown key "table"; remove it; the keys here are url, schema',
    ]);
  });

  test('where the state lives, in words, never shows the password', () => {
    expect(shownStateUrl(env.STATE_URL)).toBe('postgres://sync@db.internal:5433/crm');
    expect(shownStateUrl(`postgres://db.internal/crm?password=${PASSWORD}&sslmode=require`)).toBe('postgres://db.internal/crm?password=&sslmode=require');
    expect(stateLocation({ kind: 'postgres', url: env.STATE_URL, schema: 'crm_state' })).toBe('postgres://sync@db.internal:5433/crm#crm_state');
    expect(stateLocation('/srv/crm.db')).toBe('/srv/crm.db');
    expect(stateLocation(false)).toBe('');
  });
});
