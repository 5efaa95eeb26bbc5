/**
 * `privacy: {mask: [email, phone, firstName]}` (issue 45 item 3) through the real CLI, on a v2 job
 * keyed by email (the key IS an email): the bytes of every output the runs wrote (summary.json,
 * report.html, changes.csv, stdout and stderr in both log formats, the webhook's body received by
 * a server of the test's own, the metrics textfile) hold none of the full values and do hold their
 * masked forms; rejected.csv keeps the failed row whole; the platform holds the real values.
 * Without `privacy` nothing is masked.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { TOKEN, fastEmulator, jobsYaml, workspace, type CliRun, type Workspace } from '../helpers/cli-harness.js';
import { recordingServer, type RecordingServer } from '../helpers/recording-server.js';

const WORKSPACE_TOKEN = 'workspace-token-privacy-4c1d';

/** The people of the file: each value that must not leave in full, and its masked form. */
const PEOPLE = [
  { email: 'josephine.doe@example.com', phone: '+6591234567', first: 'Josephine', shownEmail: 'j•••@example.com', shownPhone: '+65•••••567', shownFirst: 'J•' },
  { email: 'maximilian.roe@example.org', phone: '+447911123456', first: 'Maximilian', shownEmail: 'm•••@example.org', shownPhone: '+44•••••456', shownFirst: 'M•' },
];
/** The row that fails for its own data (its phone): rejected.csv keeps it whole. */
const BAD = { email: 'evangeline.poe@example.net', phone: 'not-a-phone', first: 'Evangeline' };

/** Every form of a full value an output could hold: raw, and as a URL path holds it. */
const FULL_FORMS = [...PEOPLE, BAD].flatMap((person) => [person.email, encodeURIComponent(person.email), person.first, person.phone, encodeURIComponent(person.phone)]);

function peopleCsv(people: ReadonlyArray<{ email: string; phone: string; first: string }>, plan = 'basic'): string {
  return `email,phone,first_name,last_name,plan\n${people.map((person) => `${person.email},${person.phone},${person.first},Lastname,${plan}`).join('\n')}\n`;
}

function jobs(url: string, hook: string, options: { privacy?: boolean; extra?: string } = {}): string {
  const job = [
    'input: people.csv',
    'key: { column: email, field: email }',
    'fields:',
    '  phone: { column: phone, transform: [phone] }',
    '  firstName: first_name',
    '  lastName: last_name',
    '  plan: plan',
    'state: state/people.db',
    'concurrency: 1',
    `notify: { webhook: "${hook}", on: always }`,
    ...(options.privacy === false ? [] : ['privacy: { mask: [email, phone, firstName] }']),
  ].join('\n');
  return jobsYaml({ url, name: 'people', token: WORKSPACE_TOKEN, job, connectionExtra: `    api: v2\n    channelId: 1${options.extra ?? ''}` });
}

/** What one run sent out for people and machines: its report files but results.csv and rejected.csv, its console, its webhook body, the metrics. */
function outputs(ws: Workspace, dir: string, run: CliRun, hook: RecordingServer): Record<string, string> {
  const files = readdirSync(join(ws.dir, dir)).filter((name) => !name.endsWith('.results.csv') && !name.endsWith('.rejected.csv'));
  expect(files.sort()).toEqual(['people.changes.csv', 'people.report.html', 'people.summary.json']);
  return {
    ...Object.fromEntries(files.map((name) => [name, readFileSync(join(ws.dir, dir, name), 'utf8')])),
    stdout: run.stdout,
    stderr: run.stderr,
    webhook: hook.requests.at(-1)?.body ?? '',
    metrics: readFileSync(join(ws.dir, 'metrics.prom'), 'utf8'),
  };
}

function expectNoFullValue(sent: Record<string, string>): void {
  for (const [where, text] of Object.entries(sent)) {
    const found = FULL_FORMS.filter((form) => text.includes(form));
    expect({ where, found }).toEqual({ where, found: [] });
  }
}

