/**
 * The v2 client against a hostile server on port 0 (issue 42): absurd rate-limit headers, a
 * cursor that loops, an answer too large to read. Each ends the call or the job cleanly, with a
 * bounded number of requests.
 */
import { LimiterRegistry } from '../../../src/api/limiter.js';
import { V2Client, type V2ClientOptions } from '../../../src/api/v2/client.js';
import { MAX_V2_LEARNT_LIMIT, organisationLimits } from '../../../src/api/v2/learnt-limits.js';
import { MAX_ANSWER_BYTES } from '../../../src/limits.js';
import { recordingServer, type RecordedAnswer, type RecordedRequest, type RecordingServer } from '../../helpers/recording-server.js';

const TOKEN = 'workspace-token-hostile-9e2b';

const CONTACT = { id: 12, firstName: 'Ann', lastName: null, phone: null, email: 'ann@example.com', language: null, profilePic: null, countryCode: null, custom_fields: [], status: 'open', tags: [], assignee: null, lifecycle: null, created_at: 1_700_000_000 };

let server: RecordingServer;
let answer: (request: RecordedRequest) => RecordedAnswer;
let registry: LimiterRegistry;

beforeEach(async () => {
  registry = new LimiterRegistry();
  server = await recordingServer({ path: '/v2', answer: (request) => answer(request) });
});
afterEach(async () => {
  await registry.stop({ dropWaitingJobs: true });
  await server.close();
});

function client(options: Partial<V2ClientOptions> = {}): V2Client {
  // A short window, so a window the headers fill passes quickly; nothing asserted depends on time.
  const limits = organisationLimits(registry, server.url, 'hostile', { windowMs: 20 });
  return new V2Client({ baseUrl: server.url, token: TOKEN, limits, timeoutMs: 5_000, retry: { limit: 2, baseDelayMs: 1, maxDelayMs: 5 }, ...options });
}

describe('V2Client against absurd rate-limit headers', () => {
  test('X-RateLimit-Limit 1000000000 with Remaining 0 on every answer: every call still ends, one request each, and the limit learnt is bounded', async () => {
    answer = () => ({ body: CONTACT, headers: { 'x-ratelimit-limit': '1000000000', 'x-ratelimit-remaining': '0' } });
    const v2 = client();
    const ids = ['1', '2', '3', '4', '5', '6'];
    const read = await Promise.all(ids.map((id) => v2.getContact(id)));
    expect(read.map((contact) => contact.id)).toEqual(ids.map(() => '12'));
    expect(server.requests).toHaveLength(ids.length);
    expect(v2.learntLimits()).toEqual([{ endpoint: 'GET /contact/{identifier}', limit: MAX_V2_LEARNT_LIMIT, windowMs: 20 }]);
  });
});

describe('V2Client against a list whose cursor loops', () => {
  const loopingPage = (request: RecordedRequest): RecordedAnswer => {
    // Page 1 names cursor 7; the page of cursor 7 names cursor 8; the page of 8 names 7 again.
    const cursor = new URL(request.path, 'http://x').searchParams.get('cursorId');
    const next = cursor === '7' ? '8' : '7';
    return { body: { items: [{ ...CONTACT, id: Number(cursor ?? 1) }], pagination: { next: `http://elsewhere.test/v2/contact/list?limit=100&cursorId=${next}`, previous: null } } };
  };

  test('a cursor named twice ends the listing with MALFORMED_RESPONSE after the pages it had not read (3 requests, not maxPages)', async () => {
    answer = loopingPage;
    const v2 = client({ maxPages: 1_000 });
    const pages: unknown[] = [];
    const listing = (async () => {
      for await (const page of v2.listContacts('segment', 'vip')) pages.push(page);
    })();
    await expect(listing).rejects.toMatchObject({ code: 'MALFORMED_RESPONSE', message: expect.stringMatching(/cursorId "7" again after 3 pages: the list loops/) as unknown });
    expect(server.requests).toHaveLength(3);
    expect(pages).toHaveLength(3);
  });

  test('a search by a field that is not an identifier stops the same way', async () => {
    answer = loopingPage;
    const v2 = client({ maxPages: 1_000 });
    await expect(v2.searchContactsPage('customerid', 'C1', 50)).rejects.toMatchObject({ code: 'MALFORMED_RESPONSE' });
    expect(server.requests).toHaveLength(3);
  });

  test("a contact's message list (a lost send settled) stops the same way", async () => {
    answer = (request) => {
      const cursor = new URL(request.path, 'http://x').searchParams.get('cursorId');
      return { body: { items: [], pagination: { next: `http://x/v2/contact/id:12/message/list?cursorId=${cursor === '3' ? '4' : '3'}`, previous: null } } };
    };
    const v2 = client({ maxPages: 1_000 });
    await expect(v2.findSentMessage('12', { type: 'text', text: 'hi' }, 0)).rejects.toMatchObject({ code: 'MALFORMED_RESPONSE' });
    expect(server.requests).toHaveLength(3);
  });
});

describe('V2Client against an answer too large to read', () => {
  test('a 9 MiB list page is cut off as it arrives: MALFORMED_RESPONSE naming the bound, one request, nothing buffered whole', async () => {
    const huge = JSON.stringify({ items: [{ ...CONTACT, lastName: 'x'.repeat(9 * 1024 * 1024) }], pagination: { next: null, previous: null } });
    answer = () => ({ body: huge });
    const v2 = client();
    const listing = (async () => {
      for await (const page of v2.listContacts('segment', 'vip')) void page;
    })();
    await expect(listing).rejects.toMatchObject({
      code: 'MALFORMED_RESPONSE',
      message: expect.stringContaining(`the answer is larger than ${MAX_ANSWER_BYTES / (1024 * 1024)} MiB, the most the client reads of one answer`) as unknown,
    });
    expect(server.requests).toHaveLength(1);
  });

  test('an answer within the bound is read as before', async () => {
    answer = () => ({ body: CONTACT });
    await expect(client().getContact('12')).resolves.toMatchObject({ id: '12' });
  });
});

describe('V2Client against a Retry-After longer than the connection waits', () => {
  test('a day asked on the first answer stops the connection: the calls waiting behind it end at once, one request in all', async () => {
    answer = () => ({ status: 429, body: { code: 429, message: 'Too many requests' }, headers: { 'retry-after': '86400', 'x-ratelimit-limit': '5', 'x-ratelimit-remaining': '0' } });
    const v2 = client();
    const outcomes = await Promise.allSettled(['1', '2', '3'].map((id) => v2.getContact(id)));
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected', 'rejected']);
    for (const outcome of outcomes) expect((outcome as PromiseRejectedResult).reason).toMatchObject({ code: 'RATE_LIMITED', message: expect.stringContaining('wait 1440 min') as unknown });
    expect(server.requests).toHaveLength(1);
  }, 15_000);
});
