import { mkdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadJobsFile } from '../../src/config/index.js';
import type { Job } from '../../src/config/index.js';
import { CONNECTION, createTempJobsDir, expectCode, loadError } from './temp-jobs-dir.js';
import type { TempJobsDir } from './temp-jobs-dir.js';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const env = { CHANNEL_TOKEN: 'secret-token' };

let temp: TempJobsDir;
beforeEach(async () => {
  temp = await createTempJobsDir();
});
afterEach(async () => {
  await temp.close();
});

describe('loadJobsFile', () => {
  test('a complete job loads into the normalised Job: defaults applied, paths resolved, rates parsed', async () => {
    const path = await temp.write(
      'jobs.yaml',
      `${CONNECTION}    channelType: viber
    rateLimits: { contacts: 200/min, messages: 10/sec }
jobs:
  - name: crm-nightly
    connection: main
    input: { path: exports/customers.csv, delimiter: "\\t", encoding: latin1 }
    key: { column: customer_id, field: customerid }
    mode: update
    onDuplicate: newest
    fields:
      firstName: first_name
      email: { column: email, transform: [lowercase, email] }
      phone: { column: phone, transform: { phone: { defaultCountry: sg } }, trim: false, default: unknown }
      gender: { column: gender, transform: [{ map: { M: male, F: female, 1: true } }] }
      source: { value: crm }
      fullName: { template: "{{ first_name }} {{last_name}} {{first_name}}" }
    emptyValues: clear
    tags: { column: segments, separator: "|", static: [crm, crm], remove: [lead] }
    match: { prefetch: { field: source, value: crm } }
    message: { text: "Hi {{first_name}}", when: changed }
    state: state/crm.db
    concurrency: 4
    maxErrors: 2.5%
`,
    );
    const { jobsFile, warnings } = await loadJobsFile(path, { env });

    expect(warnings).toEqual([]);
    expect(jobsFile.path).toBe(path);
    const connection = jobsFile.connections.main;
    expect(connection).toEqual({
      name: 'main',
      baseUrl: 'https://app.example.com/api',
      token: 'secret-token',
      channelType: 'viber',
      api: 'v1',
      organisation: 'main',
      rateLimits: { contacts: { limit: 200, periodMs: 60_000 }, messages: { limit: 10, periodMs: 1_000 } },
      allowInsecure: false,
      timeouts: { requestMs: 30_000, maxPages: 1000, maxRetryAfterMs: 120_000, unavailableAfterAttempts: 20, unavailableAfterMs: 300_000 },
    });
    const expected: Job = {
      name: 'crm-nightly',
      connection: connection!,
      input: { path: join(temp.dir, 'exports/customers.csv'), delimiter: '\t', encoding: 'latin1' },
      key: { column: 'customer_id', field: 'customerid' },
      mode: 'update',
      onDuplicate: 'newest',
      onDuplicateRows: 'last',
      fields: [
        { name: 'firstName', source: { kind: 'column', column: 'first_name' }, transforms: [{ kind: 'trim' }] },
        {
          name: 'email',
          source: { kind: 'column', column: 'email' },
          transforms: [{ kind: 'trim' }, { kind: 'lowercase' }, { kind: 'email' }],
        },
        {
          name: 'phone',
          source: { kind: 'column', column: 'phone' },
          transforms: [{ kind: 'phone', defaultCountry: 'SG' }],
          default: 'unknown',
        },
        {
          name: 'gender',
          source: { kind: 'column', column: 'gender' },
          transforms: [{ kind: 'trim' }, { kind: 'map', map: { M: 'male', F: 'female', '1': 'true' } }],
        },
        { name: 'source', source: { kind: 'value', value: 'crm' }, transforms: [] },
        {
          name: 'fullName',
          source: { kind: 'template', template: '{{ first_name }} {{last_name}} {{first_name}}', columns: ['first_name', 'last_name'] },
          transforms: [{ kind: 'trim' }],
        },
      ],
      emptyValues: 'clear',
      tags: { column: 'segments', separator: '|', static: ['crm'], remove: ['lead'], prune: false },
      match: { prefetch: { field: 'source', value: 'crm' } },
      message: { when: 'changed', type: 'text', text: 'Hi {{first_name}}', quickReplies: [], forceCancelSurvey: false, repeat: false },
      state: join(temp.dir, 'state/crm.db'),
      concurrency: 4,
      maxErrors: { percent: 2.5 },
    };
    expect(jobsFile.jobs).toEqual([expected]);
    expect(jobsFile.jobs[0]!.connection).toBe(connection);
  });

  test('a minimal job gets every default, and the input path shorthand', async () => {
    const path = await temp.write(
      'jobs.yaml',
      `${CONNECTION}jobs:
  - name: minimal
    connection: main
    input: customers.csv
    key: { column: id, field: customerid }
`,
    );
    const { jobsFile } = await loadJobsFile(path, { env });
    const job = jobsFile.jobs[0]!;
    expect(jobsFile.connections.main!.rateLimits).toEqual({ contacts: { limit: 100, periodMs: 60_000 }, messages: { limit: 25, periodMs: 1_000 } });
    expect(jobsFile.connections.main!.channelType).toBe('generic');
    expect(job).toMatchObject({
      input: { path: join(temp.dir, 'customers.csv'), delimiter: 'auto', encoding: 'utf-8' },
      mode: 'upsert',
      onDuplicate: 'fail',
      fields: [],
      emptyValues: 'ignore',
      tags: { separator: ';', static: [], remove: [] },
      match: {},
      state: join(temp.dir, '.contact-sync/minimal.db'),
      concurrency: 8,
    });
    expect(job.message).toBeUndefined();
    expect(job.maxErrors).toBeUndefined();
  });

  test('top-level x- keys hold YAML anchors: ignored themselves, reused by the jobs, checked where used', async () => {
    const path = await temp.write(
      'jobs.yaml',
      `x-defaults: &defaults
  connection: main
  key: { column: id, field: customerid }
  concurrency: 3
x-notes: anything at all, even \${UNSET_VARIABLE}
${CONNECTION}jobs:
  - <<: *defaults
    name: one
    input: one.csv
  - <<: *defaults
    name: two
    input: two.csv
    concurrency: 2
`,
    );
    const { jobsFile, warnings } = await loadJobsFile(path, { env });
    expect(warnings).toEqual([]);
    expect(jobsFile.jobs.map((job) => [job.name, job.concurrency, job.key])).toEqual([
      ['one', 3, { column: 'id', field: 'customerid' }],
      ['two', 2, { column: 'id', field: 'customerid' }],
    ]);

    // What an anchor holds is checked where a job uses it, on that job's path.
    const wrong = await temp.write('wrong.yaml', `x-defaults: &defaults\n  concurency: 3\n${CONNECTION}jobs:\n  - <<: *defaults\n    name: one\n    connection: main\n    input: one.csv\n    key: { column: id, field: customerid }\n`);
    const error = await loadError(wrong, env);
    expect(error.issues.map((issue) => `${issue.path}: ${issue.message}`)).toEqual(['jobs[0].concurency: unknown key "concurency"; did you mean "concurrency"?']);

    // Another unknown top-level key is refused, and the message names the x- form.
    const other = await temp.write('other.yaml', `defaults: {}\n${CONNECTION}jobs:\n  - { name: one, connection: main, input: one.csv, key: { column: id, field: customerid } }\n`);
    const refused = await loadError(other, env);
    expect(refused.issues.map((issue) => issue.message)).toEqual([
      'unknown key "defaults"; remove it; the keys here are connections, jobs, metrics, retention, privacy, and any key starting with x- (ignored: a place for YAML anchors, x-defaults: &defaults)',
    ]);
  });

  test('mode: message with message.contactIdColumn needs no key, and state: false keeps no state', async () => {
    const path = await temp.write(
      'jobs.yaml',
      `${CONNECTION}jobs:
  - name: broadcast
    connection: main
    input: ids.csv
    mode: message
    message: { type: image, url: "https://cdn.example.com/{{photo}}.png", contactIdColumn: contact_id, repeat: true }
    state: false
    maxErrors: 10
`,
    );
    const { jobsFile } = await loadJobsFile(path, { env });
    const job = jobsFile.jobs[0]!;
    expect(job.key).toEqual({ column: 'contact_id', field: '' });
    expect(job.message).toEqual({
      when: 'created',
      type: 'image',
      url: 'https://cdn.example.com/{{photo}}.png',
      quickReplies: [],
      forceCancelSurvey: false,
      repeat: true,
      contactIdColumn: 'contact_id',
    });
    expect(job.state).toBe(false);
    expect(job.maxErrors).toEqual({ count: 10 });
  });

  test('more than 30 mapped fields are accepted (the planner chunks them)', async () => {
    const fields = Array.from({ length: 45 }, (_, i) => `      field${i}: column${i}\n`).join('');
    const path = await temp.write(
      'jobs.yaml',
      `${CONNECTION}jobs:\n  - name: wide\n    connection: main\n    input: wide.csv\n    key: { column: id, field: customerid }\n    fields:\n${fields}`,
    );
    const { jobsFile } = await loadJobsFile(path, { env });
    expect(jobsFile.jobs[0]!.fields).toHaveLength(45);
  });

  test('the token is read from tokenFile, relative to the jobs file and trimmed', async () => {
    await mkdir(join(temp.dir, 'secrets'));
    await temp.write('secrets/token.txt', '  file-token\n');
    const path = await temp.write(
      'jobs.yaml',
      `connections:\n  main:\n    baseUrl: https://app.example.com/api\n    tokenFile: secrets/token.txt\njobs:\n  - { name: a, connection: main, input: a.csv, key: { column: id, field: customerid } }\n`,
    );
    const { jobsFile, warnings } = await loadJobsFile(path, { env: {} });
    expect(jobsFile.connections.main!.token).toBe('file-token');
    expect(warnings).toEqual([]);
  });

  test('an unreadable tokenFile is an issue naming the file', async () => {
    const path = await temp.write(
      'jobs.yaml',
      `connections:\n  main:\n    baseUrl: https://app.example.com/api\n    tokenFile: missing.txt\njobs:\n  - { name: a, connection: main, input: a.csv, key: { column: id, field: customerid } }\n`,
    );
    const error = await loadError(path);
    expectCode(error, 'CONFIG_INVALID');
    expect(error.issues).toEqual([expect.objectContaining({ path: 'connections.main.tokenFile', line: 4 })]);
    expect(error.issues[0]!.message).toContain('"missing.txt" cannot be read (ENOENT)');
  });

  test('an injected readFile supplies the jobs file', async () => {
    const text = `${CONNECTION}jobs:\n  - { name: a, connection: main, input: a.csv, key: { column: id, field: customerid } }\n`;
    const read: string[] = [];
    const { jobsFile } = await loadJobsFile('/virtual/jobs.yaml', {
      env,
      readFile: (file) => {
        read.push(file);
        return Promise.resolve(text);
      },
    });
    expect(read).toEqual(['/virtual/jobs.yaml']);
    expect(jobsFile.jobs[0]!.input.path).toBe('/virtual/a.csv');
  });

  test('a missing file is CONFIG_UNREADABLE, naming the file and the fix', async () => {
    const path = join(temp.dir, 'nope.yaml');
    const error = await loadError(path);
    expectCode(error, 'CONFIG_UNREADABLE');
    expect(error.file).toBe(path);
    expect(error.message).toBe(`${path}: no such file; check the path, or copy jobs.example.yaml to start one`);
  });

  test('a directory given as the jobs file is CONFIG_UNREADABLE, suggesting a file in it', async () => {
    const error = await loadError(temp.dir);
    expectCode(error, 'CONFIG_UNREADABLE');
    expect(error.message).toBe(`${temp.dir}: is a directory; name the jobs file in it, e.g. ${temp.dir}/jobs.yaml`);
  });

  test('a YAML syntax error is CONFIG_SYNTAX naming the line, the column and the fix', async () => {
    const path = await temp.write('jobs.yaml', `connections:\n  main:\n    baseUrl: https://a.example.com\n\ttoken: x\n`);
    const error = await loadError(path);
    expectCode(error, 'CONFIG_SYNTAX');
    expect(error.issues).toEqual([expect.objectContaining({ path: '', line: 4, column: 1 })]);
    expect(error.message).toBe(
      `${path}: line 4, column 1: YAML syntax error: Tabs are not allowed as indentation; indent with spaces, not tabs`,
    );
  });

  test('an unquoted ${VAR} inside a flow mapping is a syntax error that says to quote it', async () => {
    const path = await temp.write('jobs.yaml', `${CONNECTION}    rateLimits: { contacts: \${RATE} }\n`);
    const error = await loadError(path);
    expectCode(error, 'CONFIG_SYNTAX');
    expect(error.issues[0]!.line).toBe(5);
    expect(error.message).toContain('quote a ${VAR} value: "${VAR}"');
  });

  test('an empty file is CONFIG_INVALID pointing at the example', async () => {
    const error = await loadError(await temp.write('jobs.yaml', '# nothing yet\n'));
    expectCode(error, 'CONFIG_INVALID');
    expect(error.message).toContain('the file is empty; start from jobs.example.yaml');
  });

  test('jobs.example.yaml loads with an empty environment; its demo job reads the demo CSV', async () => {
    const { jobsFile, warnings } = await loadJobsFile(join(repoRoot, 'jobs.example.yaml'), { env: {} });
    expect(warnings).toEqual([]);
    expect(jobsFile.connections.demo).toMatchObject({ baseUrl: 'http://127.0.0.1:4010/api', token: 'demo-token' });
    const demo = jobsFile.jobs.find((job) => job.name === 'demo');
    expect(demo).toBeDefined();
    expect(demo!.key).toEqual({ column: 'customer_id', field: 'customerid' });
    expect(demo!.input.path).toBe(join(repoRoot, 'fixtures/demo/customers.csv'));
    const sources = new Set(demo!.fields.map((field) => field.source.kind));
    expect(sources).toEqual(new Set(['column', 'template', 'value']));

    const lines = (await readFile(demo!.input.path, 'utf8')).trim().split('\n');
    expect(lines[0]).toBe('customer_id,first_name,last_name,email,phone,plan,segments');
    expect(lines.slice(1)).toHaveLength(12);
    expect(lines.slice(1).filter((line) => line.startsWith(','))).toHaveLength(1);
  });

  test('jobs.example.yaml takes the API URL and token from the environment when set', async () => {
    const { jobsFile } = await loadJobsFile(join(repoRoot, 'jobs.example.yaml'), {
      env: { CONTACTS_API_URL: 'https://app.example.com/api/', CHANNEL_TOKEN: 'real-token' },
    });
    expect(jobsFile.connections.demo).toMatchObject({ baseUrl: 'https://app.example.com/api', token: 'real-token' });
  });
});
