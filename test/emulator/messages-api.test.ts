import { startEmulator } from '../../src/emulator/index.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { TOKEN, api } from './emulator-http.js';

let emulator: RunningEmulator;
let contactId: string;
const clockMs = 1_700_000_000_000;

beforeEach(async () => {
  emulator = await startEmulator({ rateLimits: false, now: () => clockMs });
  contactId = emulator.loadContacts(TOKEN, [{ custom_fields: { firstName: 'Ada' }, tags: ['vip'] }])[0]!.id;
});
afterEach(async () => {
  await emulator.close();
});

const send = (body: unknown, id = contactId) => api(emulator, 'POST', `/v1/message/sendContent/${id}`, { json: body });
const SENT = { status: 'Success', message: 'Message Sent', data: [] };

describe('send message (operations 7 to 9)', () => {
  test('a text answers 200 {status: "Success", message: "Message Sent", data: []} and is recorded with its time', async () => {
    const answer = await send({ body: [{ type: 'text', text: 'Hello' }] });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual(SENT);
    expect(emulator.messages(TOKEN)).toEqual([
      { contactId, body: [{ type: 'text', text: 'Hello' }], cancelledSurvey: false, sentAt: clockMs },
    ]);
  });

  test('a send changes nothing else of the contact', async () => {
    const before = emulator.contacts(TOKEN);
    await send({ body: [{ type: 'text', text: 'Hi' }], forceCancelSurvey: true });
    expect(emulator.contacts(TOKEN)).toEqual(before);
  });

  test.each([
    ['image', 'https://cdn.example/a/photo.JPG'],
    ['image', 'https://cdn.example/p.webp?size=2'],
    ['video', 'https://cdn.example/v.mp4'],
    ['audio', 'http://cdn.example/s.m4a'],
    ['file', 'https://cdn.example/doc.pdf'],
    ['file', 'https://cdn.example/data.csv'],
    // Every public sample sends "http://abc.com" (issue 28): a URL without an extension fits any type.
    ['image', 'http://abc.com'],
    ['video', 'http://abc.com'],
    ['audio', 'http://abc.com/'],
    ['file', 'http://abc.com'],
    ['image', 'https://cdn.example/photos/12345?format=large'],
    ['file', 'https://cdn.example/no-extension'],
    ['file', 'https://cdn.example/photo.png'],
  ])('accepts a %s attachment at %s', async (type, url) => {
    const answer = await send({ body: [{ type, url }] });
    expect(answer.status).toBe(200);
    expect(emulator.messages(TOKEN)[0]?.body).toEqual([{ type, url }]);
  });

  test.each([
    ['image', 'https://cdn.example/doc.pdf'],
    ['video', 'https://cdn.example/photo.png'],
    ['audio', 'https://cdn.example/movie.mov'],
    ['video', 'http://abc.com/clip.mp3'],
  ])('refuses a %s attachment at %s with 403 "unmatched file type"', async (type, url) => {
    const answer = await send({ body: [{ type, url }] });
    expect(answer.status).toBe(403);
    expect(answer.body).toEqual({ status: 'error', message: expect.stringContaining('unmatched file type'), data: [] });
    expect(emulator.messages(TOKEN)).toEqual([]);
  });

  test.each(['ftp://cdn.example/a.png', 'file:///etc/a.png', 'not a url'])('refuses the non-http(s) URL %s with 403', async (url) => {
    const answer = await send({ body: [{ type: 'image', url }] });
    expect(answer.status).toBe(403);
    expect(answer.body.status).toBe('error');
  });

  test('accepts 10 quick replies of 20 characters', async () => {
    const replies = Array.from({ length: 10 }, (_, i) => `${i}`.padEnd(20, 'x'));
    const answer = await send({ body: [{ type: 'quick_reply', title: 'Pick one', replies }] });
    expect(answer.status).toBe(200);
    expect(emulator.messages(TOKEN)[0]?.body).toEqual([{ type: 'quick_reply', title: 'Pick one', replies }]);
  });

  test('refuses 11 quick replies, and a reply of 21 characters, with 403', async () => {
    const eleven = await send({ body: [{ type: 'quick_reply', title: 'Pick', replies: Array.from({ length: 11 }, (_, i) => `r${i}`) }] });
    expect([eleven.status, eleven.body.message]).toEqual([403, expect.stringContaining('at most 10')]);
    const long = await send({ body: [{ type: 'quick_reply', title: 'Pick', replies: ['ok', 'x'.repeat(21)] }] });
    expect([long.status, long.body.message]).toEqual([403, expect.stringContaining('at most 20')]);
    expect(emulator.messages(TOKEN)).toEqual([]);
  });

  test.each([
    ['no element', { body: [] }],
    ['two elements', { body: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] }],
    ['a body that is not a list', { body: { type: 'text', text: 'a' } }],
  ])('refuses %s with 403: exactly one message per call', async (_case, body) => {
    const answer = await send(body);
    expect(answer.status).toBe(403);
    expect(answer.body.status).toBe('error');
    expect(emulator.messages(TOKEN)).toEqual([]);
  });

  test.each([
    ['an unknown type', { body: [{ type: 'sticker', id: 1 }] }],
    ['a text without text', { body: [{ type: 'text' }] }],
    ['a non-boolean forceCancelSurvey', { body: [{ type: 'text', text: 'a' }], forceCancelSurvey: 'true' }],
  ])('refuses %s with 403', async (_case, body) => {
    expect((await send(body)).status).toBe(403);
  });

  // Client code and a reseller's message-template page (issue 28).
  const TEMPLATE = { type: 'whatsapp_template', template: { name: 'welcome_v2', languageCode: 'en', components: [{ type: 'body', text: 'Hi Ada, welcome!' }] } };

  test('a WhatsApp template answers 201 {status: "success", message: "Message Sent", data: {...}} and is recorded as sent', async () => {
    const answer = await send({ body: [TEMPLATE] });
    expect(answer.status).toBe(201);
    expect(answer.body).toEqual({ status: 'success', message: 'Message Sent', data: { name: 'welcome_v2', languageCode: 'en' } });
    expect(emulator.messages(TOKEN)).toEqual([{ contactId, body: [TEMPLATE], cancelledSurvey: false, sentAt: clockMs }]);
  });

  test.each([
    ['no template', { type: 'whatsapp_template' }, 'template must be an object'],
    ['an empty name', { ...TEMPLATE, template: { ...TEMPLATE.template, name: '' } }, 'template.name must be a non-empty string'],
    ['no languageCode', { ...TEMPLATE, template: { name: 'welcome_v2', components: TEMPLATE.template.components } }, 'template.languageCode must be a non-empty string'],
    ['components that are not a list', { ...TEMPLATE, template: { ...TEMPLATE.template, components: { type: 'body' } } }, 'components must be a list'],
    ['no body component', { ...TEMPLATE, template: { ...TEMPLATE.template, components: [{ type: 'header', text: 'Hi' }] } }, 'no body component with text'],
    ['a body without text', { ...TEMPLATE, template: { ...TEMPLATE.template, components: [{ type: 'body' }] } }, 'no body component with text'],
    ['a text that is not a string', { ...TEMPLATE, template: { ...TEMPLATE.template, components: [{ type: 'body', text: 5 }] } }, 'components[0].text must be a string'],
  ])('refuses a WhatsApp template with %s with 403, recording nothing', async (_case, element, message) => {
    const answer = await send({ body: [element] });
    expect(answer.status).toBe(403);
    expect(answer.body).toEqual({ status: 'error', message: expect.stringContaining(message), data: [] });
    expect(emulator.messages(TOKEN)).toEqual([]);
  });

  test('refuses a send to an unknown contact with 403 "no such contact"', async () => {
    const answer = await send({ body: [{ type: 'text', text: 'Hi' }] }, '12345');
    expect(answer.status).toBe(403);
    expect(answer.body.message).toContain('no such contact');
  });
});

