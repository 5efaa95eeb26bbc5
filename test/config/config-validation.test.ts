import { loadJobsFile } from '../../src/config/index.js';
import { CONNECTION, createTempJobsDir, expectCode, loadError } from './temp-jobs-dir.js';
import type { TempJobsDir } from './temp-jobs-dir.js';

const env = { CHANNEL_TOKEN: 'secret-token' };
const KEY = 'key: { column: id, field: customerid }';

let temp: TempJobsDir;
beforeEach(async () => {
  temp = await createTempJobsDir();
});
afterEach(async () => {
  await temp.close();
});

/** A file with CONNECTION and one job made of `lines` (indented under `- `). */
function oneJob(lines: string): string {
  return `${CONNECTION}jobs:\n  - name: a\n    connection: main\n    input: a.csv\n${lines.replace(/^/gm, '    ')}\n`;
}

async function issuesOf(text: string): Promise<{ path: string; message: string; line?: number }[]> {
  const error = await loadError(await temp.write('jobs.yaml', text), env);
  expectCode(error, 'CONFIG_INVALID');
  return error.issues.map(({ path, message, line }) => ({ path, message, line }));
}

describe('validation of jobs.yaml', () => {
  test('four different mistakes are reported together, each with its YAML path and line', async () => {
    const path = await temp.write(
      'jobs.yaml',
      `connections:
  main:
    baseUrl: https://app.example.com/api
    token: \${CHANNEL_TOKEN}
    rateLimits: { contacts: 100/minute }
jobs:
  - name: a
    connection: backup
    input: a.csv
    key: { column: id, field: customerid }
    mode: upsret
    fields:
      email: { column: email, transfrom: [lowercase] }
`,
    );
    const error = await loadError(path, env);
    expectCode(error, 'CONFIG_INVALID');
    expect(error.issues.map(({ path: yamlPath, line }) => ({ yamlPath, line }))).toEqual([
      { yamlPath: 'connections.main.rateLimits.contacts', line: 5 },
      { yamlPath: 'jobs[0].connection', line: 8 },
      { yamlPath: 'jobs[0].mode', line: 11 },
      { yamlPath: 'jobs[0].fields.email.transfrom', line: 13 },
    ]);
    expect(error.message.split('\n')).toEqual([
      `${path}: connections.main.rateLimits.contacts: "100/minute" is not a rate; write N/s, N/sec, N/m, N/min or N/h, or N per a window of several units such as 20/2s, e.g. 100/min (line 5)`,
      `${path}: jobs[0].connection: "backup" is not a connection of this file; use one of main (line 8)`,
      `${path}: jobs[0].mode: "upsret" is not one of upsert, create, update, message; did you mean "upsert"? (line 11)`,
      `${path}: jobs[0].fields.email.transfrom: unknown key "transfrom"; did you mean "transform"? (line 13)`,
    ]);
  });

  test('an unknown key suggests the closest known key, and is not also reported as a missing key', async () => {
    const issues = await issuesOf(
      `connections:\n  main:\n    baseURL: https://app.example.com/api\n    token: \${CHANNEL_TOKEN}\njobs:\n  - { name: a, connection: main, input: a.csv, ${KEY}, onduplicate: all }\n`,
    );
    expect(issues).toEqual([
      { path: 'connections.main.baseURL', message: 'unknown key "baseURL"; did you mean "baseUrl"?', line: 3 },
      { path: 'jobs[0].onduplicate', message: 'unknown key "onduplicate"; did you mean "onDuplicate"?', line: 6 },
    ]);
  });

  test('an unknown key with no close match lists the keys allowed there', async () => {
    const issues = await issuesOf(oneJob(`${KEY}\ntags: { colour: red }`));
    expect(issues).toEqual([
      { path: 'jobs[0].tags.colour', message: 'unknown key "colour"; remove it; the keys here are column, separator, static, remove, prune, owned, case', line: 10 },
    ]);
  });

  test('a bad rate names the path and the accepted forms', async () => {
    const issues = await issuesOf(`${CONNECTION}    rateLimits: { contacts: 0/min, messages: 25 }\njobs:\n  - { name: a, connection: main, input: a.csv, ${KEY} }\n`);
    expect(issues).toEqual([
      { path: 'connections.main.rateLimits.contacts', message: '"0/min" allows no call at all; write a limit of at least 1, e.g. 100/min', line: 5 },
      {
        path: 'connections.main.rateLimits.messages',
        message: '25 is a number; write a rate of Messages API calls: N/s, N/sec, N/m, N/min or N/h, or N per a window of several units such as 20/2s',
        line: 5,
      },
    ]);
  });

  test('http:// to a host other than loopback is refused, and allowed with allowInsecure: true', async () => {
    const file = (url: string, extra = '') =>
      `connections:\n  main:\n    baseUrl: ${url}\n    token: \${CHANNEL_TOKEN}\n${extra}jobs:\n  - { name: a, connection: main, input: a.csv, ${KEY} }\n`;
    expect(await issuesOf(file('http://crm.example.com/api'))).toEqual([
      {
        path: 'connections.main.baseUrl',
        message: 'http://crm.example.com would send the token in clear text over the network; use https://, or set allowInsecure: true on a network you trust',
        line: 3,
      },
    ]);

    const insecure = await loadJobsFile(await temp.write('insecure.yaml', file('http://crm.example.com/api', '    allowInsecure: true\n')), { env });
    expect(insecure.jobsFile.connections.main).toMatchObject({ baseUrl: 'http://crm.example.com/api', allowInsecure: true });

    for (const loopback of ['http://localhost:4010/api', 'http://127.0.0.2/api', 'http://[::1]:4010/api']) {
      const loaded = await loadJobsFile(await temp.write('loopback.yaml', file(loopback)), { env });
      expect(loaded.jobsFile.connections.main!.baseUrl).toBe(loopback);
    }
  });

  test('a baseUrl that is not an http(s) URL, or holds credentials, is refused without echoing them', async () => {
    const issues = await issuesOf(
      `connections:\n  a:\n    baseUrl: ftp://x.example.com\n    token: \${CHANNEL_TOKEN}\n  b:\n    baseUrl: https://user:hunter2@x.example.com/api\n    token: \${CHANNEL_TOKEN}\njobs:\n  - { name: a, connection: a, input: a.csv, ${KEY} }\n`,
    );
    expect(issues.map((issue) => issue.path)).toEqual(['connections.a.baseUrl', 'connections.b.baseUrl']);
    expect(issues[0]!.message).toBe('"ftp://x.example.com" uses ftp; write the API root as an http(s) URL, e.g. https://app.example.com/api');
    expect(issues[1]!.message).toContain('holds credentials');
    expect(issues[1]!.message).not.toContain('hunter2');
  });

  test('the token never appears in a message, even when it is what is wrong', async () => {
    const error = await loadError(
      await temp.write('jobs.yaml', `connections:\n  main:\n    baseUrl: https://x.example.com\n    token: 987654321\njobs:\n  - { name: a, connection: main, input: a.csv, ${KEY} }\n`),
    );
    expect(error.issues).toEqual([expect.objectContaining({ path: 'connections.main.token' })]);
    expect(error.message).not.toContain('987654321');
    expect(error.issues[0]!.message).toBe(
      'the token value is a number; write the channel token, from the environment: ${CHANNEL_TOKEN} (or use tokenFile) (quote it)',
    );
  });

  test('jobs cannot share a name (without regard to case) nor name an unknown connection', async () => {
    const issues = await issuesOf(
      `${CONNECTION}jobs:\n  - { name: Nightly, connection: main, input: a.csv, ${KEY} }\n  - { name: nightly, connection: mian, input: b.csv, ${KEY} }\n`,
    );
    expect(issues).toEqual([
      { path: 'jobs[1].name', message: '"nightly" is already the name of jobs[0]; give each job its own name (it names the report and state files)', line: 7 },
      { path: 'jobs[1].connection', message: '"mian" is not a connection of this file; did you mean "main"?', line: 7 },
    ]);
  });

  test('the key field cannot also be a mapped field, and the key is required outside mode: message', async () => {
    expect(await issuesOf(oneJob(`${KEY}\nfields: { customerid: id, email: email }`))).toEqual([
      { path: 'jobs[0].fields.customerid', message: '"customerid" is the key field, written from key.column; remove it from fields', line: 10 },
    ]);
    expect(await issuesOf(oneJob('mode: update'))).toEqual([
      { path: 'jobs[0].key', message: "is missing; add key: {column: <CSV column>, field: <custom field>} to find each row's contact", line: 6 },
    ]);
  });

  test('field forms: each mistake names the field and the accepted forms', async () => {
    const issues = await issuesOf(
      oneJob(`${KEY}
fields:
  a: {}
  b: { column: x, value: y }
  c: 2024
  d: { template: "no placeholder" }
  e: { column: x, transform: [lowercse, { phone: { defaultCountry: XX } }] }`),
    );
    const forms = 'a column name, or {column, transform, trim, default, onInvalid, write, onEmpty}, or {value: constant, write}, or {template: "{{first_name}} {{last_name}}"}';
    expect(issues.map(({ path, message }) => ({ path, message }))).toEqual([
      { path: 'jobs[0].fields.a', message: `an empty mapping fits none of the accepted forms; write ${forms}` },
      { path: 'jobs[0].fields.b', message: `a mapping with column, value fits none of the accepted forms; write ${forms}` },
      { path: 'jobs[0].fields.c', message: `2024 is a number; write ${forms} (quote it: "2024")` },
      { path: 'jobs[0].fields.d.template', message: '"no placeholder" has no {{column}} placeholder; write e.g. "{{first_name}} {{last_name}}", or use value: for a constant' },
      { path: 'jobs[0].fields.e.transform[0]', message: '"lowercse" is not one of trim, lowercase, uppercase, email, phone; did you mean "lowercase"?' },
      { path: 'jobs[0].fields.e.transform[1].phone.defaultCountry', message: '"XX" is not a country code; write an ISO 3166 alpha-2 code such as SG, GB or US' },
    ]);
  });

  test('input options: delimiter, encoding and job name are checked', async () => {
    const issues = await issuesOf(
      `${CONNECTION}jobs:\n  - name: crm nightly\n    connection: main\n    input: { path: a.csv, delimiter: ab, encoding: klingon }\n    ${KEY}\n    concurrency: 65\n    maxErrors: 150%\n`,
    );
    expect(issues.map(({ path, message }) => ({ path, message }))).toEqual([
      { path: 'jobs[0].name', message: '"crm nightly" is not a job name; use letters, digits, ".", "_" and "-" (it names files), e.g. crm-nightly' },
      { path: 'jobs[0].input.delimiter', message: '"ab" is not a delimiter; write auto, one character such as ";", or tab' },
      { path: 'jobs[0].input.encoding', message: '"klingon" is not an encoding iconv-lite knows; write e.g. utf-8, latin1, windows-1252 or utf-16le' },
      { path: 'jobs[0].concurrency', message: '65 is too large; concurrency must be a whole number from 1 to 64' },
      { path: 'jobs[0].maxErrors', message: '"150%" is more than 100%; write a share from 0% to 100%' },
    ]);
  });

  test('tab can be written as "\\t" or tab', async () => {
    for (const written of ['"\\t"', "'\\t'", 'tab']) {
      const loaded = await loadJobsFile(await temp.write('jobs.yaml', oneJob(`${KEY}`).replace('input: a.csv', `input: { path: a.csv, delimiter: ${written} }`)), { env });
      expect(loaded.jobsFile.jobs[0]!.input.delimiter).toBe('\t');
    }
  });

  test('messages: quick replies are limited in number and length, text and url are required by type', async () => {
    const replies = Array.from({ length: 11 }, (_, i) => `r${i}`).join(', ');
    const issues = await issuesOf(
      `${CONNECTION}jobs:
  - name: a
    connection: main
    input: a.csv
    ${KEY}
    message: { type: quick_reply, text: Hi, quickReplies: [Yes, "Absolutely, sign me up now"] }
  - name: b
    connection: main
    input: a.csv
    ${KEY}
    message: { type: quick_reply, quickReplies: [${replies}] }
  - name: c
    connection: main
    input: a.csv
    ${KEY}
    message: { type: video }
  - name: d
    connection: main
    input: a.csv
    ${KEY}
    message: { type: file, url: "ftp://files.example.com/{{doc}}" }
  - name: e
    connection: main
    input: a.csv
    ${KEY}
    message: { text: Hi, quickReplies: [Yes] }
`,
    );
    expect(issues.map(({ path, message }) => ({ path, message }))).toEqual([
      { path: 'jobs[0].message.quickReplies[1]', message: 'quick reply "Absolutely, sign me up now" has 26 characters; shorten it to at most 20' },
      { path: 'jobs[1].message.text', message: 'is missing; type: quick_reply needs text: "Hello {{first_name}}"' },
      { path: 'jobs[1].message.quickReplies', message: '11 quick replies; keep at most 10' },
      { path: 'jobs[2].message.url', message: 'is missing; type: video needs url: https://... ({{column}} placeholders allowed)' },
      { path: 'jobs[3].message.url', message: '"ftp://files.example.com/{{doc}}" uses ftp; write an http(s) URL, e.g. https://example.com/{{image_file}}' },
      { path: 'jobs[4].message.quickReplies', message: 'are sent only with type: quick_reply (this message is text); set type: quick_reply or remove them' },
    ]);
  });

  test('messages: a whatsapp_template needs its template, whose literal name and language WhatsApp could have approved', async () => {
    const job = (name: string, message: string) => `  - name: ${name}\n    connection: main\n    input: a.csv\n    ${KEY}\n    message: ${message}\n`;
    const issues = await issuesOf(
      `${CONNECTION}jobs:
${job('a', '{ type: whatsapp_template }')}${job('b', '{ type: whatsapp_template, template: { name: "Welcome V2", language: English, body: "Hi {{first_name}" } }')}${job('c', '{ type: whatsapp_template, template: { name: welcome_v2, language: en } }')}${job('d', '{ text: Hi, template: { name: welcome_v2, language: en, body: Hi } }')}${job('e', '{ type: whatsapp_template, template: { name: welcome_v2, language: en, body: Hi, footer: Bye } }')}`,
    );
    const byPath = (a: { path: string }, b: { path: string }) => a.path.localeCompare(b.path);
    expect(issues.map(({ path, message }) => ({ path, message })).sort(byPath)).toEqual([
      { path: 'jobs[0].message.template', message: 'is missing; type: whatsapp_template needs template: {name: welcome_v2, language: en, body: "Hi {{first_name}}, welcome!"}' },
      { path: 'jobs[1].message.template.body', message: '"Hi {{first_name}" has an unbalanced {{ or }}; write each placeholder as {{column}}' },
      { path: 'jobs[1].message.template.language', message: '"English" is not a WhatsApp language code; write the language of the approved template, e.g. en, en_US or pt_BR' },
      { path: 'jobs[1].message.template.name', message: '"Welcome V2" is not a WhatsApp template name; write the approved template\'s name: lowercase letters, digits and underscores, e.g. welcome_v2' },
      { path: 'jobs[2].message.template.body', message: "is missing; add body: the text of the template's body as approved, with the row's values ({{column}} placeholders allowed)" },
      { path: 'jobs[3].message.template', message: 'is sent only with type: whatsapp_template (this message is text); set type: whatsapp_template or remove it' },
      { path: 'jobs[4].message.template.footer', message: 'unknown key "footer"; remove it; the keys here are name, language, body' },
    ]);
  });

  test('a whatsapp_template is loaded with its parts as written; placeholders in its name and language are checked row by row', async () => {
    const loaded = await loadJobsFile(
      await temp.write('jobs.yaml', oneJob(`${KEY}\nmessage: { type: whatsapp_template, when: created, template: { name: "welcome_{{plan}}", language: "{{lang}}", body: "Hi {{first_name}}, welcome!" } }`)),
      { env },
    );
    expect(loaded.jobsFile.jobs[0]!.message).toEqual({
      when: 'created',
      type: 'whatsapp_template',
      quickReplies: [],
      template: { name: 'welcome_{{plan}}', language: '{{lang}}', body: 'Hi {{first_name}}, welcome!' },
      forceCancelSurvey: false,
      repeat: false,
    });
  });

  test('a text beside a whatsapp_template loads with a warning that it is not sent', async () => {
    const { warnings } = await loadJobsFile(
      await temp.write('jobs.yaml', oneJob(`${KEY}\nmessage: { type: whatsapp_template, text: Hi, template: { name: welcome, language: en, body: Hi } }`)),
      { env },
    );
    expect(warnings).toEqual([expect.stringContaining('jobs[0].message.text: is not sent with type: whatsapp_template; remove it: the text sent is template.body')]);
  });

  test('a url made of a placeholder is accepted (it is checked row by row)', async () => {
    const loaded = await loadJobsFile(await temp.write('jobs.yaml', oneJob(`${KEY}\nmessage: { type: image, url: "{{photo_url}}" }`)), { env });
    expect(loaded.jobsFile.jobs[0]!.message!.url).toBe('{{photo_url}}');
  });

  test('a tag both added and removed is refused', async () => {
    expect(await issuesOf(oneJob(`${KEY}\ntags: { static: [vip, crm], remove: [crm] }`))).toEqual([
      { path: 'jobs[0].tags.remove[0]', message: 'tag "crm" is also in tags.static; keep it in one of the two lists', line: 10 },
    ]);
  });

  test('onDuplicateRows takes last, first, merge or fail, and is refused with mode: message', async () => {
    const bad = await issuesOf(oneJob(`${KEY}\nonDuplicateRows: newest`));
    expect(bad).toHaveLength(1);
    expect(bad[0]).toMatchObject({ path: 'jobs[0].onDuplicateRows' });
    for (const policy of ['last', 'first', 'merge', 'fail']) expect(bad[0]?.message).toContain(policy);
    expect(await issuesOf(oneJob(`mode: message\nonDuplicateRows: first\nmessage: { text: hi, contactIdColumn: id }`))).toEqual([
      { path: 'jobs[0].onDuplicateRows', message: 'is not used with mode: message (each row is a message of its own); remove it', line: 10 },
    ]);
  });

  test('a file without connections or jobs says what to add', async () => {
    expect(await issuesOf('connections: {}\njobs: []\n')).toEqual([
      { path: 'connections', message: 'no connection is defined; add one under connections:', line: 1 },
      { path: 'jobs', message: 'no job is defined; add one under jobs:', line: 2 },
    ]);
  });
});
