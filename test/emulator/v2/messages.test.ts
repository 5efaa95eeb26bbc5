/**
 * v2's sends answer {messageId}; the contact's message list and the message read it back with
 * its status, so a send whose answer was lost is settled by reading. `channelId` numbers the
 * emulator's channels 1, 2, ...; null means the contact's last channel.
 */
import type { RunningEmulator } from '../../../src/emulator/index.js';
import { api, type Answer } from '../emulator-http.js';
import { createV2Contact, startV2Emulator, v2 } from './v2-http.js';

let emulator: RunningEmulator;
const clockMs = 1_700_000_000_000;
beforeEach(async () => {
  emulator = await startV2Emulator({ now: () => clockMs, channels: [{ token: 'ch-1' }, { token: 'ch-2' }] });
});
afterEach(async () => {
  await emulator.close();
});

/** The texts of a message page, in order. */
const texts = (answer: Answer): string[] => (answer.body.items as Array<{ message: { text: string } }>).map((item) => item.message.text);
const send = (identifier: string, body: unknown) => v2(emulator, 'POST', `/contact/${identifier}/message`, { json: body });

describe('send message (POST /contact/{identifier}/message)', () => {
  test('answers {messageId}; the list and the message read it back, sent, on its channel', async () => {
    const id = await createV2Contact(emulator, 'email:ann@example.com');
    const answer = await send('email:ann@example.com', { channelId: 2, message: { type: 'text', text: 'Welcome' } });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ messageId: expect.any(Number) });
    const { messageId } = answer.body;
    const expected = {
      messageId,
      channelMessageId: `emulated-${messageId}`,
      contactId: id,
      channelId: 2,
      traffic: 'outgoing',
      message: { type: 'text', text: 'Welcome' },
      status: [
        { value: 'pending', timestamp: 1_700_000_000 },
        { value: 'sent', timestamp: 1_700_000_000 },
      ],
      sender: { source: 'api' },
    };
    expect((await v2(emulator, 'GET', `/contact/id:${id}/message/list`)).body).toEqual({ items: [expected], pagination: { next: '', previous: '' } });
    expect((await v2(emulator, 'GET', `/contact/id:${id}/message/${messageId}`)).body).toEqual(expected);
    expect(emulator.v2Messages()).toEqual([expected]);
  });

  test('a message id of another contact, or none, is 404', async () => {
    await createV2Contact(emulator, 'email:ann@example.com');
    await createV2Contact(emulator, 'email:bo@example.com');
    const { messageId } = (await send('email:ann@example.com', { channelId: 1, message: { type: 'text', text: 'hi' } })).body;
    expect((await v2(emulator, 'GET', `/contact/email:bo@example.com/message/${messageId}`)).status).toBe(404);
    expect((await v2(emulator, 'GET', '/contact/email:ann@example.com/message/7')).body).toEqual({ code: 404, message: 'Message not found: contact "email:ann@example.com" has no message 7' });
  });

  test('channelId null is the contact\'s last channel, through either surface; with none it is refused', async () => {
    const id = await createV2Contact(emulator, 'email:ann@example.com');
    const first = await send(`id:${id}`, { channelId: null, message: { type: 'text', text: 'hi' } });
    expect(first.status).toBe(400);
    expect(first.body.message).toBe('the contact has no last channel (no message was ever sent to it); name the channel with channelId');
    // A v1 send on the second channel makes it the last one.
    expect((await api(emulator, 'POST', `/v1/message/sendContent/${id}`, { token: 'ch-2', json: { body: [{ type: 'text', text: 'v1' }] } })).status).toBe(200);
    const { messageId } = (await send(`id:${id}`, { message: { type: 'text', text: 'again' } })).body;
    expect((await v2(emulator, 'GET', `/contact/id:${id}/message/${messageId}`)).body.channelId).toBe(2);
  });

  test.each([
    ['a channel the workspace lacks', { channelId: 3, message: { type: 'text', text: 'hi' } }, 'channelId 3 is not a channel of this workspace; its channels are 1 to 2'],
    ['an unknown message type', { channelId: 1, message: { type: 'sticker' } }, 'message.type "sticker" is not a message type; use text, attachment, custom_payload, quick_reply, email, whatsapp_template'],
    ['a text without text', { channelId: 1, message: { type: 'text', text: '' } }, 'message.text must be a non-empty string, got a string'],
    ['v1\'s body in place of message', { channelId: 1, body: [{ type: 'text', text: 'hi' }] }, '"body" is not a part of a send; the body is {"channelId"?, "message"}'],
  ])('refuses %s with 400, recording nothing', async (_case, body, message) => {
    await createV2Contact(emulator, 'email:ann@example.com');
    const answer = await send('email:ann@example.com', body);
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ code: 400, message });
    expect(emulator.v2Messages()).toEqual([]);
  });

  test('every message type of the SDK is taken', async () => {
    await createV2Contact(emulator, 'email:ann@example.com');
    const messages = [
      { type: 'attachment', attachment: { type: 'image', url: 'https://example.com/a.jpg' } },
      { type: 'quick_reply', title: 'Pick', replies: ['Yes', 'No'] },
      { type: 'custom_payload', payload: { any: 'thing' } },
      { type: 'email', text: 'Body', subject: 'Hi' },
      { type: 'whatsapp_template', template: { name: 'welcome', languageCode: 'en', components: [{ type: 'body', text: 'Hi' }] } },
    ];
    for (const message of messages) expect((await send('email:ann@example.com', { channelId: 1, message })).status).toBe(200);
    expect(emulator.v2Messages().map((each) => each.message)).toEqual(messages);
  });

  test('the message list pages by cursor', async () => {
    await createV2Contact(emulator, 'email:ann@example.com');
    for (let i = 0; i < 3; i += 1) await send('email:ann@example.com', { channelId: 1, message: { type: 'text', text: `m${i}` } });
    const first = await v2(emulator, 'GET', '/contact/email:ann@example.com/message/list?limit=2');
    expect(texts(first)).toEqual(['m0', 'm1']);
    const next: string = first.body.pagination.next;
    const second = await v2(emulator, 'GET', `/contact/email:ann@example.com/message/list${next.slice(next.indexOf('?'))}`);
    expect(texts(second)).toEqual(['m2']);
    expect(second.body.pagination.next).toBe('');
  });
});
