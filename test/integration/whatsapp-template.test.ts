/**
 * Issue 28: a job whose message is a WhatsApp template (the one message that may start a
 * conversation on a WhatsApp channel): its parts rendered from the row, sent at most once per
 * contact, the 201 answer taken as sent, and reported like any message.
 */
import type { RunningEmulator } from '../../src/emulator/index.js';
import { CUSTOMERS_JOB, TOKEN, customersCsv, fastEmulator, jobsYaml, workspace } from '../helpers/cli-harness.js';

const TEMPLATE_JOB = `${CUSTOMERS_JOB.replace('state: false', 'state: state/import.db')}
message:
  when: created
  type: whatsapp_template
  template: { name: "welcome_{{plan}}", language: en, body: "Hi {{first_name}}, welcome to the {{plan}} plan!" }`;

let emulator: RunningEmulator;
beforeEach(async () => {
  emulator = await fastEmulator();
});
afterEach(async () => {
  await emulator.close();
});

const idOf = (key: string) => emulator.contacts(TOKEN).find((c) => c.custom_fields.customerid === key)?.id;

describe('message: type whatsapp_template', () => {
  it('welcomes each created contact with the template rendered from its row, once, reported as sent', async () => {
    emulator.loadContacts(TOKEN, [{ custom_fields: { customerid: 'C0001', firstName: 'First1', lastName: 'Last1', email: 'user1@example.com', plan: 'basic' }, tags: ['crm', 'newsletter'] }]);
    const ws = workspace();
    ws.write('customers.csv', customersCsv(3));
    ws.write('jobs.yaml', jobsYaml({ url: emulator.url, job: TEMPLATE_JOB }));

    const first = await ws.run(['run', 'jobs.yaml', '--report-dir', 'first']);

    expect(first.exitCode).toBe(0);
    expect(emulator.messages(TOKEN).map((m) => [m.contactId, m.body])).toEqual(
      expect.arrayContaining([
        [idOf('C0002'), [{ type: 'whatsapp_template', template: { name: 'welcome_pro', languageCode: 'en', components: [{ type: 'body', text: 'Hi First2, welcome to the pro plan!' }] } }]],
        [idOf('C0003'), [{ type: 'whatsapp_template', template: { name: 'welcome_basic', languageCode: 'en', components: [{ type: 'body', text: 'Hi First3, welcome to the basic plan!' }] } }]],
      ]),
    );
    expect(emulator.messages(TOKEN)).toHaveLength(2);
    const results = new Map(ws.results('import', 'first').map((r) => [r.key, r]));
    expect(results.get('C0001')).toMatchObject({ outcome: 'unchanged', message_status: '' });
    expect(results.get('C0002')).toMatchObject({ outcome: 'created', message_status: 'sent', message_error: '' });
    expect(results.get('C0003')).toMatchObject({ outcome: 'created', message_status: 'sent', message_error: '' });
    expect(ws.summary('import', 'first').messages).toEqual({ sent: 2, skipped: 0, failed: 0, unknown: 0 });
    // One call each: the 201 answer was taken as sent, not retried.
    expect(emulator.counters(TOKEN).byOperation.sendMessage.received).toBe(2);

    // when: always on the same file: the two already welcomed are skipped, only C0001 gets it.
    ws.write('jobs.yaml', jobsYaml({ url: emulator.url, job: TEMPLATE_JOB.replace('when: created', 'when: always') }));
    const second = await ws.run(['run', 'jobs.yaml', '--report-dir', 'second']);
    expect(second.exitCode).toBe(0);
    const again = new Map(ws.results('import', 'second').map((r) => [r.key, r]));
    expect(again.get('C0002')).toMatchObject({ message_status: 'skipped' });
    expect(again.get('C0003')).toMatchObject({ message_status: 'skipped' });
    expect(again.get('C0001')).toMatchObject({ message_status: 'sent' });
    expect(emulator.messages(TOKEN)).toHaveLength(3);
    expect(emulator.messages(TOKEN, idOf('C0001'))).toHaveLength(1);
  });

  it('a row whose template name cannot be approved fails its message, naming the value, and sends nothing', async () => {
    const ws = workspace();
    ws.write('customers.csv', customersCsv(2, (i, cells) => (i === 2 ? [...cells.slice(0, 4), 'Pro Plus', cells[5]!] : cells)));
    ws.write('jobs.yaml', jobsYaml({ url: emulator.url, job: TEMPLATE_JOB }));

    const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'r']);

    expect(run.exitCode).toBe(1);
    const results = new Map(ws.results('import', 'r').map((r) => [r.key, r]));
    expect(results.get('C0001')).toMatchObject({ outcome: 'created', message_status: 'sent' });
    expect(results.get('C0002')).toMatchObject({ outcome: 'created', message_status: 'failed', message_error: expect.stringContaining('"welcome_Pro Plus" is not a WhatsApp template name') });
    expect(emulator.messages(TOKEN).map((m) => m.contactId)).toEqual([idOf('C0001')]);
  });
});
