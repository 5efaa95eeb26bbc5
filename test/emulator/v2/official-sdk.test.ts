/**
 * The emulator answers what the platform's official TypeScript SDK sends, in the shapes its types
 * expect. The requests are shaped as the SDK's source builds them (repository
 * `respond-io/typescript-sdk`, release 1.0.0): src/client.ts (axios with base URL `.../v2`, the
 * headers `Authorization: Bearer <token>` and `Content-Type: application/json`, pagination as the
 * query, a DELETE's body as JSON), src/clients/contact.ts and src/clients/messaging.ts (paths and
 * bodies). The answers are checked by zod schemas written from src/types/*.ts, each citing its
 * type; strict, so a field the types do not declare fails too. No SDK code is copied.
 */
import { z } from 'zod';
import type { RunningEmulator } from '../../../src/emulator/index.js';
import { startV2Emulator } from './v2-http.js';

// src/types/contact.ts: CustomFieldValue, ConversationStatus, User, Contact.
const customFieldValue = z.strictObject({ name: z.string(), value: z.union([z.string(), z.number(), z.boolean(), z.null()]) });
const user = z.strictObject({ id: z.number(), firstName: z.string(), lastName: z.string(), email: z.string() });
const contactSchema = z.strictObject({
  id: z.number(),
  firstName: z.string(),
  lastName: z.string().nullable().optional(),
  phone: z.string().nullable().optional(),
  email: z.string().nullable().optional(),
  language: z.string().nullable().optional(),
  profilePic: z.string().nullable().optional(),
  countryCode: z.string().nullable().optional(),
  custom_fields: z.array(customFieldValue).nullable().optional(),
  status: z.enum(['open', 'close']).optional(),
  tags: z.array(z.string()).optional(),
  assignee: user.nullable().optional(),
  lifecycle: z.string().nullable().optional(),
  created_at: z.number(),
});
// src/types/common.ts: ContactActionResponse, PaginationResponse, APIError.
const contactActionResponse = z.strictObject({ contactId: z.number() });
const paginationResponse = z.strictObject({ next: z.string(), previous: z.string() });
const apiError = z.strictObject({ code: z.number(), message: z.string() });
// src/clients/contact.ts: what `create` resolves to, `Promise<{ code: string; message: string }>`.
const createAnswer = z.strictObject({ code: z.string(), message: z.string() });
// src/clients/contact.ts: what `list` resolves to.
const contactList = z.strictObject({ items: z.array(contactSchema), pagination: paginationResponse });
// src/types/message.ts: SendMessageResponse, MessageStatusEntry, MessageSender, GetMessageResponse.
const sendMessageResponse = z.strictObject({ messageId: z.number() });
const messageStatusEntry = z.strictObject({ value: z.enum(['pending', 'sent', 'delivered', 'read', 'failed']), timestamp: z.number(), message: z.string().optional() });
const messageSender = z.strictObject({
  source: z.enum(['user', 'ai_agent', 'workflow', 'api', 'echo', 'broadcast']),
  userId: z.number().optional(),
  teamId: z.number().optional(),
  workflowId: z.number().optional(),
  broadcastHistoryId: z.number().optional(),
});
const getMessageResponse = z.strictObject({
  messageId: z.number(),
  channelMessageId: z.union([z.string(), z.number()]),
  contactId: z.number(),
  channelId: z.number(),
  traffic: z.enum(['outgoing', 'incoming']),
  message: z.looseObject({ type: z.enum(['text', 'attachment', 'custom_payload', 'quick_reply', 'email', 'whatsapp_template']) }),
  status: z.array(messageStatusEntry).optional(),
  sender: messageSender.optional(),
});
// src/clients/messaging.ts: what `list` resolves to.
const messageList = z.strictObject({ items: z.array(getMessageResponse), pagination: paginationResponse });

