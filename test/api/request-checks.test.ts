/** Requests that break a limit of the API are refused before they leave: no request is sent. */
import { RequestInvalidError } from '../../src/api/errors.js';
import type { ApiClient } from '../../src/api/v1/client.js';
import type { AttachmentType } from '../../src/limits.js';
import { sendJson, startHttpTestServer, type HttpTestServer } from './support/http-test-server.js';
import { testClient } from './support/test-client.js';

let server: HttpTestServer;
let client: ApiClient;
beforeAll(async () => {
  server = await startHttpTestServer((request, response) => {
    if (request.url.endsWith('/tags')) return sendJson(response, 200, { status: 'success', message: 'ok', data: [] });
    if (request.url.includes('/message/')) return sendJson(response, 200, { status: 'Success', message: 'Message Sent', data: [] });
    return sendJson(response, 200, { data: { id: '1' } });
  });
  client = testClient({ baseUrl: server.url });
});
afterAll(() => server.close());

function fields(count: number): Record<string, string> {
  return Object.fromEntries(Array.from({ length: count }, (_, i) => [`field${i}`, String(i)]));
}
const tags = (count: number): string[] => Array.from({ length: count }, (_, i) => `tag${i}`);

describe('checks before a request leaves', () => {
  it.each<[string, () => Promise<unknown>, RegExp, string | undefined]>([
    ['31 fields on create', () => client.createContact(fields(31)), /31 custom fields.*MAX_FIELDS_PER_CALL \(30\)/, 'MAX_FIELDS_PER_CALL'],
    ['31 fields on update', () => client.updateContact('1', fields(31)), /31 custom fields/, 'MAX_FIELDS_PER_CALL'],
    ['no field', () => client.updateContact('1', {}), /at least 1/, 'MAX_FIELDS_PER_CALL'],
    ['11 tags to add', () => client.addTags('1', tags(11)), /11 tags.*MAX_TAGS_PER_CALL \(10\)/, 'MAX_TAGS_PER_CALL'],
    ['11 tags to remove', () => client.removeTags('1', tags(11)), /11 tags/, 'MAX_TAGS_PER_CALL'],
    ['no tag', () => client.addTags('1', []), /at least 1/, 'MAX_TAGS_PER_CALL'],
    ['an empty tag', () => client.addTags('1', ['a', ' ']), /tag 2 is empty/, undefined],
    ['11 quick replies', () => client.sendQuickReplies('1', 'Pick', tags(11)), /11 quick replies.*MAX_QUICK_REPLIES \(10\)/, 'MAX_QUICK_REPLIES'],
    ['a 21-character quick reply', () => client.sendQuickReplies('1', 'Pick', ['ok', 'x'.repeat(21)]), /quick reply 2 "x{21}" has 21 characters.*MAX_QUICK_REPLY_LENGTH \(20\)/, 'MAX_QUICK_REPLY_LENGTH'],
    ['no quick reply', () => client.sendQuickReplies('1', 'Pick', []), /at least 1/, 'MAX_QUICK_REPLIES'],
    ['an unknown attachment type', () => client.sendAttachment('1', 'sticker' as AttachmentType, 'https://x.io/a.png'), /"sticker".*ATTACHMENT_TYPES/, 'ATTACHMENT_TYPES'],
    ['an ftp attachment URL', () => client.sendAttachment('1', 'file', 'ftp://x.io/a.pdf'), /http\(s\) URL/, undefined],
    ['an attachment URL that is not a URL', () => client.sendAttachment('1', 'image', 'a.png'), /http\(s\) URL/, undefined],
    ['an empty text', () => client.sendText('1', '  '), /text must be non-empty/, undefined],
    ['a template name WhatsApp cannot have approved', () => client.sendTemplate('1', { name: 'Welcome V2', languageCode: 'en', body: 'Hi' }), /"Welcome V2" is not a WhatsApp template name/, undefined],
    ['a template language that is not a code', () => client.sendTemplate('1', { name: 'welcome_v2', languageCode: 'English', body: 'Hi' }), /"English" is not a WhatsApp language code/, undefined],
    ['an empty template body', () => client.sendTemplate('1', { name: 'welcome_v2', languageCode: 'en', body: ' ' }), /body of template "welcome_v2" must be non-empty/, undefined],
    ['an empty contact id', () => client.getContact(''), /contact id must be a non-empty string/, undefined],
    ['an empty search field', () => client.searchContactsPage('', 'x'), /field name.*non-empty/, undefined],
    ['page 0', () => client.searchContactsPage('email', 'x', 0), /page must be a whole number from 1/, undefined],
  ])('refuses %s with REQUEST_INVALID naming the limit and the value', async (_name, call, message, limit) => {
    const before = server.requests.length;
    const error = await call().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestInvalidError);
    expect(error).toMatchObject({ code: 'REQUEST_INVALID', limit });
    expect((error as Error).message).toMatch(message);
    expect(server.requests.length).toBe(before);
  });

  it('refuses an invalid search as soon as searchContacts is called, before any page is asked', () => {
    expect(() => client.searchContacts(' ', 'x')).toThrow(RequestInvalidError);
  });

  it('accepts exactly the limits: 30 fields, 10 tags, 10 replies of 20 characters (emoji counted as one)', async () => {
    const before = server.requests.length;
    await client.updateContact('1', fields(30));
    await client.addTags('1', tags(10));
    await client.sendQuickReplies('1', 'Pick', Array.from({ length: 10 }, () => '😀'.repeat(20)));
    expect(server.requests.length).toBe(before + 3);
  });
});
