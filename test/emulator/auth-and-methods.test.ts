import { startEmulator } from '../../src/emulator/index.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { TOKEN, api } from './emulator-http.js';

let emulator: RunningEmulator;

beforeEach(async () => {
  emulator = await startEmulator({ channels: [{ token: TOKEN }, { token: 'second-token' }], rateLimits: false });
});
afterEach(async () => {
  await emulator.close();
});

const INVALID = { status: 'error', message: 'The API token is invalid', data: [] };

describe('authentication', () => {
  test.each([
    ['a missing Authorization header', null, undefined],
    ['an unknown token', 'nope', undefined],
    ['a token without the Bearer scheme', null, { authorization: TOKEN }],
    ['an empty Bearer', null, { authorization: 'Bearer ' }],
  ])('answers %s with 401 and the invalid-token envelope', async (_case, token, headers) => {
    const answer = await api(emulator, 'POST', '/v1/contact', {
      token,
      json: { custom_fields: [{ name: 'email', value: 'a@b.c' }] },
      ...(headers === undefined ? {} : { headers }),
    });
    expect(answer.status).toBe(401);
    expect(answer.body).toEqual(INVALID);
    expect(emulator.contacts(TOKEN)).toEqual([]);
  });

  test('every operation needs the token', async () => {
    const calls: Array<[string, string]> = [
      ['GET', '/v1/contact/by_custom_field?name=a&value=b'],
      ['GET', '/v1/contact/1'],
      ['PUT', '/v1/contact/1'],
      ['POST', '/v1/contact/1/tags'],
      ['DELETE', '/v1/contact/1/tags'],
      ['POST', '/v1/contact'],
      ['POST', '/v1/message/sendContent/1'],
    ];
    for (const [method, path] of calls) {
      expect((await api(emulator, method, path, { token: null, ...(method === 'GET' ? {} : { json: {} }) })).status).toBe(401);
    }
  });

  test('the scheme is read case-insensitively', async () => {
    const answer = await api(emulator, 'GET', '/v1/contact/by_custom_field?name=a&value=b', { token: null, headers: { authorization: `bearer ${TOKEN}` } });
    expect(answer.status).toBe(200);
  });

  test('each token acts on its own channel', async () => {
    await api(emulator, 'POST', '/v1/contact', { token: 'second-token', json: { custom_fields: [{ name: 'email', value: 'a@b.c' }] } });
    expect(emulator.contacts('second-token')).toHaveLength(1);
    expect(emulator.contacts(TOKEN)).toEqual([]);
    const id = emulator.contacts('second-token')[0]!.id;
    expect((await api(emulator, 'GET', `/v1/contact/${id}`)).status).toBe(403);
  });
});

describe('methods and paths', () => {
  test.each([
    ['DELETE', '/v1/contact/1'],
    ['PATCH', '/v1/contact/1'],
    ['GET', '/v1/contact'],
    ['PUT', '/v1/contact/1/tags'],
    ['GET', '/v1/message/sendContent/1'],
    ['POST', '/v1/contact/by_custom_field'],
  ])('answers %s %s with 405 "405 Method Not Allowed"', async (method, path) => {
    const answer = await api(emulator, method, path);
    expect(answer.status).toBe(405);
    expect(answer.body).toEqual({ status: 'error', message: '405 Method Not Allowed', data: [] });
  });

  test('answers an unknown path with 404 in the error envelope', async () => {
    const answer = await api(emulator, 'GET', '/v2/contact/1');
    expect(answer.status).toBe(404);
    expect(answer.body).toEqual({ status: 'error', message: expect.any(String), data: [] });
  });

  // Clients of the live API write `POST /v1/contact/` (issue 28): a trailing slash is the same route.
  test('a trailing slash names the same route, on every path', async () => {
    const created = await api(emulator, 'POST', '/v1/contact/', { json: { custom_fields: [{ name: 'email', value: 'ann@example.com' }] } });
    expect(created.status).toBe(200);
    const id = created.body.data.id as string;
    expect(emulator.contacts(TOKEN).map((contact) => contact.id)).toEqual([id]);

    const search = await api(emulator, 'GET', '/v1/contact/by_custom_field/?name=email&value=ann%40example.com');
    expect(search.status).toBe(200);
    expect((search.body.data as Array<{ id: string }>).map((contact) => contact.id)).toEqual([id]);
    expect((await api(emulator, 'GET', `/v1/contact/${id}/`)).body.data.id).toBe(id);
    expect((await api(emulator, 'PUT', `/v1/contact/${id}/`, { json: { custom_fields: [{ name: 'firstName', value: 'Ann' }] } })).status).toBe(200);
    expect((await api(emulator, 'POST', `/v1/contact/${id}/tags/`, { json: { tags: ['vip', 'new'] } })).status).toBe(200);
    expect((await api(emulator, 'DELETE', `/v1/contact/${id}/tags/`, { json: { tags: ['new'] } })).status).toBe(200);
    expect((await api(emulator, 'POST', `/v1/message/sendContent/${id}/`, { json: { body: [{ type: 'text', text: 'Hi' }] } })).status).toBe(200);

    expect(emulator.contacts(TOKEN)).toEqual([expect.objectContaining({ id, tags: ['vip'], custom_fields: expect.objectContaining({ firstName: 'Ann' }) })]);
    expect(emulator.messages(TOKEN, id)).toHaveLength(1);
  });

  test('GET /v1/contact/ is the collection (405), not a lookup of contact ""', async () => {
    const answer = await api(emulator, 'GET', '/v1/contact/');
    expect(answer.status).toBe(405);
    expect(answer.body).toEqual({ status: 'error', message: '405 Method Not Allowed', data: [] });
    expect(emulator.counters(TOKEN).total.received).toBe(0);
  });

  test('serves the API only under the /api root', async () => {
    const response = await fetch(`${emulator.origin}/v1/contact/by_custom_field?name=a&value=b`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(response.status).toBe(404);
  });
});
