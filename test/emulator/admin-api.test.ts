import { startEmulator } from '../../src/emulator/index.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { TOKEN, admin, api, createContact } from './emulator-http.js';

const OTHER = 'other-token';
let emulator: RunningEmulator;

beforeEach(async () => {
  emulator = await startEmulator({
    channels: [{ token: TOKEN, name: 'main' }, { token: OTHER, type: 'viber', name: 'second' }],
    rateLimits: false,
    adminKey: 'admin-secret',
  });
});
afterEach(async () => {
  await emulator.close();
});

describe('admin API access', () => {
  test.each([
    ['no admin key', {}],
    ['a wrong admin key', { 'x-admin-key': 'guess' }],
    ['a channel token as admin key', { 'x-admin-key': TOKEN }],
    ['a channel token as bearer', { authorization: `Bearer ${TOKEN}` }],
  ])('refuses %s with 401', async (_case, headers) => {
    const response = await fetch(`${emulator.origin}/__admin/contacts?channel=main`, { headers });
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ status: 'error', message: expect.stringContaining('x-admin-key'), data: [] });
  });

  test('the admin key is the one given, or a random one when none is', async () => {
    expect(emulator.adminKey).toBe('admin-secret');
    const other = await startEmulator();
    try {
      expect(other.adminKey).toMatch(/^[0-9a-f]{32}$/);
      expect((await admin(other, 'GET', '/contacts')).status).toBe(200);
    } finally {
      await other.close();
    }
  });

  test('the admin API is not under the API root', async () => {
    expect((await api(emulator, 'GET', '/__admin/contacts', { headers: { 'x-admin-key': 'admin-secret' } })).status).toBe(404);
  });
});

