import { encodeViberId } from '../../src/api/wire-types.js';
import { startEmulator } from '../../src/emulator/index.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { api, createContact } from './emulator-http.js';

const VIBER = 'viber-token';
let emulator: RunningEmulator;
let id: string;

beforeEach(async () => {
  emulator = await startEmulator({ channels: [{ token: VIBER, type: 'viber' }, { token: 'generic-token' }], rateLimits: false });
  id = await createContact(emulator, { customerid: '1' }, VIBER);
});
afterEach(async () => {
  await emulator.close();
});

const encoded = () => encodeViberId(id);

describe('Viber channels: Base64 contact ids in the encoded operations', () => {
  test('update contact takes the Base64 id and refuses the plain one as "no such contact"', async () => {
    const ok = await api(emulator, 'PUT', `/v1/contact/${encoded()}`, { token: VIBER, json: { custom_fields: [{ name: 'firstName', value: 'Ada' }] } });
    expect(ok.status).toBe(200);
    expect(emulator.contacts(VIBER)[0]?.custom_fields.firstName).toBe('Ada');
    const plain = await api(emulator, 'PUT', `/v1/contact/${id}`, { token: VIBER, json: { custom_fields: [{ name: 'firstName', value: 'Bob' }] } });
    expect([plain.status, plain.body.message]).toEqual([403, expect.stringContaining('no such contact')]);
    expect(emulator.contacts(VIBER)[0]?.custom_fields.firstName).toBe('Ada');
  });

  test('remove tags takes the Base64 id; add tags takes the plain id', async () => {
    expect((await api(emulator, 'POST', `/v1/contact/${id}/tags`, { token: VIBER, json: { tags: ['a', 'b'] } })).status).toBe(200);
    expect((await api(emulator, 'POST', `/v1/contact/${encoded()}/tags`, { token: VIBER, json: { tags: ['c'] } })).status).toBe(403);
    expect((await api(emulator, 'DELETE', `/v1/contact/${id}/tags`, { token: VIBER, json: { tags: ['a'] } })).status).toBe(403);
    expect((await api(emulator, 'DELETE', `/v1/contact/${encoded()}/tags`, { token: VIBER, json: { tags: ['a'] } })).status).toBe(200);
    expect(emulator.contacts(VIBER)[0]?.tags).toEqual(['b']);
  });

  test('send message takes the Base64 id and records the plain id', async () => {
    const plain = await api(emulator, 'POST', `/v1/message/sendContent/${id}`, { token: VIBER, json: { body: [{ type: 'text', text: 'x' }] } });
    expect(plain.status).toBe(403);
    const ok = await api(emulator, 'POST', `/v1/message/sendContent/${encoded()}`, { token: VIBER, json: { body: [{ type: 'text', text: 'x' }] } });
    expect(ok.status).toBe(200);
    expect(emulator.messages(VIBER).map((message) => message.contactId)).toEqual([id]);
  });

  test('get contact takes the plain id', async () => {
    expect((await api(emulator, 'GET', `/v1/contact/${id}`, { token: VIBER })).body.data.id).toBe(id);
    expect((await api(emulator, 'GET', `/v1/contact/${encoded()}`, { token: VIBER })).status).toBe(403);
  });

  test('a generic channel takes plain ids everywhere', async () => {
    const genericId = await createContact(emulator, { customerid: '2' }, 'generic-token');
    const put = await api(emulator, 'PUT', `/v1/contact/${genericId}`, { token: 'generic-token', json: { custom_fields: [{ name: 'a', value: 'b' }] } });
    expect(put.status).toBe(200);
    const encodedPut = await api(emulator, 'PUT', `/v1/contact/${encodeViberId(genericId)}`, { token: 'generic-token', json: { custom_fields: [{ name: 'a', value: 'c' }] } });
    expect(encodedPut.status).toBe(403);
  });
});
