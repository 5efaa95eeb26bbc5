/**
 * Issue 28: the answers the live service is known to give besides the spec's, each behind an
 * option (docs/emulator.md, "What real clients send and expect").
 */
import { typedValue } from '../../src/emulator/contact-answer.js';
import { startEmulator } from '../../src/emulator/index.js';
import type { EmulatorOptions, RunningEmulator } from '../../src/emulator/index.js';
import { TOKEN, api } from './emulator-http.js';

let emulator: RunningEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

async function start(options: EmulatorOptions): Promise<RunningEmulator> {
  emulator = await startEmulator({ rateLimits: false, ...options });
  return emulator;
}

const FIELDS = { customerid: '1', isLead: 'true', optOut: 'false', timezone: '5', score: '-2.5', phone: '+6591234567', zip: '007', email: 'ann@example.com' };

describe('valueTypes: how contact reads answer values', () => {
  test('strings by default (spec, platform notes)', async () => {
    const running = await start({});
    const [contact] = running.loadContacts(TOKEN, [{ custom_fields: FIELDS }]);
    expect((await api(running, 'GET', `/v1/contact/${contact!.id}`)).body.data.custom_fields).toEqual(FIELDS);
  });

  test('typed: get and search answer booleans and plain numbers as JSON values (a reseller\'s sample: "isLead": true)', async () => {
    const running = await start({ valueTypes: 'typed' });
    const [contact] = running.loadContacts(TOKEN, [{ custom_fields: FIELDS }]);
    const typed = { customerid: 1, isLead: true, optOut: false, timezone: 5, score: -2.5, phone: '+6591234567', zip: '007', email: 'ann@example.com' };
    expect((await api(running, 'GET', `/v1/contact/${contact!.id}`)).body.data.custom_fields).toEqual(typed);
    const page = await api(running, 'GET', '/v1/contact/by_custom_field?name=isLead&value=true');
    expect(page.body.data).toEqual([expect.objectContaining({ id: contact!.id, custom_fields: typed })]);
    // The store and the admin view keep the strings written.
    expect(running.contacts(TOKEN)[0]!.custom_fields).toEqual(FIELDS);
  });

  test.each([
    ['true', true],
    ['false', false],
    ['5', 5],
    ['0', 0],
    ['-2.5', -2.5],
    ['True', 'True'],
    ['007', '007'],
    ['1.50', '1.50'],
    ['1e3', '1e3'],
    ['+65', '+65'],
    ['', ''],
    ['12345678901234567890', '12345678901234567890'],
  ])('typedValue(%j) is %j', (value, typed) => {
    expect(typedValue(value)).toEqual(typed);
  });

  test('refuses an unknown valueTypes, naming the option and the choices', async () => {
    await expect(startEmulator({ valueTypes: 'numbers' as never })).rejects.toThrow(/valueTypes: "numbers" is not a way to answer values; use strings or typed/);
  });
});

describe('updateAnswerId: what update contact answers as data.id', () => {
  const update = (running: RunningEmulator, id: string) =>
    api(running, 'PUT', `/v1/contact/${id}`, { json: { custom_fields: [{ name: 'firstName', value: 'Ann' }] } });

  test('the contact\'s id by default (spec, operation 3)', async () => {
    const running = await start({});
    const [contact] = running.loadContacts(TOKEN, [{}]);
    expect((await update(running, contact!.id)).body).toEqual({ data: { id: contact!.id } });
  });

  test('cus: an id of another form, as the live docs\' sample; the same for the same contact, and the update done', async () => {
    const running = await start({ updateAnswerId: 'cus' });
    const [first, second] = running.loadContacts(TOKEN, [{}, {}]);
    const answer = await update(running, first!.id);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ data: { id: expect.stringMatching(/^cus_[0-9a-f]{16}$/) } });
    expect((await update(running, first!.id)).body).toEqual(answer.body);
    expect((await update(running, second!.id)).body.data.id).not.toBe(answer.body.data.id);
    expect(running.contacts(TOKEN)[0]).toEqual(expect.objectContaining({ id: first!.id, custom_fields: { firstName: 'Ann' } }));
    // Create still answers the new contact's id.
    const created = await api(running, 'POST', '/v1/contact', { json: { custom_fields: [{ name: 'email', value: 'b@x.io' }] } });
    expect(running.contacts(TOKEN).map((contact) => contact.id)).toContain(created.body.data.id);
  });

  test('refuses an unknown updateAnswerId', async () => {
    await expect(startEmulator({ updateAnswerId: 'uuid' as never })).rejects.toThrow(/updateAnswerId: "uuid" is not an answer of update; use contact or cus/);
  });
});