const TOKEN = 'sdk-workspace-token';
let emulator: RunningEmulator;
beforeEach(async () => {
  emulator = await startV2Emulator({ workspaceTokens: [TOKEN], rateLimits: { v2: { limit: 50, periodMs: 1000 } } });
});
afterEach(async () => {
  await emulator.close();
});

interface SdkAnswer {
  status: number;
  body: unknown;
  /** What the SDK's `extractRateLimitInfo` reads (src/client.ts): both headers, as integers. */
  rateLimit: { limit: number; remaining: number } | undefined;
}

/**
 * One request as the SDK's HTTP client sends it: `baseUrl` + path, pagination as the query
 * string, the two headers, a JSON body when the method has data (axios leaves the content type
 * off a request without a body).
 */
async function sdkRequest(method: 'get' | 'post' | 'put' | 'delete', path: string, options: { body?: unknown; params?: Record<string, number> } = {}): Promise<SdkAnswer> {
  const query = options.params === undefined ? '' : `?${new URLSearchParams(Object.entries(options.params).map(([key, value]): [string, string] => [key, String(value)])).toString()}`;
  const headers: Record<string, string> = { authorization: `Bearer ${TOKEN}`, accept: 'application/json, text/plain, */*' };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${emulator.v2Url}${path}${query}`, {
    method: method.toUpperCase(),
    headers,
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  const limit = response.headers.get('x-ratelimit-limit');
  const remaining = response.headers.get('x-ratelimit-remaining');
  return {
    status: response.status,
    body: await response.json(),
    rateLimit: limit && remaining ? { limit: Number.parseInt(limit, 10), remaining: Number.parseInt(remaining, 10) } : undefined,
  };
}

/** The answer's body, after checking its status and its shape against the SDK's type. */
function expectShape<T>(answer: SdkAnswer, schema: z.ZodType<T>, status = 200): T {
  expect({ status: answer.status, problems: schema.safeParse(answer.body).error?.issues ?? [] }).toEqual({ status, problems: [] });
  expect(answer.rateLimit).toEqual({ limit: 50, remaining: expect.any(Number) });
  return schema.parse(answer.body);
}

describe('the official SDK against the emulator', () => {
  test('contact calls: create, createOrUpdate, get, update, addTags, deleteTags, list, in the shapes of the types', async () => {
    // contact.create('email:john@example.com', {firstName, lastName, email}) as the SDK's test sends it.
    expectShape(await sdkRequest('post', '/contact/email:john@example.com', { body: { firstName: 'John', lastName: 'Doe', email: 'john@example.com' } }), createAnswer);
    // contact.create('phone:+1234567890', {firstName, phone}).
    expectShape(await sdkRequest('post', '/contact/phone:+1234567890', { body: { firstName: 'John', phone: '+1234567890' } }), createAnswer);
    // contact.createOrUpdate('email:jane@example.com', {firstName, email, custom_fields}).
    const { contactId } = expectShape(
      await sdkRequest('post', '/contact/create_or_update/email:jane@example.com', { body: { firstName: 'Jane', email: 'jane@example.com', custom_fields: [{ name: 'Company', value: 'Acme Inc' }] } }),
      contactActionResponse,
    );
    // contact.get by each identifier form.
    const jane = expectShape(await sdkRequest('get', `/contact/id:${contactId}`), contactSchema);
    expect(jane).toMatchObject({ id: contactId, firstName: 'Jane', email: 'jane@example.com', custom_fields: [{ name: 'Company', value: 'Acme Inc' }] });
    expect(expectShape(await sdkRequest('get', '/contact/email:jane@example.com'), contactSchema).id).toBe(contactId);
    expect(expectShape(await sdkRequest('get', '/contact/phone:+1234567890'), contactSchema).firstName).toBe('John');
    // contact.update('id:N', {custom_fields: [{name: 'Status', value: 'Active'}]}).
    expect(expectShape(await sdkRequest('put', `/contact/id:${contactId}`, { body: { custom_fields: [{ name: 'Status', value: 'Active' }] } }), contactActionResponse)).toEqual({ contactId });
    // contact.addTags / deleteTags: the body is the bare list.
    expectShape(await sdkRequest('post', `/contact/id:${contactId}/tag`, { body: ['vip', 'premium'] }), contactActionResponse);
    expectShape(await sdkRequest('delete', `/contact/id:${contactId}/tag`, { body: ['premium'] }), contactActionResponse);
    // contact.list({search: '', timezone: 'UTC', filter: {$and: [...]}}, {limit, cursorId}).
    const page = expectShape(
      await sdkRequest('post', '/contact/list', {
        body: { search: '', timezone: 'UTC', filter: { $and: [{ category: 'contactField', field: 'email', operator: 'isEqualTo', value: 'jane@example.com' }] } },
        params: { limit: 50 },
      }),
      contactList,
    );
    expect(page.items.map((item) => [item.id, item.tags])).toEqual([[contactId, ['vip']]]);
    const all = expectShape(await sdkRequest('post', '/contact/list', { body: { search: '', timezone: 'UTC', filter: { $and: [] } }, params: { limit: 2, cursorId: 1 } }), contactList);
    expect(all.items).toHaveLength(2);
  });

  test('messaging calls: send each message type of the SDK\'s tests, then get and list, in the shapes of the types', async () => {
    const { contactId } = expectShape(await sdkRequest('post', '/contact/create_or_update/email:user@example.com', { body: { firstName: 'User', email: 'user@example.com' } }), contactActionResponse);
    const sends = [
      { channelId: 1, message: { type: 'text', text: 'Hello World' } },
      { channelId: 1, message: { type: 'attachment', attachment: { type: 'image', url: 'https://example.com/image.jpg' } } },
      { message: { type: 'quick_reply', title: 'How can we help?', replies: ['Support', 'Sales'] } },
      { channelId: 1, message: { type: 'whatsapp_template', template: { name: 'order_confirmation', languageCode: 'en', components: [{ type: 'body', text: 'Your order {{1}} is confirmed', parameters: [{ type: 'text', text: '12345' }] }] } } },
      { channelId: 1, message: { type: 'email', text: 'Email body', subject: 'Test Email', cc: ['cc@example.com'], attachments: [{ type: 'file', url: 'https://example.com/doc.pdf', fileName: 'document.pdf' }] } },
      { channelId: 1, message: { type: 'custom_payload', payload: { custom: 'data' } } },
    ];
    const ids: number[] = [];
    for (const send of sends) ids.push(expectShape(await sdkRequest('post', `/contact/id:${contactId}/message`, { body: send }), sendMessageResponse).messageId);
    // messaging.get(identifier, messageId) and messaging.list(identifier, {limit}).
    const first = expectShape(await sdkRequest('get', `/contact/email:user@example.com/message/${ids[0]}`), getMessageResponse);
    expect(first).toMatchObject({ messageId: ids[0], contactId, channelId: 1, traffic: 'outgoing', message: sends[0]?.message });
    const listed = expectShape(await sdkRequest('get', `/contact/id:${contactId}/message/list`, { params: { limit: 50 } }), messageList);
    expect(listed.items.map((item) => item.messageId)).toEqual(ids);
    expect(listed.items.map((item) => item.message)).toEqual(sends.map((send) => send.message));
  });

  test('errors are the SDK\'s APIError {code: number, message} with the status its error class tells apart', async () => {
    // RespondIOError.isValidationError: 400; isNotFoundError: 404; isAuthError: 401.
    expectShape(await sdkRequest('post', '/contact/email:john@example.com', { body: { lastName: 'Doe' } }), apiError, 400);
    expectShape(await sdkRequest('get', '/contact/id:123'), apiError, 404);
    const unauthorised = await fetch(`${emulator.v2Url}/contact/id:123`, { headers: { authorization: 'Bearer not-the-token' } });
    expect(unauthorised.status).toBe(401);
    expect(apiError.safeParse(await unauthorised.json()).success).toBe(true);
  });
});