describe('privacy.mask on a v2 job keyed by email', () => {
  let emulator: RunningEmulator;
  let hook: RecordingServer;
  beforeEach(async () => {
    emulator = await fastEmulator({
      workspaceTokens: [WORKSPACE_TOKEN],
      rateLimits: { contacts: { limit: 60_000, periodMs: 60_000 }, messages: { limit: 1000, periodMs: 1000 }, v2: { limit: 1000, periodMs: 1000 } },
    });
    hook = await recordingServer({ path: '/hooks/privacy' });
  });
  afterEach(async () => {
    await hook.close();
    await emulator.close();
  });

  it('creates, updates and aborts with no full email, phone or first name in any output but rejected.csv and results.csv; the platform holds the real values', async () => {
    const ws = workspace();
    ws.write('jobs.yaml', jobs(emulator.v2Url, hook.url));

    // 1. Creates, and a row that fails for its phone.
    ws.write('people.csv', peopleCsv([...PEOPLE, BAD]));
    const created = await ws.run(['run', 'jobs.yaml', '--report-dir', 'created', '--metrics-file', 'metrics.prom']);
    expect(created.exitCode).toBe(1);
    const first = outputs(ws, 'created', created, hook);
    expectNoFullValue(first);
    for (const person of PEOPLE) {
      expect(first['people.changes.csv']).toContain(`${person.shownEmail},`);
      // A masked phone is not a number: changes.csv neutralises it for spreadsheets, as any cell starting with +.
      expect(first['people.changes.csv']).toContain(`,phone,,'${person.shownPhone}`);
      expect(first['people.changes.csv']).toContain(`,firstName,,${person.shownFirst}`);
      expect(first['people.report.html']).toContain(person.shownEmail);
    }
    // The fields not masked are shown whole.
    expect(first['people.changes.csv']).toContain(',lastName,,Lastname');
    // The failed row: in report.html by its masked key; in rejected.csv whole, to fix and feed back.
    expect(first['people.report.html']).toContain('e•••@example.net');
    // Its error names its phone as the file wrote it: the row's own value of a masked field, masked too.
    expect(first['people.report.html']).toContain('&#34;n•••&#34; is not a valid phone number');
    const rejected = readFileSync(join(ws.dir, 'created', 'people.rejected.csv'), 'utf8');
    expect(rejected).toContain(`${BAD.email},${BAD.phone},${BAD.first},Lastname,basic,INVALID_PHONE,`);
    // results.csv is the user's per-row file beside rejected.csv: its key is the row's, to match rows.
    expect(ws.results('people', 'created').map((row) => row.key).sort()).toEqual([BAD.email, ...PEOPLE.map((person) => person.email)].sort());
    expect(JSON.parse(first.webhook!)).toMatchObject({ exitCode: 1, summary: { rows: { created: 2, failed: 1 } } });

    // 2. Updates: the phone and the first name change; changes.csv shows both values, masked.
    const renamed = PEOPLE.map((person) => ({ ...person, first: `${person.first}a`, phone: `${person.phone.slice(0, -1)}9` }));
    ws.write('people.csv', peopleCsv(renamed, 'pro'));
    const updated = await ws.run(['run', 'jobs.yaml', '--report-dir', 'updated', '--metrics-file', 'metrics.prom', '--log-format', 'json']);
    expect(updated.exitCode).toBe(0);
    const second = outputs(ws, 'updated', updated, hook);
    expectNoFullValue(second);
    for (const [where, text] of Object.entries(second)) {
      for (const person of renamed) expect({ where, full: [person.first, person.phone, encodeURIComponent(person.phone)].filter((form) => text.includes(form)) }).toEqual({ where, full: [] });
    }
    expect(second['people.changes.csv']).toContain(`j•••@example.com,${emulator.contacts(TOKEN).find((contact) => contact.custom_fields.email === PEOPLE[0]!.email)?.id},firstName,J•,J•`);
    expect(second['people.changes.csv']).toContain(',plan,basic,pro');
    expect(ws.summary('people', 'updated').rows).toMatchObject({ updated: 2 });

    // 3. The platform fails every call: a retried call's log line and the abort (API_UNAVAILABLE,
    // naming the last call's path: /contact/email:<key>) show the key masked.
    emulator.setFaults({ serverError: 1 });
    ws.write('jobs.yaml', jobs(emulator.v2Url, hook.url, { extra: '\n    timeouts: { unavailableAfterAttempts: 2 }' }));
    ws.write('people.csv', peopleCsv(PEOPLE.map((person) => ({ ...person, first: `${person.first}b` }))));
    const aborted = await ws.run(['run', 'jobs.yaml', '--report-dir', 'aborted', '--metrics-file', 'metrics.prom', '--full', '--log-level', 'debug']);
    emulator.setFaults({});
    expect(aborted.exitCode).toBe(3);
    const third = outputs(ws, 'aborted', aborted, hook);
    expectNoFullValue(third);
    expect(aborted.stderr).toMatch(/api call retried .*path=\S*\/contact\/email:j•••@example\.com/);
    // --log-level debug: each request's line names its path too.
    expect(aborted.stderr).toMatch(/debug: api request .*path=\S*\/contact\/email:j•••@example\.com/);
    const summary = ws.summary('people', 'aborted');
    expect(summary.aborted).toMatchObject({ code: 'API_UNAVAILABLE', message: expect.stringContaining('/contact/email:j•••@example.com') });
    expect(aborted.stderr).toContain('job aborted: ');
    expect(JSON.parse(third.webhook!).text).toContain('email:j•••@example.com');
    expect(third['people.report.html']).toContain('email:j•••@example.com');

    // The platform was written the real values: masking is of the outputs only.
    const contacts = emulator.contacts(TOKEN);
    expect(contacts.map((contact) => contact.custom_fields.email).sort()).toEqual(PEOPLE.map((person) => person.email).sort());
    expect(contacts.find((contact) => contact.custom_fields.email === PEOPLE[0]!.email)?.custom_fields).toMatchObject({ firstName: 'Josephinea', phone: '+6591234569' });
  });

  it('a guard\'s refusal (exit 2) shows its examples, keys and values before and after, masked: on stderr and in the webhook', async () => {
    const ws = workspace();
    ws.write('jobs.yaml', jobs(emulator.v2Url, hook.url));
    ws.write('people.csv', peopleCsv(PEOPLE));
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'created'])).exitCode).toBe(0);
    ws.write('jobs.yaml', jobs(emulator.v2Url, hook.url).replace('concurrency: 1', 'concurrency: 1\n    guards: { maxChange: "10%" }'));
    ws.write('people.csv', peopleCsv(PEOPLE.map((person) => ({ ...person, first: `${person.first}a` }))));
    const refused = await ws.run(['run', 'jobs.yaml', '--report-dir', 'refused']);
    expect(refused.exitCode).toBe(2);
    const webhook = hook.requests.at(-1)?.body ?? '';
    expectNoFullValue({ stdout: refused.stdout, stderr: refused.stderr, webhook });
    expect(refused.stderr).toContain('"j•••@example.com": "J•" -> "J•"');
    expect(JSON.parse(webhook).text).toContain('"m•••@example.org": "M•" -> "M•"');
    // Nothing was written: the platform keeps the first run's names.
    expect(emulator.contacts(TOKEN).map((contact) => contact.custom_fields.firstName).sort()).toEqual(PEOPLE.map((person) => person.first).sort());
  });

  it('reconcile\'s diff.csv, reconcile.json and reconcile.html and its console show the masked fields masked', async () => {
    const ws = workspace();
    ws.write('jobs.yaml', jobs(emulator.v2Url, hook.url));
    ws.write('people.csv', peopleCsv(PEOPLE));
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'created'])).exitCode).toBe(0);
    ws.write('people.csv', peopleCsv(PEOPLE.map((person) => ({ ...person, first: `${person.first}a` })), 'pro'));
    const reconciled = await ws.run(['reconcile', 'jobs.yaml', '--report-dir', 'reconciled']);
    expect(reconciled.exitCode).toBe(1);
    const files = readdirSync(join(ws.dir, 'reconciled')).sort();
    expect(files).toEqual(['people.diff.csv', 'people.reconcile.html', 'people.reconcile.json']);
    const sent: Record<string, string> = { ...Object.fromEntries(files.map((name) => [name, readFileSync(join(ws.dir, 'reconciled', name), 'utf8')])), stdout: reconciled.stdout, stderr: reconciled.stderr };
    expectNoFullValue(sent);
    expect(sent['people.diff.csv']).toContain('j•••@example.com,');
    expect(sent['people.diff.csv']).toMatch(/m•••@example\.org,\d+,differs,firstName,M•,M•/);
    expect(sent['people.diff.csv']).toMatch(/,plan,pro,basic/);
  });

  it('undo\'s undo.csv and undo.json and its console show the masked fields masked; the platform gets the real values back', async () => {
    const ws = workspace();
    ws.write('jobs.yaml', jobs(emulator.v2Url, hook.url));
    ws.write('people.csv', peopleCsv(PEOPLE));
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'created'])).exitCode).toBe(0);
    ws.write('people.csv', peopleCsv(PEOPLE.map((person) => ({ ...person, first: `${person.first}a` }))));
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'updated'])).exitCode).toBe(0);
    const runId = ws.summary('people', 'updated').runId as string;
    const undone = await ws.run(['undo', 'jobs.yaml', '--job', 'people', '--run', runId, '--key', PEOPLE[0]!.email, '--force', '--report-dir', 'undone']);
    expect(undone.exitCode).toBe(0);
    const files = readdirSync(join(ws.dir, 'undone')).sort();
    expect(files).toEqual(['people.undo.csv', 'people.undo.json']);
    const sent: Record<string, string> = { ...Object.fromEntries(files.map((name) => [name, readFileSync(join(ws.dir, 'undone', name), 'utf8')])), stdout: undone.stdout, stderr: undone.stderr };
    expectNoFullValue(sent);
    expect(sent['people.undo.csv']).toMatch(/j•••@example\.com,\d+,\w+,firstName,J•,J•,restored/);
    expect(JSON.parse(sent['people.undo.json']!)).toMatchObject({ keys: ['j•••@example.com'], lines: { restored: 1 } });
    expect(emulator.contacts(TOKEN).find((contact) => contact.custom_fields.email === PEOPLE[0]!.email)?.custom_fields.firstName).toBe(PEOPLE[0]!.first);
  });

  it('without privacy nothing is masked: the same outputs show the full values and no mask', async () => {
    const ws = workspace();
    ws.write('jobs.yaml', jobs(emulator.v2Url, hook.url, { privacy: false }));
    ws.write('people.csv', peopleCsv([...PEOPLE, BAD]));
    const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'plain', '--metrics-file', 'metrics.prom']);
    expect(run.exitCode).toBe(1);
    const sent = outputs(ws, 'plain', run, hook);
    for (const text of Object.values(sent)) expect(text).not.toContain('•');
    for (const person of PEOPLE) {
      expect(sent['people.changes.csv']).toContain(`${person.email},`);
      expect(sent['people.changes.csv']).toContain(`,phone,,${person.phone}`);
      expect(sent['people.changes.csv']).toContain(`,firstName,,${person.first}`);
      expect(sent['people.report.html']).toContain(person.email);
    }
    expect(sent['people.report.html']).toContain(BAD.email);
  });
});
