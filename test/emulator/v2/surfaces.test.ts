/**
 * One store, two surfaces: a workspace's channels share its contacts, which v1 and v2 both read
 * and write; v2 ids are the v1 ids as numbers; a channel token opens only /api/v1 and a workspace
 * token only /v2, each refused in its surface's error shape.
 */
import { EmulatorOptionsError, startEmulator, type RunningEmulator } from '../../../src/emulator/index.js';
import { api, createContact } from '../emulator-http.js';
import { CHANNEL_TOKEN, WORKSPACE_TOKEN, createV2Contact, startV2Emulator, v2 } from './v2-http.js';

let emulator: RunningEmulator;
afterEach(async () => {
  await emulator.close();
});

describe('one contact store for v1 and v2', () => {
  test('a contact created through v1 is read and updated through v2 by its id as a number', async () => {
    emulator = await startV2Emulator();
    const v1Id = await createContact(emulator, { firstName: 'Ann', email: 'ann@example.com', customerid: 'C7' });
    const read = await v2(emulator, 'GET', `/contact/id:${v1Id}`);
    expect(read.body).toMatchObject({ id: Number(v1Id), firstName: 'Ann', email: 'ann@example.com', custom_fields: [{ name: 'customerid', value: 'C7' }] });
    expect((await v2(emulator, 'PUT', '/contact/email:ann@example.com', { json: { lastName: 'Lee' } })).body).toEqual({ contactId: Number(v1Id) });
    expect((await api(emulator, 'GET', `/v1/contact/${v1Id}`)).body.data.custom_fields).toEqual({ firstName: 'Ann', email: 'ann@example.com', customerid: 'C7', lastName: 'Lee' });
  });

  test('a contact created through v2 is found by a v1 search and tagged through v1', async () => {
    emulator = await startV2Emulator();
    const id = await createV2Contact(emulator, 'phone:+6591234567', { custom_fields: [{ name: 'customerid', value: 'C9' }] });
    const search = await api(emulator, 'GET', '/v1/contact/by_custom_field?name=customerid&value=C9');
    expect((search.body.data as Array<{ id: string }>).map((contact) => contact.id)).toEqual([String(id)]);
    expect((await api(emulator, 'POST', `/v1/contact/${id}/tags`, { json: { tags: ['vip'] } })).status).toBe(200);
    expect((await v2(emulator, 'GET', `/contact/id:${id}`)).body.tags).toEqual(['vip']);
  });

  test('every channel of the workspace sees the workspace\'s contacts', async () => {
    emulator = await startV2Emulator({ channels: [{ token: 'ch-1' }, { token: 'ch-2' }] });
    const id = await createContact(emulator, { firstName: 'Ann' }, 'ch-1');
    expect((await api(emulator, 'GET', `/v1/contact/${id}`, { token: 'ch-2' })).status).toBe(200);
    expect(emulator.contacts('ch-2')).toHaveLength(1);
  });

  test('without a workspace each channel keeps its own contacts, as before', async () => {
    emulator = await startEmulator({ channels: [{ token: 'ch-1' }, { token: 'ch-2' }], rateLimits: false });
    const id = await createContact(emulator, { firstName: 'Ann' }, 'ch-1');
    expect((await api(emulator, 'GET', `/v1/contact/${id}`, { token: 'ch-2' })).status).toBe(403);
  });

  test('a contact seeded with an id that is not a number gets a number of its own, stable across reads', async () => {
    emulator = await startV2Emulator();
    emulator.loadContacts(CHANNEL_TOKEN, [{ id: 'c1', custom_fields: { firstName: 'Ann', email: 'ann@example.com' } }]);
    const first = (await v2(emulator, 'GET', '/contact/email:ann@example.com')).body.id;
    expect(Number.isSafeInteger(first)).toBe(true);
    expect(emulator.v2Id('c1')).toBe(first);
    expect((await v2(emulator, 'GET', `/contact/id:${first}`)).body.firstName).toBe('Ann');
  });

  test('a reset of one channel leaves the workspace\'s contacts; a reset of everything empties them', async () => {
    emulator = await startV2Emulator();
    await createV2Contact(emulator, 'email:ann@example.com');
    emulator.reset(CHANNEL_TOKEN);
    expect(emulator.contacts(CHANNEL_TOKEN)).toHaveLength(1);
    emulator.reset();
    expect(emulator.contacts(CHANNEL_TOKEN)).toEqual([]);
    expect((await v2(emulator, 'GET', '/contact/email:ann@example.com')).status).toBe(404);
  });
});

describe('tokens per surface', () => {
  beforeEach(async () => {
    emulator = await startV2Emulator();
  });

  test('a channel token on /v2 is 401 in v2\'s shape', async () => {
    const answer = await v2(emulator, 'GET', '/contact/id:1', { token: CHANNEL_TOKEN });
    expect(answer.status).toBe(401);
    expect(answer.body).toEqual({ code: 401, message: 'Unauthorized: the access token is invalid' });
    expect((await v2(emulator, 'GET', '/contact/id:1', { token: null })).status).toBe(401);
  });

  test('a workspace token on /api/v1 is 401 in v1\'s shape', async () => {
    const answer = await api(emulator, 'GET', '/v1/contact/by_custom_field?name=email&value=x', { token: WORKSPACE_TOKEN });
    expect(answer.status).toBe(401);
    expect(answer.body).toEqual({ status: 'error', message: 'The API token is invalid', data: [] });
  });

  test('an unknown v2 path is 404 and another method on a known one 405, both {code, message}', async () => {
    expect((await v2(emulator, 'GET', '/nothing')).body).toEqual({ code: 404, message: 'no route GET /v2/nothing' });
    const answer = await v2(emulator, 'PATCH', '/contact/id:1');
    expect(answer.status).toBe(405);
    expect(answer.body).toEqual({ code: 405, message: 'Method not allowed' });
    expect(answer.headers.get('allow')).toBe('GET, POST, PUT, DELETE');
  });

  test('without workspace tokens every v2 request is 401', async () => {
    await emulator.close();
    emulator = await startEmulator({ rateLimits: false });
    expect((await v2(emulator, 'GET', '/contact/id:1')).status).toBe(401);
  });
});

describe('workspace options', () => {
  test('are checked all at once, naming the option and the fix, never echoing a token', async () => {
    emulator = await startV2Emulator(); // closed by afterEach; the starts below must fail
    const tokens = Array.from({ length: 11 }, (_, i) => `w${i}`);
    let thrown: unknown;
    try {
      await startEmulator({ channels: [{ token: 'same' }], workspaceTokens: [...tokens.slice(0, 9), 'same', ''], adminKey: 'w0' });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(EmulatorOptionsError);
    expect((thrown as EmulatorOptionsError).problems).toEqual([
      'workspaceTokens: holds 11 tokens; a workspace has at most 10',
      'workspaceTokens[9]: is also a channel token; a channel token opens only /api/v1 and a workspace token only /v2, so give them different values',
      "workspaceTokens[10]: is empty; give the workspace's access token",
      'adminKey: equals a workspace token; the admin API must not be reachable with a workspace token',
    ]);
    await expect(startEmulator({ rateLimits: { v2: { limit: 0, periodMs: 1000 } } })).rejects.toThrow('rateLimits.v2.limit: 0 must be a whole number of calls >= 1 (or set it to false)');
  });
});
