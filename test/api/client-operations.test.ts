/** Every operation of the spec through ApiClient against the emulator. */
import { ApiCallStats } from '../../src/api/call-stats.js';
import type { ApiClient } from '../../src/api/v1/client.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { testClient } from './support/test-client.js';

const TOKEN = 'demo-token';
let emulator: RunningEmulator;
let client: ApiClient;

beforeAll(async () => {
  emulator = await startEmulator({ rateLimits: false });
});
afterAll(() => emulator.close());
beforeEach(() => {
  emulator.reset();
  client = testClient({ baseUrl: emulator.url });
});

describe('ApiClient against the emulator', () => {
  it('creates a contact with the given fields and returns its id (operation 6)', async () => {
    const { id } = await client.createContact({ customerid: '42', email: 'ann@example.com' });
    expect(emulator.contacts(TOKEN)).toEqual([expect.objectContaining({ id, custom_fields: { customerid: '42', email: 'ann@example.com' } })]);
  });

  it('reads a contact by id (operation 2)', async () => {
    const [stored] = emulator.loadContacts(TOKEN, [{ custom_fields: { firstName: 'Ann' }, tags: ['vip'] }]);
    await expect(client.getContact(stored!.id)).resolves.toEqual(stored);
  });

  it('changes only the named fields on update (operation 3)', async () => {
    const [stored] = emulator.loadContacts(TOKEN, [{ custom_fields: { firstName: 'Ann', lastName: 'Lee' } }]);
    await expect(client.updateContact(stored!.id, { lastName: 'Smith' })).resolves.toBeUndefined();
    expect(emulator.contacts(TOKEN)[0]?.custom_fields).toEqual({ firstName: 'Ann', lastName: 'Smith' });
  });

  it('adds then removes tags (operations 4 and 5)', async () => {
    const [stored] = emulator.loadContacts(TOKEN, [{ tags: ['old'] }]);
    await client.addTags(stored!.id, ['vip', 'crm']);
    expect(emulator.contacts(TOKEN)[0]?.tags.sort()).toEqual(['crm', 'old', 'vip']);
    await client.removeTags(stored!.id, ['old', 'vip']);
    expect(emulator.contacts(TOKEN)[0]?.tags).toEqual(['crm']);
  });

  it('finds contacts by a custom field, one page or all (operation 1)', async () => {
    emulator.loadContacts(TOKEN, [{ custom_fields: { email: 'a@x.io' } }, { custom_fields: { email: 'b@x.io' } }]);
    const page = await client.searchContactsPage('email', 'b@x.io');
    expect(page.items.map((c) => c.custom_fields.email)).toEqual(['b@x.io']);
    expect(page.pages).toBe(1);
    const all: string[] = [];
    for await (const contacts of client.searchContacts('email', 'nobody@x.io')) all.push(...contacts.map((c) => c.id));
    expect(all).toEqual([]);
  });

  it('finds a contact holding the email in another case: the emulator matches emails as the platform does', async () => {
    const [stored] = emulator.loadContacts(TOKEN, [{ custom_fields: { email: 'ANN@Example.com' } }]);
    const page = await client.searchContactsPage('email', 'ann@example.com');
    expect(page.items.map((c) => [c.id, c.custom_fields.email])).toEqual([[stored!.id, 'ANN@Example.com']]);
  });

  it('finds a phone number with a leading + (the query value is percent-encoded)', async () => {
    const [stored] = emulator.loadContacts(TOKEN, [{ custom_fields: { phone: '+6591234567' } }]);
    const page = await client.searchContactsPage('phone', '+6591234567');
    expect(page.items.map((c) => c.id)).toEqual([stored!.id]);
  });

  it('sends a text, an attachment and quick replies in the documented layouts (operations 7 to 9)', async () => {
    const [stored] = emulator.loadContacts(TOKEN, [{}]);
    const id = stored!.id;
    await client.sendText(id, 'Hello');
    await client.sendAttachment(id, 'image', 'https://cdn.example.com/a.png');
    await client.sendQuickReplies(id, 'Coming?', ['Yes', 'No']);
    expect(emulator.messages(TOKEN, id).map((m) => m.body)).toEqual([
      [{ type: 'text', text: 'Hello' }],
      [{ type: 'image', url: 'https://cdn.example.com/a.png' }],
      [{ type: 'quick_reply', title: 'Coming?', replies: ['Yes', 'No'] }],
    ]);
  });

  it('sends a WhatsApp template in the layout of client code and a reseller\'s page, and takes its 201 answer as sent', async () => {
    const [stored] = emulator.loadContacts(TOKEN, [{}]);
    await expect(client.sendTemplate(stored!.id, { name: 'welcome_v2', languageCode: 'pt_BR', body: 'Olá Ana!' })).resolves.toBeUndefined();
    expect(emulator.messages(TOKEN, stored!.id).map((m) => m.body)).toEqual([
      [{ type: 'whatsapp_template', template: { name: 'welcome_v2', languageCode: 'pt_BR', components: [{ type: 'body', text: 'Olá Ana!' }] } }],
    ]);
    expect(emulator.counters(TOKEN).byOperation.sendMessage.received).toBe(1);
  });

  it('sends an attachment at a URL without an extension, as every public sample does', async () => {
    const [stored] = emulator.loadContacts(TOKEN, [{}]);
    for (const type of ['image', 'video', 'audio', 'file'] as const) await client.sendAttachment(stored!.id, type, 'http://abc.com');
    expect(emulator.messages(TOKEN, stored!.id).map((m) => m.body[0])).toEqual(
      ['image', 'video', 'audio', 'file'].map((type) => ({ type, url: 'http://abc.com' })),
    );
  });

  it('cancels an active survey only with forceCancelSurvey', async () => {
    const [stored] = emulator.loadContacts(TOKEN, [{}]);
    const id = stored!.id;
    emulator.setSurvey(TOKEN, id, true);
    await client.sendText(id, 'one');
    expect(emulator.hasActiveSurvey(TOKEN, id)).toBe(true);
    await client.sendText(id, 'two', { forceCancelSurvey: true });
    expect(emulator.hasActiveSurvey(TOKEN, id)).toBe(false);
  });

  it('counts one request per call per operation in a shared ApiCallStats', async () => {
    const stats = new ApiCallStats();
    const first = testClient({ baseUrl: emulator.url, stats });
    const second = testClient({ baseUrl: emulator.url, stats });
    const { id } = await first.createContact({ customerid: '1' });
    await second.getContact(id);
    await second.addTags(id, ['a']);
    expect(stats.total()).toBe(3);
    expect(stats.byOperation.createContact).toEqual({ requests: 1, retries: 0, rateLimited: 0 });
    expect(stats.byOperation.getContact.requests).toBe(1);
    expect(stats.byOperation.addTags.requests).toBe(1);
    expect(emulator.counters(TOKEN).total.received).toBe(3);
  });
});
