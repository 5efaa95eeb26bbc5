/**
 * The v2 client's requests and their answers against a recording server: paths, bodies and
 * headers as the official SDK sends them, the field mapping both ways, the endpoints scheduled
 * with what each answer said of the limits, and the errors.
 */
import { V2Client, type V2ClientOptions } from '../../../src/api/v2/client.js';
import { InvalidTokenError, RequestInvalidError, V2CannotCreateError, OutcomeUnknownError } from '../../../src/api/errors.js';
import { recordingServer, type RecordedAnswer, type RecordedRequest, type RecordingServer } from '../../helpers/recording-server.js';
import { RecordingLimits } from '../../helpers/v2-limits.js';

// No run of 8 characters it shares with a message a test reads: any such run of the token is redacted (issue 42).
const TOKEN = 'wt-4c1d-9e7f-b2a0';

let server: RecordingServer;
let answers: Array<RecordedAnswer | ((request: RecordedRequest) => RecordedAnswer)>;
let limits: RecordingLimits;

beforeEach(async () => {
  answers = [];
  limits = new RecordingLimits();
  server = await recordingServer({
    path: '/v2',
    answer: (request) => {
      const next = answers.shift() ?? { status: 500, body: { code: 500, message: 'no answer queued' } };
      return typeof next === 'function' ? next(request) : next;
    },
  });
});
afterEach(async () => {
  await server.close();
});

function client(options: Partial<V2ClientOptions> = {}): V2Client {
  return new V2Client({ baseUrl: server.url, token: TOKEN, limits, timeoutMs: 2_000, retry: { limit: 2, baseDelayMs: 1, maxDelayMs: 5 }, sleep: () => Promise.resolve(), ...options });
}

const sent = (): Array<{ method: string; path: string; body: unknown }> =>
  server.requests.map((request) => ({ method: request.method, path: request.path, body: request.body === '' ? undefined : (JSON.parse(request.body) as unknown) }));

const V2_ANN = {
  id: 12,
  firstName: 'Ann',
  lastName: null,
  phone: '+6591234567',
  email: 'ann@example.com',
  language: null,
  profilePic: null,
  countryCode: 'SG',
  custom_fields: [
    { name: 'customerid', value: 'C1' },
    { name: 'score', value: 7 },
    { name: 'vip', value: true },
    { name: 'gone', value: null },
  ],
  status: 'open',
  tags: ['crm'],
  assignee: null,
  lifecycle: null,
  created_at: 1_700_000_000,
};

const ANN = {
  id: '12',
  custom_fields: { firstName: 'Ann', phone: '+6591234567', email: 'ann@example.com', countryCode: 'SG', customerid: 'C1', score: '7', vip: 'true' },
  tags: ['crm'],
  created_at: 1_700_000_000,
};

const collect = async (pages: AsyncGenerator<unknown[]>): Promise<unknown[][]> => {
  const all: unknown[][] = [];
  for await (const page of pages) all.push(page);
  return all;
};

