/** v2 names a contact by `id:<number>`, `email:<address>` or `phone:<+E.164>`; a malformed one is 400, an unknown one 404. */
import type { RunningEmulator } from '../../../src/emulator/index.js';
import { createV2Contact, startV2Emulator, v2 } from './v2-http.js';

let emulator: RunningEmulator;
beforeEach(async () => {
  emulator = await startV2Emulator();
});
afterEach(async () => {
  await emulator.close();
});

describe('contact identifiers', () => {
  test('one contact is read by its id, its email and its phone', async () => {
    const id = await createV2Contact(emulator, 'email:ann@example.com', { phone: '+6591234567' });
    for (const identifier of [`id:${id}`, 'email:ann@example.com', 'phone:+6591234567']) {
      const answer = await v2(emulator, 'GET', `/contact/${identifier}`);
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ id, firstName: 'Ann', email: 'ann@example.com', phone: '+6591234567' });
    }
  });

  test('an email is found whatever its case, as v1 searches it', async () => {
    const id = await createV2Contact(emulator, 'email:Ann@Example.com');
    expect((await v2(emulator, 'GET', '/contact/email:ann@example.com')).body.id).toBe(id);
  });

  test('a phone written %2B-encoded is the same phone', async () => {
    const id = await createV2Contact(emulator, 'phone:+6591234567');
    expect((await v2(emulator, 'GET', '/contact/phone:%2B6591234567')).body.id).toBe(id);
  });

  test.each([
    ['no kind', '12345'],
    ['an unknown kind', 'uuid:12345'],
    ['an id that is not a number', 'id:abc'],
    ['a phone without its +', 'phone:6591234567'],
    ['an email without @', 'email:ann.example.com'],
  ])('%s is refused 400 with {code, message} naming the three forms', async (_case, identifier) => {
    const answer = await v2(emulator, 'GET', `/contact/${identifier}`);
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ code: 400, message: `the contact identifier "${decodeURIComponent(identifier)}" is not id:<number>, email:<address> or phone:<+E.164> (a phone number with its "+" and country code)` });
  });

  test.each(['GET', 'PUT'])('%s of an unknown contact is 404 {code: 404, message}', async (method) => {
    const answer = await v2(emulator, method, '/contact/id:42', method === 'PUT' ? { json: { lastName: 'X' } } : {});
    expect(answer.status).toBe(404);
    expect(answer.body).toEqual({ code: 404, message: 'Contact not found: no contact of this workspace has the identifier "id:42"' });
  });

  test('tags, messages and the message list of an unknown contact are 404 too', async () => {
    const calls = [
      v2(emulator, 'POST', '/contact/email:nobody@example.com/tag', { json: ['a'] }),
      v2(emulator, 'DELETE', '/contact/email:nobody@example.com/tag', { json: ['a'] }),
      v2(emulator, 'POST', '/contact/email:nobody@example.com/message', { json: { channelId: 1, message: { type: 'text', text: 'hi' } } }),
      v2(emulator, 'GET', '/contact/email:nobody@example.com/message/list'),
      v2(emulator, 'GET', '/contact/email:nobody@example.com/message/1000000001'),
    ];
    expect((await Promise.all(calls)).map((answer) => answer.status)).toEqual([404, 404, 404, 404, 404]);
  });
});
