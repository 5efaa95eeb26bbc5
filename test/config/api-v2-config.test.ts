/** `connections.<name>.api: v2` and the keys of one surface only (docs/configuration.md, "API v1 or v2"). */
import { loadJobsFile } from '../../src/config/index.js';
import { createTempJobsDir, expectCode, loadError } from './temp-jobs-dir.js';
import type { TempJobsDir } from './temp-jobs-dir.js';

const env = { CHANNEL_TOKEN: 'secret-token' };

let temp: TempJobsDir;
beforeEach(async () => {
  temp = await createTempJobsDir();
});
afterEach(async () => {
  await temp.close();
});

function jobsFile(connection: string, job = ''): string {
  return [
    'connections:',
    '  main:',
    '    token: ${CHANNEL_TOKEN}',
    connection.replace(/^/gm, '    '),
    'jobs:',
    '  - name: a',
    '    connection: main',
    '    input: a.csv',
    '    key: { column: id, field: customerid }',
    ...(job === '' ? [] : [job.replace(/^/gm, '    ')]),
    '',
  ].join('\n');
}

async function issuesOf(text: string): Promise<Array<{ path: string; message: string }>> {
  const error = await loadError(await temp.write('jobs.yaml', text), env);
  expectCode(error, 'CONFIG_INVALID');
  return error.issues.map(({ path, message }) => ({ path, message }));
}

describe('api: v1 | v2', () => {
  test('v2 loads with its organisation (default the connection\'s name) and channelId; v1 is the default', async () => {
    const v2 = await loadJobsFile(await temp.write('v2.yaml', jobsFile('baseUrl: https://api.respond.io/v2\napi: v2\nchannelId: 3')), { env });
    expect(v2.jobsFile.jobs[0]!.connection).toMatchObject({ api: 'v2', organisation: 'main', channelId: 3, baseUrl: 'https://api.respond.io/v2' });
    const named = await loadJobsFile(await temp.write('named.yaml', jobsFile('baseUrl: https://api.respond.io/v2\napi: v2\norganisation: acme\nchannelId: null')), { env });
    expect(named.jobsFile.jobs[0]!.connection).toMatchObject({ organisation: 'acme', channelId: null });
    const own = await loadJobsFile(await temp.write('own.yaml', jobsFile('baseUrl: https://api.respond.io/v2\napi: v2', 'message: { text: hi, channelId: null }')), { env });
    expect(own.jobsFile.jobs[0]!.message).toMatchObject({ channelId: null });
    expect(own.jobsFile.jobs[0]!.connection.channelId).toBeUndefined();
    const v1 = await loadJobsFile(await temp.write('v1.yaml', jobsFile('baseUrl: https://app.example.com/api')), { env });
    expect(v1.jobsFile.jobs[0]!.connection).toMatchObject({ api: 'v1', organisation: 'main' });
    expect(v1.jobsFile.jobs[0]!.connection.channelId).toBeUndefined();
  });

  test.each([
    [
      'a v2 baseUrl that is not the API root',
      'baseUrl: https://api.respond.io\napi: v2',
      '',
      [{ path: 'connections.main.baseUrl', message: "with api: v2 is the API's root, ending at /v2 as the platform's SDK has it (https://api.respond.io/v2); request paths /contact/... are appended to it" }],
    ],
    [
      'channelType on v2',
      'baseUrl: https://api.respond.io/v2\napi: v2\nchannelType: viber',
      '',
      [{ path: 'connections.main.channelType', message: "means nothing with api: v2 (a v2 token is a workspace's, and ids are never encoded); remove it" }],
    ],
    [
      'organisation and channelId on v1',
      'baseUrl: https://app.example.com/api\norganisation: acme\nchannelId: 2',
      '',
      [
        { path: 'connections.main.organisation', message: 'is used only with api: v2 (this connection speaks v1); add api: v2 or remove it' },
        { path: 'connections.main.channelId', message: 'is used only with api: v2 (this connection speaks v1); add api: v2 or remove it' },
      ],
    ],
    [
      'a v2 root on a v1 connection',
      'baseUrl: https://api.respond.io/v2',
      '',
      [{ path: 'connections.main.baseUrl', message: "ends with /v2, the root of the platform's API v2; add api: v2 to speak v2 with a workspace token, or write the v1 API root" }],
    ],
    [
      'a v2 job that sends without a channelId',
      'baseUrl: https://api.respond.io/v2\napi: v2',
      'message: { text: hi }',
      [
        {
          path: 'jobs[0].message',
          message: 'is sent through connection "main", which speaks api: v2: set this job\'s message.channelId or connections.main.channelId to the channel\'s number, or to null for the channel the contact last used (a contact just created has none)',
        },
      ],
    ],
    [
      'a job\'s message.channelId on a v1 connection',
      'baseUrl: https://app.example.com/api',
      'message: { text: hi, channelId: 2 }',
      [
        {
          path: 'jobs[0].message.channelId',
          message: 'is used only with api: v2, and connection "main" speaks v1 (a v1 token is one channel\'s, so its messages go out on that channel); remove it, or use a connection with api: v2',
        },
      ],
    ],
    [
      'a job\'s message.channelId that is not a channel number',
      'baseUrl: https://api.respond.io/v2\napi: v2',
      'message: { text: hi, channelId: 0 }',
      [{ path: 'jobs[0].message.channelId', message: '0 is too small; channelId must be a whole number from 1 to 2147483647' }],
    ],
    [
      'forceCancelSurvey on a v2 send',
      'baseUrl: https://api.respond.io/v2\napi: v2\nchannelId: 1',
      'message: { text: hi, forceCancelSurvey: true }',
      [{ path: 'jobs[0].message.forceCancelSurvey', message: 'has no counterpart on api: v2 (connection "main"): a v2 send cancels no survey; remove it' }],
    ],
    ['an unknown api', 'baseUrl: https://app.example.com/api\napi: v3', '', [{ path: 'connections.main.api', message: '"v3" is not one of v1, v2; did you mean "v1"?' }]],
  ])('%s is refused with its YAML path', async (_case, connection, job, expected) => {
    expect(await issuesOf(jobsFile(connection, job))).toEqual(expected);
  });
});
