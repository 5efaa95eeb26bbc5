/**
 * contact-sync on the platform's API v2 (issue 36), through the real CLI against the emulator's
 * v2 surface with a workspace token: the v2 client behind the same port and pipeline as v1.
 * Calls are counted per v2 endpoint (the emulator's EndpointCounterSet), never timed.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { CUSTOMERS_JOB, TOKEN, customersCsv, fastEmulator, jobsYaml, workspace } from '../helpers/cli-harness.js';
import { startRecordingProxy } from '../helpers/recording-proxy.js';
import { STATE_JOB, expectedCustomer } from '../helpers/state-fixtures.js';

const WORKSPACE_TOKEN = 'workspace-token-9e3b71';
const withState = (job: string): string => job.replace('state: false', 'state: state/import.db');

/** Requests v2 received per endpoint, only those not zero. */
function v2Calls(emulator: RunningEmulator): Record<string, number> {
  const counted = Object.entries(emulator.v2Counters().byEndpoint).map(([endpoint, counter]) => [endpoint, counter.received] as const);
  return Object.fromEntries(counted.filter(([, received]) => received > 0));
}

/** jobs.yaml of one v2 connection (channel 1 for sends) and one job. */
function v2Jobs(url: string, job: string, extra = '    channelId: 1'): string {
  return jobsYaml({ url, token: WORKSPACE_TOKEN, job, connectionExtra: `    api: v2\n${extra}` });
}