describe('admin API operations', () => {
  test('lists the channels by name and type, never by token', async () => {
    const answer = await admin(emulator, 'GET', '/channels');
    expect(answer.body).toEqual({
      data: [
        { name: 'main', type: 'generic', contacts: 0, messages: 0 },
        { name: 'second', type: 'viber', contacts: 0, messages: 0 },
      ],
    });
    expect(JSON.stringify(answer.body)).not.toContain(TOKEN);
  });

  test('loads contacts with given or generated ids and created_at, and dumps them', async () => {
    const loaded = await admin(emulator, 'POST', '/contacts?channel=main', {
      json: { contacts: [{ id: '900', custom_fields: { email: 'a@b.c' }, tags: ['x'], created_at: 1_600_000_000 }, { custom_fields: { email: 'd@e.f' } }] },
    });
    expect(loaded.status).toBe(200);
    expect(loaded.body.data[0]).toEqual({ id: '900', custom_fields: { email: 'a@b.c' }, tags: ['x'], created_at: 1_600_000_000 });
    expect(loaded.body.data[1]).toEqual({ id: expect.stringMatching(/^\d+$/), custom_fields: { email: 'd@e.f' }, tags: [], created_at: expect.any(Number) });
    const dump = await admin(emulator, 'GET', '/contacts', { headers: { 'x-channel-token': TOKEN } });
    expect(dump.body).toEqual({ data: loaded.body.data });
    expect((await admin(emulator, 'GET', '/contacts?channel=second')).body).toEqual({ data: [] });
    const search = await api(emulator, 'GET', '/v1/contact/by_custom_field?name=email&value=a%40b.c');
    expect((search.body.data as Array<{ id: string }>).map((contact) => contact.id)).toEqual(['900']);
  });

  test('refuses loading an id that exists (409) and non-string values (400)', async () => {
    emulator.loadContacts(TOKEN, [{ id: '1' }]);
    expect((await admin(emulator, 'POST', '/contacts?channel=main', { json: { contacts: [{ id: '1' }] } })).status).toBe(409);
    const bad = await admin(emulator, 'POST', '/contacts?channel=main', { json: { contacts: [{ custom_fields: { n: 1 } }] } });
    expect([bad.status, bad.body.message]).toEqual([400, expect.stringContaining('contacts[0].custom_fields.n must be a string')]);
  });

  test('needs the channel named when there are several, and refuses unknown ones', async () => {
    expect((await admin(emulator, 'GET', '/contacts')).status).toBe(400);
    expect((await admin(emulator, 'GET', '/contacts?channel=nope')).status).toBe(404);
    expect((await admin(emulator, 'GET', '/contacts', { headers: { 'x-channel-token': 'nope' } })).status).toBe(404);
  });

  test('deletes a contact, as if deleted on the platform', async () => {
    const id = await createContact(emulator, { customerid: '1' });
    expect((await admin(emulator, 'DELETE', `/contacts/${id}?channel=main`)).status).toBe(200);
    expect(emulator.contacts(TOKEN)).toEqual([]);
    expect((await api(emulator, 'GET', `/v1/contact/${id}`)).body.message).toContain('no such contact');
    expect((await admin(emulator, 'DELETE', `/contacts/${id}?channel=main`)).status).toBe(404);
  });

  test('sets and ends a survey, and lists the contacts with one', async () => {
    const id = await createContact(emulator, { customerid: '1' });
    expect((await admin(emulator, 'PUT', `/contacts/${id}/survey?channel=main`, { json: { active: true } })).status).toBe(200);
    expect((await admin(emulator, 'GET', '/surveys?channel=main')).body).toEqual({ data: [id] });
    expect(emulator.hasActiveSurvey(TOKEN, id)).toBe(true);
    await admin(emulator, 'PUT', `/contacts/${id}/survey?channel=main`, { json: { active: false } });
    expect(emulator.hasActiveSurvey(TOKEN, id)).toBe(false);
    expect((await admin(emulator, 'PUT', `/contacts/${id}/survey?channel=main`, { json: { active: 'yes' } })).status).toBe(400);
    expect((await admin(emulator, 'PUT', '/contacts/404/survey?channel=main', { json: { active: true } })).status).toBe(404);
  });

  test('dumps the messages of a channel, all or to one contact', async () => {
    const [a, b] = emulator.loadContacts(TOKEN, [{}, {}]);
    for (const contact of [a, b, a]) {
      await api(emulator, 'POST', `/v1/message/sendContent/${contact!.id}`, { json: { body: [{ type: 'text', text: contact!.id }] } });
    }
    expect((await admin(emulator, 'GET', '/messages?channel=main')).body.data).toHaveLength(3);
    const toA = await admin(emulator, 'GET', `/messages?channel=main&contactId=${a!.id}`);
    expect(toA.body.data).toEqual([
      expect.objectContaining({ contactId: a!.id, body: [{ type: 'text', text: a!.id }], cancelledSurvey: false, sentAt: expect.any(Number) }),
      expect.objectContaining({ contactId: a!.id }),
    ]);
  });

  test('reads and resets call counters', async () => {
    await createContact(emulator, { customerid: '1' });
    await api(emulator, 'GET', '/v1/contact/by_custom_field?name=customerid&value=1');
    const counters = await admin(emulator, 'GET', '/counters?channel=main');
    expect(counters.body.data.byOperation.createContact).toEqual({ received: 1, rateLimited: 0, faulted: 0 });
    expect(counters.body.data.total.received).toBe(2);
    expect((await admin(emulator, 'POST', '/counters/reset')).status).toBe(200);
    expect(emulator.counters(TOKEN).total.received).toBe(0);
  });

  test('resets one channel or all of them', async () => {
    await createContact(emulator, { customerid: '1' });
    await createContact(emulator, { customerid: '2' }, OTHER);
    await admin(emulator, 'POST', '/reset?channel=second');
    expect(emulator.contacts(OTHER)).toEqual([]);
    expect(emulator.contacts(TOKEN)).toHaveLength(1);
    emulator.setFaults({ serverError: 1 });
    await admin(emulator, 'POST', '/reset');
    expect(emulator.contacts(TOKEN)).toEqual([]);
    expect(emulator.counters(TOKEN).total.received).toBe(0);
    expect((await admin(emulator, 'GET', '/faults')).body).toEqual({ data: {} });
  });

  test('a reset never reuses contact ids', async () => {
    const before = await createContact(emulator, { customerid: '1' });
    emulator.reset();
    const after = await createContact(emulator, { customerid: '1' });
    expect(after).not.toBe(before);
    expect(emulator.contacts(TOKEN).map((contact) => contact.id)).toEqual([after]);
  });
});