describe('V2Client requests and mapping', () => {
  test('getContact reads id:<id>, folds the top-level fields among the custom ones, ids as strings; token and limits headers go both ways', async () => {
    answers.push({ body: V2_ANN, headers: { 'x-ratelimit-limit': '5', 'x-ratelimit-remaining': '4' } });
    expect(await client().getContact('12')).toEqual(ANN);
    expect(sent()).toEqual([{ method: 'GET', path: '/v2/contact/id:12', body: undefined }]);
    expect(server.requests[0]!.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(limits.scheduled).toEqual([{ endpoint: 'GET /contact/{identifier}', answer: { status: 200, limit: 5, remaining: 4 } }]);
  });

  test('a key in email is one GET of email:<address>; a 404 is no contact, not a failure', async () => {
    answers.push({ body: V2_ANN }, { status: 404, body: { code: 404, message: 'Contact not found' } });
    expect(await collect(client().searchContacts('email', 'ann+x@example.com'))).toEqual([[ANN]]);
    expect(await collect(client().searchContacts('phone', '+6590000000'))).toEqual([[]]);
    expect(sent().map((request) => `${request.method} ${request.path}`)).toEqual(['GET /v2/contact/email:ann%2Bx%40example.com', 'GET /v2/contact/phone:%2B6590000000']);
  });

  test('a key in a custom field is a filtered POST /contact/list, 100 a page, the next page by the cursor of `next` on the base URL', async () => {
    answers.push(
      { body: { items: [V2_ANN], pagination: { next: 'http://elsewhere.example/v2/contact/list?limit=100&cursorId=12', previous: '' } } },
      { body: { items: [], pagination: { next: '', previous: '' } } },
    );
    expect(await collect(client().listContacts('customerid', 'C1'))).toEqual([[ANN], []]);
    const filter = { search: '', timezone: 'UTC', filter: { $and: [{ category: 'contactField', field: 'customerid', operator: 'isEqualTo', value: 'C1' }] } };
    expect(sent()).toEqual([
      { method: 'POST', path: '/v2/contact/list?limit=100', body: filter },
      { method: 'POST', path: '/v2/contact/list?limit=100&cursorId=12', body: filter },
    ]);
    expect(limits.endpoints()).toEqual(['POST /contact/list', 'POST /contact/list']);
  });

  test('an email key that v2 cannot name in a path is searched by the list, not refused', async () => {
    answers.push({ body: { items: [], pagination: { next: '', previous: '' } } });
    expect((await client().searchContactsPage('email', 'contact-sync-connection-check')).items).toEqual([]);
    expect(sent()[0]!.path).toBe('/v2/contact/list?limit=100');
  });

  test('a list longer than maxPages stops with PAGE_LIMIT', async () => {
    // Each page names a new cursor (a cursor named again is a loop: v2-hostile-answers.test.ts).
    const page = (cursor: number) => ({ body: { items: [V2_ANN], pagination: { next: `http://x/v2/contact/list?limit=100&cursorId=${cursor}`, previous: '' } } });
    answers.push(page(12), page(13), page(14));
    await expect(collect(client({ maxPages: 2 }).listContacts('plan', 'pro'))).rejects.toMatchObject({ code: 'PAGE_LIMIT' });
    expect(server.requests).toHaveLength(2);
  });

  test('createContact is one create_or_update by email (else phone): top-level fields at the top, the others in custom_fields', async () => {
    answers.push({ body: { contactId: 41 } }, { body: { contactId: 42 } });
    expect(await client().createContact({ firstName: 'Ann', email: 'ann@example.com', customerid: 'C1', plan: 'pro' })).toEqual({ id: '41' });
    expect(await client().createContact({ firstName: 'Bo', phone: '+6591234567', lastName: '' })).toEqual({ id: '42' });
    expect(sent()).toEqual([
      {
        method: 'POST',
        path: '/v2/contact/create_or_update/email:ann%40example.com',
        body: { firstName: 'Ann', email: 'ann@example.com', custom_fields: [{ name: 'customerid', value: 'C1' }, { name: 'plan', value: 'pro' }] },
      },
      { method: 'POST', path: '/v2/contact/create_or_update/phone:%2B6591234567', body: { firstName: 'Bo', phone: '+6591234567', lastName: null } },
    ]);
    expect(limits.endpoints()).toEqual(['POST /contact/create_or_update/{identifier}', 'POST /contact/create_or_update/{identifier}']);
  });

  test.each([
    ['neither email nor phone', { firstName: 'Ann', customerid: 'C1' }, ['identifier'], /it has neither an email nor a phone; v2 creates a contact by its email or phone/],
    ['a malformed email and no phone', { firstName: 'Ann', email: 'not-an-email' }, ['identifier'], /neither an email nor a phone/],
    ['no firstName', { email: 'ann@example.com' }, ['firstName'], /it has no firstName;/],
    ['neither', { customerid: 'C1' }, ['identifier', 'firstName'], /neither an email nor a phone and no firstName/],
  ])('a contact v2 cannot create (%s) fails with V2_CANNOT_CREATE before any call', async (_case, fields, missing, message) => {
    const error = await client().createContact(fields).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(V2CannotCreateError);
    expect(error).toMatchObject({ code: 'V2_CANNOT_CREATE', missing });
    expect((error as Error).message).toMatch(message);
    expect(server.requests).toHaveLength(0);
  });

  test('updateContact is PUT id:<id> with only the given fields; tags are POST / DELETE of a JSON list', async () => {
    answers.push({ body: { contactId: 12 } }, { body: { contactId: 12 } }, { body: { contactId: 12 } });
    const api = client();
    await api.updateContact('12', { lastName: 'Lee', plan: 'basic' });
    await api.addTags('12', ['vip', 'crm']);
    await api.removeTags('12', ['lead']);
    expect(sent()).toEqual([
      { method: 'PUT', path: '/v2/contact/id:12', body: { lastName: 'Lee', custom_fields: [{ name: 'plan', value: 'basic' }] } },
      { method: 'POST', path: '/v2/contact/id:12/tag', body: ['vip', 'crm'] },
      { method: 'DELETE', path: '/v2/contact/id:12/tag', body: ['lead'] },
    ]);
    expect(api.stats.byOperation.updateContact.requests).toBe(1);
  });

  test('sends are POST id:<id>/message {channelId, message} and keep the messageId', async () => {
    answers.push({ body: { messageId: 1_000_000_001 } }, { body: { messageId: 1_000_000_002 } }, { body: { messageId: 1_000_000_003 } }, { body: { messageId: 1_000_000_004 } });
    const api = client({ channelId: 2 });
    expect(await api.sendText('12', 'Welcome')).toEqual({ messageId: '1000000001' });
    await api.sendAttachment('12', 'image', 'https://example.com/a.png');
    await api.sendQuickReplies('12', 'Pick', ['A', 'B']);
    await api.sendTemplate('12', { name: 'welcome', languageCode: 'en', body: 'Hi Ann' });
    expect(sent().map((request) => request.body)).toEqual([
      { channelId: 2, message: { type: 'text', text: 'Welcome' } },
      { channelId: 2, message: { type: 'attachment', attachment: { type: 'image', url: 'https://example.com/a.png' } } },
      { channelId: 2, message: { type: 'quick_reply', title: 'Pick', replies: ['A', 'B'] } },
      { channelId: 2, message: { type: 'whatsapp_template', template: { name: 'welcome', languageCode: 'en', components: [{ type: 'body', text: 'Hi Ann' }] } } },
    ]);
    expect(sent()[0]!.path).toBe('/v2/contact/id:12/message');
  });

  test('channelId defaults to null: the contact\'s last channel', async () => {
    answers.push({ body: { messageId: 5 } });
    await client().sendText('12', 'Hi');
    expect(sent()[0]!.body).toEqual({ channelId: null, message: { type: 'text', text: 'Hi' } });
  });
});

describe('V2Client errors and retries', () => {
  test('{code, message} 400 is REQUEST_INVALID with the platform\'s words; not retried', async () => {
    answers.push({ status: 400, body: { code: 400, message: 'custom field "plan" does not exist in this workspace' } });
    const error = await client().updateContact('12', { plan: 'pro' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RequestInvalidError);
    expect((error as Error).message).toBe('updateContact PUT /v2/contact/id:12: HTTP 400: the platform refused the request: "custom field "plan" does not exist in this workspace"');
    expect(server.requests).toHaveLength(1);
  });

  test('401 is INVALID_TOKEN, and the calls after it are not sent; the token is in no message', async () => {
    answers.push({ status: 401, body: { code: 401, message: `Unauthorized ${TOKEN}` } });
    const api = client();
    const first = await api.getContact('12').catch((caught: unknown) => caught);
    const second = await api.getContact('13').catch((caught: unknown) => caught);
    expect(first).toBeInstanceOf(InvalidTokenError);
    expect(second).toBe(first);
    expect(server.requests).toHaveLength(1);
    expect(JSON.stringify([(first as Error).message, first])).not.toContain(TOKEN);
    expect((first as Error).message).toBe(
      "getContact GET /v2/contact/id:12: HTTP 401: the workspace token is invalid (the platform said: \"Unauthorized [redacted]\"); check the `token` of the connection (a workspace's access token, from the workspace's settings: Developer API)",
    );
  });

  test('a 429 hands its Retry-After to the limits and is retried after it', async () => {
    answers.push({ status: 429, body: { code: 429, message: 'Too many requests' }, headers: { 'retry-after': '2', 'x-ratelimit-limit': '5', 'x-ratelimit-remaining': '0' } }, { body: V2_ANN });
    const delays: number[] = [];
    const sleep = (ms: number): Promise<void> => {
      delays.push(ms);
      return Promise.resolve();
    };
    await client({ sleep }).getContact('12');
    expect(limits.scheduled.map((entry) => entry.answer)).toEqual([{ status: 429, limit: 5, remaining: 0, retryAfterMs: 2000 }, { status: 200 }]);
    expect(delays).toEqual([2000]);
  });

  test('create_or_update is retry-safe: a 500 is retried (v1\'s create would be an unknown outcome)', async () => {
    answers.push({ status: 500, body: { code: 500, message: 'Internal server error' } }, { body: { contactId: 41 } });
    expect(await client().createContact({ firstName: 'Ann', email: 'ann@example.com' })).toEqual({ id: '41' });
    expect(server.requests).toHaveLength(2);
  });

  test('a send answered 500 is settled by the message list: found there, it is not sent again', async () => {
    const now = 1_700_000_000_000;
    answers.push(
      { status: 500, body: { code: 500, message: 'Internal server error' } },
      { body: { items: [{ messageId: 77, message: { type: 'text', text: 'Welcome' }, status: [{ value: 'sent', timestamp: now / 1000 }] }], pagination: { next: '', previous: '' } } },
    );
    let left = 0;
    const onLeave = (): void => {
      left += 1;
    };
    expect(await client({ now: () => now }).sendText('12', 'Welcome', { onLeave })).toEqual({ messageId: '77' });
    expect(sent().map((request) => `${request.method} ${request.path}`)).toEqual(['POST /v2/contact/id:12/message', 'GET /v2/contact/id:12/message/list?limit=100']);
    expect(left).toBe(1);
  });

  test('a lost send the list does not show is sent once more; lost again and still not shown, it is an unknown outcome', async () => {
    const empty = { body: { items: [], pagination: { next: '', previous: '' } } };
    answers.push({ status: 502, body: 'bad gateway' }, empty, { body: { messageId: 9 } });
    const once = client();
    expect(await once.sendText('12', 'Hi')).toEqual({ messageId: '9' });
    // The second send repeats the first: a retry in summary.json (issue 41).
    expect(once.stats.byOperation.sendMessage).toMatchObject({ requests: 2, retries: 1 });
    answers.push({ status: 502, body: 'bad gateway' }, empty, { status: 502, body: 'bad gateway' }, empty);
    await expect(client().sendText('12', 'Hi')).rejects.toBeInstanceOf(OutcomeUnknownError);
    expect(server.requests.map((request) => request.method)).toEqual(['POST', 'GET', 'POST', 'POST', 'GET', 'POST', 'GET']);
  });

  test('findSentMessage reads every page of the contact\'s messages and finds a message of that content sent since (less the skew), by the same rule', async () => {
    const since = 1_700_000_000_000;
    const listed = (messageId: number, text: string, at: number) => ({ messageId, message: { type: 'text', text }, status: [{ value: 'sent', timestamp: at / 1000 }] });
    answers.push(
      { body: { items: [listed(1, 'Welcome', since - 3_600_000)], pagination: { next: 'https://api.respond.io/v2/contact/id:12/message/list?limit=100&cursorId=42', previous: '' } } },
      { body: { items: [listed(2, 'Other', since + 1000), listed(3, 'Welcome', since + 1000)], pagination: { next: '', previous: '' } } },
    );
    expect(await client().findSentMessage('12', { type: 'text', text: 'Welcome' }, since)).toEqual({ messageId: '3' });
    expect(sent().map((request) => `${request.method} ${request.path}`)).toEqual(['GET /v2/contact/id:12/message/list?limit=100', 'GET /v2/contact/id:12/message/list?limit=100&cursorId=42']);
    // Only the one of an hour before: not this send.
    answers.push({ body: { items: [listed(1, 'Welcome', since - 3_600_000)], pagination: { next: '', previous: '' } } });
    expect(await client().findSentMessage('12', { type: 'text', text: 'Welcome' }, since)).toBeUndefined();
    // An attachment is compared in v2's shape of it.
    answers.push({ body: { items: [{ messageId: 8, message: { type: 'attachment', attachment: { type: 'image', url: 'https://cdn.example.com/a.png' } }, status: [] }], pagination: { next: '', previous: '' } } });
    expect(await client().findSentMessage('12', { type: 'image', url: 'https://cdn.example.com/a.png' }, since)).toEqual({ messageId: '8' });
  });

  test('a lost send whose message list cannot be read stays an unknown outcome, never sent twice', async () => {
    answers.push({ status: 500, body: { code: 500, message: 'down' } }, { status: 401, body: { code: 401, message: 'no' } });
    await expect(client().sendText('12', 'Hi')).rejects.toBeInstanceOf(OutcomeUnknownError);
    expect(server.requests.map((request) => request.method)).toEqual(['POST', 'GET']);
  });
});