describe('run on API v2', () => {
  let emulator: RunningEmulator;
  beforeEach(async () => {
    emulator = await fastEmulator({
      workspaceTokens: [WORKSPACE_TOKEN],
      rateLimits: { contacts: { limit: 60_000, periodMs: 60_000 }, messages: { limit: 1000, periodMs: 1000 }, v2: { limit: 1000, periodMs: 1000 } },
    });
  });
  afterEach(async () => {
    await emulator.close();
  });

  it('first import creates each contact with top-level and custom fields; the same file again makes 0 calls; a changed row is one update', async () => {
    const ws = workspace();
    ws.write('customers.csv', customersCsv(5));
    ws.write('jobs.yaml', v2Jobs(emulator.v2Url, withState(CUSTOMERS_JOB)));

    const first = await ws.run(['run', 'jobs.yaml', '--report-dir', 'first']);

    expect(first.exitCode).toBe(0);
    const contacts = emulator.contacts(TOKEN);
    expect(contacts).toHaveLength(5);
    const third = contacts.find((contact) => contact.custom_fields.customerid === 'C0003');
    expect(third?.custom_fields).toEqual({ customerid: 'C0003', firstName: 'First3', lastName: 'Last3', email: 'user3@example.com', plan: 'basic' });
    expect([...(third?.tags ?? [])].sort()).toEqual(['crm', 'newsletter', 'vip']);
    // Each new key: its list, the read of the email's holder (issue 41: none, so the create cannot land on another key's contact), the create, its tags.
    expect(v2Calls(emulator)).toEqual({ 'POST /contact/list': 5, 'GET /contact/{identifier}': 5, 'POST /contact/create_or_update/{identifier}': 5, 'POST /contact/{identifier}/tag': 5 });
    expect(ws.summary('import', 'first').rows).toMatchObject({ total: 5, created: 5, failed: 0 });
    const results = ws.results('import', 'first');
    for (const row of results) expect(contacts.find((contact) => contact.id === row.contact_id)?.custom_fields.customerid).toBe(row.key);

    const before = emulator.v2Counters().total.received;
    const second = await ws.run(['run', 'jobs.yaml', '--report-dir', 'second']);
    expect(second.exitCode).toBe(0);
    expect(emulator.v2Counters().total.received - before).toBe(0);
    expect(ws.summary('import', 'second').rows).toMatchObject({ total: 5, unchanged: 5 });

    ws.write('customers.csv', customersCsv(5, (i, cells) => (i === 4 ? [...cells.slice(0, 4), 'pro-plus', cells[5]!] : cells)));
    const third2 = await ws.run(['run', 'jobs.yaml', '--report-dir', 'third']);
    expect(third2.exitCode).toBe(0);
    const after = v2Calls(emulator);
    expect(after['PUT /contact/{identifier}']).toBe(1);
    expect(after['POST /contact/create_or_update/{identifier}']).toBe(5);
    expect(contacts.length).toBe(5);
    expect(emulator.contacts(TOKEN).find((contact) => contact.custom_fields.customerid === 'C0004')?.custom_fields.plan).toBe('pro-plus');
    expect(ws.summary('import', 'third').rows).toMatchObject({ updated: 1, unchanged: 4 });
  });

  it('a key in email is found by one GET of email:<address>, no list', async () => {
    const ws = workspace();
    ws.write('customers.csv', customersCsv(3));
    const job = ['input: customers.csv', 'key: { column: email, field: email }', 'fields:', '  firstName: first_name', '  customerid: customer_id', 'state: false'].join('\n');
    ws.write('jobs.yaml', v2Jobs(emulator.v2Url, job));
    const first = await ws.run(['run', 'jobs.yaml', '--report-dir', 'first']);
    expect(first.exitCode).toBe(0);
    const counted = v2Calls(emulator);
    expect(counted['GET /contact/{identifier}']).toBe(3);
    expect(counted['POST /contact/list']).toBeUndefined();
    expect(counted['POST /contact/create_or_update/{identifier}']).toBe(3);

    const again = await ws.run(['run', 'jobs.yaml', '--report-dir', 'second']);
    expect(again.exitCode).toBe(0);
    expect(v2Calls(emulator)).toEqual({ 'GET /contact/{identifier}': 6, 'POST /contact/create_or_update/{identifier}': 3 });
    expect(ws.summary('import', 'second').rows).toMatchObject({ unchanged: 3 });
  });

  it('a row with neither an email nor a phone fails with V2_CANNOT_CREATE, naming why; the others are created', async () => {
    const ws = workspace();
    ws.write('customers.csv', customersCsv(3, (i, cells) => (i === 2 ? [...cells.slice(0, 3), '', ...cells.slice(4)] : cells)));
    ws.write('jobs.yaml', v2Jobs(emulator.v2Url, CUSTOMERS_JOB));
    // A dry run says what the real run does: the row fails, its create is not in the estimate.
    expect((await ws.run(['run', 'jobs.yaml', '--dry-run', '--report-dir', 'dry'])).exitCode).toBe(1);
    expect(ws.results('import', 'dry').find((row) => row.key === 'C0002')).toMatchObject({ outcome: 'failed', error_code: 'V2_CANNOT_CREATE' });
    expect((ws.summary('import', 'dry').realRunEstimate as { calls: { byOperation: Record<string, number> } }).calls.byOperation.createContact).toBe(2);
    const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'r']);
    expect(run.exitCode).toBe(1);
    const failed = ws.results('import', 'r').find((row) => row.key === 'C0002');
    expect(failed).toMatchObject({ outcome: 'failed', error_code: 'V2_CANNOT_CREATE' });
    expect(failed?.error_message).toMatch(/it has neither an email nor a phone; v2 creates a contact by its email or phone/);
    expect(ws.rejected('import', 'r').map((row) => row.customer_id)).toEqual(['C0002']);
    expect(emulator.contacts(TOKEN)).toHaveLength(2);
    expect(v2Calls(emulator)['POST /contact/create_or_update/{identifier}']).toBe(2);
  });

  it('an unchanged row v2 cannot create fails again with no call (the first run made 1, not 2); reconcile says why it is missing; --full searches again', async () => {
    const ws = workspace();
    ws.write('customers.csv', customersCsv(3, (i, cells) => (i === 2 ? [...cells.slice(0, 3), '', ...cells.slice(4)] : cells)));
    ws.write('jobs.yaml', v2Jobs(emulator.v2Url, withState(CUSTOMERS_JOB)));
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'first'])).exitCode).toBe(1);
    const first = ws.results('import', 'first').find((row) => row.key === 'C0002');
    // One filtered list found no contact; the create was refused before it left.
    expect(first).toMatchObject({ outcome: 'failed', error_code: 'V2_CANNOT_CREATE', api_calls: '1' });
    const listed = v2Calls(emulator)['POST /contact/list'];

    const again = await ws.run(['run', 'jobs.yaml', '--report-dir', 'second']);
    expect(again.exitCode).toBe(1);
    expect(v2Calls(emulator)['POST /contact/list']).toBe(listed);
    expect(ws.summary('import', 'second').apiCalls.total).toBe(0);
    const second = ws.results('import', 'second').find((row) => row.key === 'C0002');
    expect(second).toMatchObject({ outcome: 'failed', error_code: 'V2_CANNOT_CREATE', api_calls: '0' });
    expect(second?.error_message).toMatch(/neither an email nor a phone.*not searched again; fix the row, or run with --full/);
    expect(ws.rejected('import', 'second').map((row) => row.customer_id)).toEqual(['C0002']);

    const reconcile = await ws.run(['reconcile', 'jobs.yaml', '--report-dir', 'rec']);
    expect(reconcile.exitCode).toBe(1);
    const diff = parse<Record<string, string>>(readFileSync(join(ws.dir, 'rec', 'import.diff.csv'), 'utf8'), { columns: true });
    expect(diff).toEqual([expect.objectContaining({ key: 'C0002', status: 'missing', error_code: 'V2_CANNOT_CREATE', error_message: expect.stringMatching(/neither an email nor a phone.*a run fails this row until it changes/) })]);
    expect(readFileSync(join(ws.dir, 'rec', 'import.reconcile.html'), 'utf8')).toContain('V2_CANNOT_CREATE');

    // --full trusts no mark: the key is searched again, once.
    const listedBefore = v2Calls(emulator)['POST /contact/list'] ?? 0;
    expect((await ws.run(['run', 'jobs.yaml', '--full', '--report-dir', 'full'])).exitCode).toBe(1);
    expect(ws.results('import', 'full').find((row) => row.key === 'C0002')).toMatchObject({ error_code: 'V2_CANNOT_CREATE', api_calls: '1' });
    expect(v2Calls(emulator)['POST /contact/list']).toBeGreaterThan(listedBefore);
  });

  it('estimates and reports read the learnt limits (issue 41): summary.json lists them, the state keeps them, a later dry run reckons at them, not at 100/min', async () => {
    await emulator.close();
    emulator = await fastEmulator({
      workspaceTokens: [WORKSPACE_TOKEN],
      rateLimits: { contacts: { limit: 60_000, periodMs: 60_000 }, messages: { limit: 1000, periodMs: 1000 }, v2: { limit: 400, periodMs: 1000 } },
    });
    const ws = workspace();
    ws.write('customers.csv', customersCsv(3));
    ws.write('jobs.yaml', v2Jobs(emulator.v2Url, withState(CUSTOMERS_JOB)));
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'first'])).exitCode).toBe(0);
    // v2's own names of its calls, beside the port's operations: each endpoint as the emulator counted it.
    expect((ws.summary('import', 'first').apiCalls as { byEndpoint?: Record<string, number> }).byEndpoint).toEqual(v2Calls(emulator));
    const limits = ws.summary('import', 'first').limits as Array<{ budget: string; perMinute: number; source: string }>;
    expect(limits).toContainEqual({ budget: 'POST /contact/list', operations: ['searchContacts'], perMinute: 24_000, source: 'learnt' });
    expect(limits).toContainEqual({ budget: 'POST /contact/create_or_update/{identifier}', operations: ['createContact'], perMinute: 24_000, source: 'learnt' });
    // An endpoint the run did not call: the first guess, said so.
    expect(limits).toContainEqual(expect.objectContaining({ budget: 'PUT /contact/{identifier}', perMinute: 300, source: 'first-guess' }));
    const html = readFileSync(join(ws.dir, 'first', 'import.report.html'), 'utf8');
    expect(html).not.toContain('limit 100/min');
    // The endpoints the run called (a list, a create, a tag call a row), each learnt at 400 a second.
    expect(html).toContain('limit 72000/min, 3 endpoints together (learnt)');

    // Two new rows: the dry run searches them (learnt again) and withholds their creates, reckoned
    // at the limit the first run learnt and the state store kept.
    ws.write('customers.csv', customersCsv(5));
    const dry = await ws.run(['run', 'jobs.yaml', '--dry-run', '--report-dir', 'dry']);
    expect(dry.exitCode).toBe(0);
    expect(dry.stdout).toMatch(
      /the real run \(estimate\): \d+ API calls \(.*\), about \d+s at 24000\/min or more on each of 3 endpoints \(learnt from the answers, learnt by an earlier run\)/,
    );
    const estimate = ws.summary('import', 'dry').realRunEstimate as { contactsPerMinute: number; limits: Array<{ budget: string; perMinute: number; source: string; calls: number }> };
    expect(estimate.limits).toContainEqual(expect.objectContaining({ budget: 'POST /contact/create_or_update/{identifier}', perMinute: 24_000, source: 'earlier-run', calls: 2 }));
    expect(estimate.limits).toContainEqual(expect.objectContaining({ budget: 'POST /contact/list', perMinute: 24_000, source: 'learnt' }));
    expect(estimate.contactsPerMinute).toBe(24_000);
  });

  it('a greeting goes out once per created contact on the connection\'s channel', async () => {
    const ws = workspace();
    ws.write('customers.csv', customersCsv(3));
    ws.write('jobs.yaml', v2Jobs(emulator.v2Url, `${withState(CUSTOMERS_JOB)}\nmessage: { when: created, text: "Hi {{first_name}}" }`));
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'r'])).exitCode).toBe(0);
    const messages = emulator.v2Messages();
    expect(messages.map((message) => [message.channelId, message.message]).sort()).toEqual([
      [1, { type: 'text', text: 'Hi First1' }],
      [1, { type: 'text', text: 'Hi First2' }],
      [1, { type: 'text', text: 'Hi First3' }],
    ]);
    expect(new Set(messages.map((message) => message.messageId)).size).toBe(3);
    expect(ws.results('import', 'r').map((row) => row.message_status)).toEqual(['sent', 'sent', 'sent']);
  });

  it('a job\'s message.channelId overrides the connection\'s: one workspace connection greets on two channels', async () => {
    await emulator.close();
    emulator = await fastEmulator({
      channels: [{ token: TOKEN }, { token: 'second-channel-token' }],
      workspaceTokens: [WORKSPACE_TOKEN],
      rateLimits: { contacts: { limit: 60_000, periodMs: 60_000 }, messages: { limit: 1000, periodMs: 1000 }, v2: { limit: 1000, periodMs: 1000 } },
    });
    const ws = workspace();
    ws.write('customers.csv', customersCsv(2));
    const welcome = `${CUSTOMERS_JOB}\nmessage: { when: created, text: "Welcome {{first_name}}", channelId: 2 }`;
    const remind = `${CUSTOMERS_JOB}\nmessage: { when: always, text: "Reminder {{first_name}}" }`;
    ws.write('jobs.yaml', v2Jobs(emulator.v2Url, welcome) + ['  - name: remind', '    connection: main', remind.replace(/^/gm, '    '), ''].join('\n'));
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'r'])).exitCode).toBe(0);
    expect(emulator.v2Messages().map((message) => [message.channelId, message.message]).sort()).toEqual([
      [1, { type: 'text', text: 'Reminder First1' }],
      [1, { type: 'text', text: 'Reminder First2' }],
      [2, { type: 'text', text: 'Welcome First1' }],
      [2, { type: 'text', text: 'Welcome First2' }],
    ]);
  });

  it('a send whose answer is lost is settled by the contact\'s message list: sent once, reported sent, not unknown', async () => {
    let dropped = 0;
    const proxy = await startRecordingProxy(emulator.v2Url, {
      dropAnswer: (method, path) => method === 'POST' && /\/message$/.test(path) && dropped++ === 0,
    });
    try {
      const ws = workspace();
      ws.write('customers.csv', customersCsv(2));
      ws.write('jobs.yaml', v2Jobs(proxy.url, `${withState(CUSTOMERS_JOB)}\nmessage: { when: created, text: "Hi {{first_name}}" }`));
      const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'r']);
      expect(run.exitCode).toBe(0);
      expect(dropped).toBeGreaterThanOrEqual(1);
      expect(emulator.v2Messages()).toHaveLength(2);
      expect(ws.results('import', 'r').map((row) => row.message_status)).toEqual(['sent', 'sent']);
      const sends = proxy.requests.filter((request) => request.method === 'POST' && request.path.endsWith('/message'));
      const lists = proxy.requests.filter((request) => request.method === 'GET' && request.path.includes('/message/list'));
      expect([sends.length, lists.length]).toEqual([2, 1]);
    } finally {
      await proxy.close();
    }
  });

  it('check names a refused workspace token as such', async () => {
    const ws = workspace();
    ws.write('customers.csv', customersCsv(1));
    ws.write('jobs.yaml', v2Jobs(emulator.v2Url, CUSTOMERS_JOB));
    const run = await ws.run(['check', 'jobs.yaml'], { env: { CHANNEL_TOKEN: 'not-the-workspace-token' } });
    expect(run.exitCode).toBe(3);
    expect(run.stdout).toContain('FAILED: the platform refused the token (401); check the workspace token connection "main" reads');
  });

  it('check says the surface that answered', async () => {
    const ws = workspace();
    ws.write('customers.csv', customersCsv(1));
    ws.write('jobs.yaml', v2Jobs(emulator.v2Url, CUSTOMERS_JOB));
    const run = await ws.run(['check', 'jobs.yaml']);
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toMatch(/^connection main \(http:\/\/127\.0\.0\.1:\d+\/v2\): ok: API v2 answers, token accepted, not throttled, \d+ ms; limits learnt: POST \/contact\/list 1000 per 1 s\n$/);
  });

  it('reconcile with match.prefetch lists the 100 marked contacts in one page of 100 (v1 pays 10), no write', async () => {
    emulator.loadContacts(
      TOKEN,
      Array.from({ length: 100 }, (_v, index) => {
        const expected = expectedCustomer(index + 1);
        return { custom_fields: { ...expected.fields, source: 'crm' }, tags: expected.tags };
      }),
    );
    const ws = workspace();
    // Customers 1..90 and 101..110: 10 missing on the platform, 10 extra there.
    const lines = customersCsv(110).trimEnd().split('\n');
    ws.write('customers.csv', `${lines.filter((_line, index) => index <= 90 || index > 100).join('\n')}\n`);
    const job = `${STATE_JOB.replace('  plan: plan\n', '  plan: plan\n  source: { value: crm }\n')}\nmatch: { prefetch: { field: source, value: crm } }`;
    ws.write('jobs.yaml', v2Jobs(emulator.v2Url, job));

    const reconcile = await ws.run(['reconcile', 'jobs.yaml', '--report-dir', 'r']);

    expect(reconcile.exitCode).toBe(1);
    // One page of the 100 marked contacts, then one filtered list for each of the 10 keys it lacks.
    expect(v2Calls(emulator)).toEqual({ 'POST /contact/list': 11 });
    expect(reconcile.stdout).toContain('The file and the platform differ on 20 key(s)');
  });

  it('undo puts back what a v2 run changed, by v2\'s reads and updates', async () => {
    const ws = workspace();
    ws.write('customers.csv', customersCsv(3));
    ws.write('jobs.yaml', v2Jobs(emulator.v2Url, withState(CUSTOMERS_JOB)));
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'first'])).exitCode).toBe(0);
    ws.write('customers.csv', customersCsv(3, (i, cells) => (i === 2 ? [...cells.slice(0, 4), 'gold', cells[5]!] : cells)));
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'second'])).exitCode).toBe(0);
    const runId = (ws.summary('import', 'second') as { runId?: string | null }).runId ?? '';
    const planOf = (key: string): string | undefined => emulator.contacts(TOKEN).find((contact) => contact.custom_fields.customerid === key)?.custom_fields.plan;
    expect(planOf('C0002')).toBe('gold');
    const before = v2Calls(emulator);

    // The change was written by what the state knew (no read): --force puts it back all the same.
    const undo = await ws.run(['undo', 'jobs.yaml', '--job', 'import', '--run', runId, '--force', '--report-dir', 'undo']);

    expect(undo.exitCode).toBe(0);
    expect(planOf('C0002')).toBe('pro');
    const after = v2Calls(emulator);
    expect((after['PUT /contact/{identifier}'] ?? 0) - (before['PUT /contact/{identifier}'] ?? 0)).toBe(1);
    expect((after['GET /contact/{identifier}'] ?? 0) - (before['GET /contact/{identifier}'] ?? 0)).toBe(1);
  });

  it('--emulator serves a v2 connection from the emulator\'s v2 surface: run, then reconcile of a seeded platform', async () => {
    const ws = workspace();
    ws.write('customers.csv', customersCsv(3));
    const jobs = jobsYaml({ url: 'https://api.respond.io/v2', token: WORKSPACE_TOKEN, job: withState(CUSTOMERS_JOB), connectionExtra: '    api: v2' });
    ws.write('jobs.yaml', jobs);
    const run = await ws.run(['run', 'jobs.yaml', '--emulator', '--report-dir', 'run']);
    expect(run.exitCode).toBe(0);
    expect(ws.summary('import', 'run').rows).toMatchObject({ created: 3, failed: 0 });

    const seeded = [1, 2].map((i) => ({ custom_fields: expectedCustomer(i).fields, tags: expectedCustomer(i).tags }));
    ws.write('seed.json', JSON.stringify({ main: seeded }));
    ws.write('jobs.yaml', jobs.replace('state: state/import.db', 'state: state/other.db'));
    const reconcile = await ws.run(['reconcile', 'jobs.yaml', '--emulator', '--emulator-seed', 'seed.json', '--report-dir', 'reconcile']);
    expect(reconcile.exitCode).toBe(1);
    expect(reconcile.stdout).toContain('The file and the platform differ on 1 key(s)');
  });
});
