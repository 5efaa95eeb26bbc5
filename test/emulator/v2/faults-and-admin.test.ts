/**
 * The injected faults reach v2 by the v1 operation of the same kind (a create commits then drops,
 * a send is recorded then dropped and is found by reading the message list); v2's counters and
 * messages are on the admin API.
 */
import type { RunningEmulator } from '../../../src/emulator/index.js';
import { V2_ENDPOINTS } from '../../../src/emulator/index.js';
import { admin } from '../emulator-http.js';
import { CHANNEL_TOKEN, WORKSPACE_TOKEN, createV2Contact, startV2Emulator, v2 } from './v2-http.js';

let emulator: RunningEmulator;
beforeEach(async () => {
  emulator = await startV2Emulator({ rateLimits: { v2: { limit: 100, periodMs: 1000 } } });
});
afterEach(async () => {
  await emulator.close();
});

describe('faults on v2', () => {
  test('createCommitThenDrop: the answer is lost, the contact is there and is read by its email', async () => {
    emulator.setFaults({ createCommitThenDrop: 1 });
    await expect(v2(emulator, 'POST', '/contact/create_or_update/email:ann@example.com', { json: { firstName: 'Ann' } })).rejects.toThrow();
    emulator.setFaults({});
    expect((await v2(emulator, 'GET', '/contact/email:ann@example.com')).body.firstName).toBe('Ann');
    expect(emulator.v2Counters().byEndpoint[V2_ENDPOINTS.createOrUpdateContact.name]).toEqual({ received: 1, rateLimited: 0, faulted: 1 });
  });

  test('sendCommitThenDrop: the answer is lost, and the message list settles that it went out once', async () => {
    await createV2Contact(emulator, 'email:ann@example.com');
    emulator.setFaults({ sendCommitThenDrop: 1 });
    await expect(v2(emulator, 'POST', '/contact/email:ann@example.com/message', { json: { channelId: 1, message: { type: 'text', text: 'Welcome' } } })).rejects.toThrow();
    emulator.setFaults({});
    const list = await v2(emulator, 'GET', '/contact/email:ann@example.com/message/list');
    expect((list.body.items as Array<{ message: unknown; status: Array<{ value: string }> }>).map((item) => [item.message, item.status.at(-1)?.value])).toEqual([[{ type: 'text', text: 'Welcome' }, 'sent']]);
  });

  test('serverError is 500 {code, message} with the limit headers, and does nothing', async () => {
    emulator.setFaults({ serverError: 1 });
    const answer = await v2(emulator, 'POST', '/contact/email:ann@example.com', { json: { firstName: 'Ann' } });
    expect(answer.status).toBe(500);
    expect(answer.body).toEqual({ code: 500, message: 'Internal server error' });
    expect(answer.headers.get('x-ratelimit-limit')).toBe('100');
    expect(emulator.contacts(CHANNEL_TOKEN)).toEqual([]);
  });

  test('the rateLimited fault is 429 with its Retry-After; operations restricts faults to the endpoints of those kinds', async () => {
    emulator.setFaults({ rateLimited: 1, retryAfterSeconds: 7, operations: ['getContact'] });
    const refused = await v2(emulator, 'GET', '/contact/id:1');
    expect([refused.status, refused.headers.get('retry-after'), refused.body]).toEqual([429, '7', { code: 429, message: 'Too many requests' }]);
    expect((await v2(emulator, 'POST', '/contact/email:ann@example.com', { json: { firstName: 'Ann' } })).status).toBe(200);
  });

  test('sendHtmlBody: the message is recorded, the answer is a proxy\'s HTML page', async () => {
    await createV2Contact(emulator, 'email:ann@example.com');
    emulator.setFaults({ sendHtmlBody: 1 });
    const response = await fetch(`${emulator.v2Url}/contact/email:ann@example.com/message`, {
      method: 'POST',
      headers: { authorization: `Bearer ${WORKSPACE_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ channelId: 1, message: { type: 'text', text: 'hi' } }),
    });
    expect([response.status, response.headers.get('content-type')]).toEqual([200, 'text/html']);
    expect(await response.text()).toContain('We will be back soon');
    expect(emulator.v2Messages()).toHaveLength(1);
  });

  test('echoTokenEscaped: a 403 {code, message} echoing the token with its slashes escaped', async () => {
    await emulator.close();
    emulator = await startV2Emulator({ workspaceTokens: ['ws/token'], faults: { echoTokenEscaped: 1 } });
    const response = await fetch(`${emulator.v2Url}/contact/id:1`, { headers: { authorization: 'Bearer ws/token' } });
    expect(response.status).toBe(403);
    expect(await response.text()).toBe('{"code":403,"message":"Temporary error: the request with token ws\\/token was refused"}');
  });

  test('sendErrorBody, a v1 answer, never hits a v2 send', async () => {
    await createV2Contact(emulator, 'email:ann@example.com');
    emulator.setFaults({ sendErrorBody: 1 });
    const answer = await v2(emulator, 'POST', '/contact/email:ann@example.com/message', { json: { channelId: 1, message: { type: 'text', text: 'hi' } } });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ messageId: expect.any(Number) });
  });
});

describe('admin API for v2', () => {
  test('GET /__admin/v2/counters and /__admin/v2/messages; POST /__admin/counters/reset clears v2\'s too', async () => {
    const id = await createV2Contact(emulator, 'email:ann@example.com');
    await v2(emulator, 'POST', `/contact/id:${id}/message`, { json: { channelId: 1, message: { type: 'text', text: 'hi' } } });
    const counters = await admin(emulator, 'GET', '/v2/counters');
    expect(counters.body.data.total).toEqual({ received: 2, rateLimited: 0, faulted: 0 });
    const messages = await admin(emulator, 'GET', `/v2/messages?contactId=${String(id)}`);
    expect(messages.body.data).toEqual([expect.objectContaining({ contactId: id, message: { type: 'text', text: 'hi' } })]);
    expect((await admin(emulator, 'GET', '/v2/messages?contactId=other')).body.data).toEqual([]);
    await admin(emulator, 'POST', '/counters/reset');
    expect(emulator.v2Counters().total.received).toBe(0);
  });

  test('contacts seeded through the admin API are the workspace\'s', async () => {
    await admin(emulator, 'POST', '/contacts', { json: { contacts: [{ id: '42', custom_fields: { firstName: 'Seed', email: 'seed@example.com' } }] } });
    expect((await v2(emulator, 'GET', '/contact/id:42')).body).toMatchObject({ id: 42, firstName: 'Seed' });
  });
});