describe('surveys', () => {
  test('a send without forceCancelSurvey leaves an active survey active', async () => {
    emulator.setSurvey(TOKEN, contactId, true);
    await send({ body: [{ type: 'text', text: 'Hi' }] });
    expect(emulator.hasActiveSurvey(TOKEN, contactId)).toBe(true);
  });

  test('a send with forceCancelSurvey false leaves an active survey active', async () => {
    emulator.setSurvey(TOKEN, contactId, true);
    await send({ body: [{ type: 'text', text: 'Hi' }], forceCancelSurvey: false });
    expect(emulator.hasActiveSurvey(TOKEN, contactId)).toBe(true);
    expect(emulator.messages(TOKEN)[0]).toMatchObject({ forceCancelSurvey: false, cancelledSurvey: false });
  });

  test('a send with forceCancelSurvey true cancels the survey and records it', async () => {
    emulator.setSurvey(TOKEN, contactId, true);
    await send({ body: [{ type: 'text', text: 'Hi' }], forceCancelSurvey: true });
    expect(emulator.hasActiveSurvey(TOKEN, contactId)).toBe(false);
    expect(emulator.messages(TOKEN)[0]).toMatchObject({ forceCancelSurvey: true, cancelledSurvey: true });
  });

  test('a refused send does not cancel the survey', async () => {
    emulator.setSurvey(TOKEN, contactId, true);
    await send({ body: [], forceCancelSurvey: true });
    expect(emulator.hasActiveSurvey(TOKEN, contactId)).toBe(true);
  });
});
