import type { RunningEmulator } from '../../src/emulator/index.js';
import { CUSTOMERS_JOB, TOKEN, customersCsv, fastEmulator, jobsYaml, workspace } from '../helpers/cli-harness.js';

const withState = (job: string) => job.replace('state: false', 'state: state/import.db');

describe('messages: the contacts a job touches, at most once', () => {
  let emulator: RunningEmulator;
  beforeEach(async () => {
    emulator = await fastEmulator();
  });
  afterEach(async () => {
    await emulator.close();
  });

  const idOf = (key: string) => emulator.contacts(TOKEN).find((c) => c.custom_fields.customerid === key)?.id;

  it('greets each created contact only, with the templated text, and a re-run with state sends nothing', async () => {
    emulator.loadContacts(TOKEN, [{ custom_fields: { customerid: 'C0001', firstName: 'Old' } }, { custom_fields: { customerid: 'C0002', firstName: 'First2', lastName: 'Last2', email: 'user2@example.com', plan: 'pro' }, tags: ['newsletter', 'crm'] }]);
    const ws = workspace();
    ws.write('customers.csv', customersCsv(5));
    ws.write('jobs.yaml', jobsYaml({ url: emulator.url, job: `${withState(CUSTOMERS_JOB)}\nmessage: { when: created, text: "Hi {{first_name}}, welcome to {{plan}}!" }` }));

    const first = await ws.run(['run', 'jobs.yaml', '--report-dir', 'first']);

    expect(first.exitCode).toBe(0);
    const messages = emulator.messages(TOKEN);
    expect(messages.map((m) => m.contactId).sort()).toEqual(['C0003', 'C0004', 'C0005'].map(idOf).sort());
    expect(messages.find((m) => m.contactId === idOf('C0004'))?.body).toEqual([{ type: 'text', text: 'Hi First4, welcome to pro!' }]);
    const results = new Map(ws.results('import', 'first').map((r) => [r.key, r]));
    expect(results.get('C0001')).toMatchObject({ outcome: 'updated', message_status: '' });
    expect(results.get('C0002')).toMatchObject({ outcome: 'unchanged', message_status: '' });
    expect(results.get('C0003')).toMatchObject({ outcome: 'created', message_status: 'sent', message_error: '' });
    expect(ws.summary('import', 'first').messages).toEqual({ sent: 3, skipped: 0, failed: 0, unknown: 0 });

    // The same file, and the same message with `when: always`: already sent to 3 of them.
    ws.write('jobs.yaml', jobsYaml({ url: emulator.url, job: `${withState(CUSTOMERS_JOB)}\nmessage: { when: always, text: "Hi {{first_name}}, welcome to {{plan}}!" }` }));
    const second = await ws.run(['run', 'jobs.yaml', '--report-dir', 'second']);
    expect(second.exitCode).toBe(0);
    expect(emulator.messages(TOKEN)).toHaveLength(3 + 2);
    const again = new Map(ws.results('import', 'second').map((r) => [r.key, r]));
    expect(again.get('C0003')).toMatchObject({ outcome: 'unchanged', message_status: 'skipped', api_calls: '0' });
    expect(again.get('C0001')).toMatchObject({ message_status: 'sent' });
  });

  it('sends attachments and quick replies in the documented layouts, cancelling a survey only when told to', async () => {
    emulator.loadContacts(TOKEN, [
      { id: '500', custom_fields: { customerid: 'A' } },
      { id: '501', custom_fields: { customerid: 'B' } },
    ]);
    emulator.setSurvey(TOKEN, '500', true);
    emulator.setSurvey(TOKEN, '501', true);
    const ws = workspace();
    ws.write('ids.csv', 'contact_id,doc,first_name\n500,invoice-7,Ann\n501,invoice-8,Bob\n');
    const jobs = [
      'connections:',
      '  main:',
      `    baseUrl: ${emulator.url}`,
      `    token: ${TOKEN}`,
      '    rateLimits: { contacts: 60000/min, messages: 1000/s }',
      'jobs:',
      '  - name: pdf',
      '    connection: main',
      '    input: ids.csv',
      '    mode: message',
      '    state: false',
      '    message: { type: file, url: "https://cdn.example.com/{{doc}}.pdf", contactIdColumn: contact_id, forceCancelSurvey: false }',
      '  - name: ask',
      '    connection: main',
      '    input: ids.csv',
      '    mode: message',
      '    state: false',
      '    message: { type: quick_reply, text: "{{first_name}}, did it arrive?", quickReplies: [Yes, No], contactIdColumn: contact_id, forceCancelSurvey: true }',
      '',
    ].join('\n');
    ws.write('jobs.yaml', jobs);

    const pdf = await ws.run(['run', 'jobs.yaml', '--job', 'pdf', '--report-dir', 'r']);
    expect(pdf.exitCode).toBe(0);
    expect(emulator.hasActiveSurvey(TOKEN, '500')).toBe(true);
    const ask = await ws.run(['run', 'jobs.yaml', '--job', 'ask', '--report-dir', 'r']);
    expect(ask.exitCode).toBe(0);

    const sent = emulator.messages(TOKEN).map((m) => ({ to: m.contactId, body: m.body, force: m.forceCancelSurvey === true }));
    expect(sent).toEqual(
      expect.arrayContaining([
        { to: '500', body: [{ type: 'file', url: 'https://cdn.example.com/invoice-7.pdf' }], force: false },
        { to: '501', body: [{ type: 'file', url: 'https://cdn.example.com/invoice-8.pdf' }], force: false },
        { to: '500', body: [{ type: 'quick_reply', title: 'Ann, did it arrive?', replies: ['Yes', 'No'] }], force: true },
        { to: '501', body: [{ type: 'quick_reply', title: 'Bob, did it arrive?', replies: ['Yes', 'No'] }], force: true },
      ]),
    );
    expect(sent).toHaveLength(4);
    expect(emulator.hasActiveSurvey(TOKEN, '500')).toBe(false);
    expect(emulator.counters(TOKEN).byOperation.searchContacts.received).toBe(0);
  });

  it('a send-only job by key searches each key, skips unknown ones and writes no contact', async () => {
    emulator.loadContacts(TOKEN, [{ id: '700', custom_fields: { customerid: 'K1' } }]);
    const ws = workspace();
    ws.write('keys.csv', 'customer_id\nK1\nK2\n');
    ws.write('jobs.yaml', jobsYaml({ url: emulator.url, job: 'input: keys.csv\nkey: { column: customer_id, field: customerid }\nmode: message\nstate: false\nmessage: { text: "Reminder for {{customer_id}}" }' }));

    const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'r']);

    expect(run.exitCode).toBe(0);
    expect(emulator.messages(TOKEN).map((m) => [m.contactId, m.body])).toEqual([['700', [{ type: 'text', text: 'Reminder for K1' }]]]);
    const results = new Map(ws.results('import', 'r').map((r) => [r.key, r]));
    expect(results.get('K1')).toMatchObject({ outcome: 'unchanged', contact_id: '700', message_status: 'sent', api_calls: '2' });
    expect(results.get('K2')).toMatchObject({ outcome: 'skipped', message_status: '' });
    const counters = emulator.counters(TOKEN).byOperation;
    expect(counters.createContact.received + counters.updateContact.received + counters.addTags.received).toBe(0);
  });

  it('a send whose answer is lost is reported unknown and never sent a second time, even by a re-run', async () => {
    emulator.loadContacts(TOKEN, [{ id: '800', custom_fields: { customerid: 'K1' } }]);
    emulator.setFaults({ sendCommitThenDrop: 1 }, 7);
    const ws = workspace();
    ws.write('ids.csv', 'contact_id\n800\n');
    ws.write('jobs.yaml', jobsYaml({ url: emulator.url, job: 'input: ids.csv\nmode: message\nstate: state/m.db\nmessage: { text: "Your code is ready", contactIdColumn: contact_id }' }));

    const first = await ws.run(['run', 'jobs.yaml', '--report-dir', 'first']);

    expect(first.exitCode).toBe(1);
    expect(emulator.messages(TOKEN)).toHaveLength(1);
    expect(emulator.counters(TOKEN).byOperation.sendMessage.received).toBe(1);
    expect(ws.results('import', 'first')[0]).toMatchObject({ message_status: 'unknown' });
    expect(ws.summary('import', 'first').messages).toMatchObject({ unknown: 1 });

    emulator.setFaults({});
    const second = await ws.run(['run', 'jobs.yaml', '--report-dir', 'second']);
    expect(second.exitCode).toBe(0);
    expect(emulator.counters(TOKEN).byOperation.sendMessage.received).toBe(1);
    expect(ws.results('import', 'second')[0]).toMatchObject({ message_status: 'skipped' });
  });

  it('a row whose rendered message is invalid fails its message with the reason, and the contact is still written', async () => {
    const ws = workspace();
    ws.write('customers.csv', 'customer_id,first_name,choice\nK1,Ann,this reply is far too long for it\nK2,Bob,ok\n');
    ws.write('jobs.yaml', jobsYaml({ url: emulator.url, job: 'input: customers.csv\nkey: { column: customer_id, field: customerid }\nfields: { firstName: first_name }\nstate: false\nmessage: { type: quick_reply, text: "Pick one", quickReplies: ["{{choice}}", "No"] }' }));

    const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'r']);

    expect(run.exitCode).toBe(1);
    const results = new Map(ws.results('import', 'r').map((r) => [r.key, r]));
    expect(results.get('K1')).toMatchObject({ outcome: 'created', message_status: 'failed' });
    expect(results.get('K1')?.message_error).toMatch(/at most 20/);
    expect(results.get('K2')).toMatchObject({ outcome: 'created', message_status: 'sent' });
    expect(emulator.messages(TOKEN)).toHaveLength(1);
  });
});
