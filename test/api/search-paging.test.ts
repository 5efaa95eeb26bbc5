/**
 * Paging through operation 1: pages are built from the base URL with name, value and page; the
 * `links` of an answer and redirects are never followed, so the token stays with the base origin.
 */
import { MalformedResponseError, PageLimitError } from '../../src/api/errors.js';
import type { Contact } from '../../src/api/wire-types.js';
import { startEmulator } from '../../src/emulator/index.js';
import { sendJson, startHttpTestServer, type HttpTestServer } from './support/http-test-server.js';
import { testClient } from './support/test-client.js';

async function collect(pages: AsyncGenerator<Contact[]>): Promise<Contact[][]> {
  const seen: Contact[][] = [];
  for await (const page of pages) seen.push(page);
  return seen;
}

describe('searchContacts', () => {
  it('reads 25 matches across 3 pages of the emulator, oldest first', async () => {
    const emulator = await startEmulator({ rateLimits: false });
    try {
      const stored = emulator.loadContacts(
        'demo-token',
        Array.from({ length: 27 }, (_, i) => ({ custom_fields: { source: i < 25 ? 'crm' : 'web', customerid: String(i) } })),
      );
      const client = testClient({ baseUrl: emulator.url });
      const pages = await collect(client.searchContacts('source', 'crm'));
      expect(pages.map((page) => page.length)).toEqual([10, 10, 5]);
      expect(pages.flat().map((c) => c.id)).toEqual(stored.slice(0, 25).map((c) => c.id));
      expect(emulator.counters('demo-token').byOperation.searchContacts.received).toBe(3);
    } finally {
      await emulator.close();
    }
  });

  it('stops with PageLimitError at maxPages', async () => {
    const emulator = await startEmulator({ rateLimits: false });
    try {
      emulator.loadContacts('demo-token', Array.from({ length: 25 }, () => ({ custom_fields: { source: 'crm' } })));
      const client = testClient({ baseUrl: emulator.url, maxPages: 2 });
      const error = await collect(client.searchContacts('source', 'crm')).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PageLimitError);
      expect((error as PageLimitError).message).toMatch(/3 pages.*maxPages/);
      expect(emulator.counters('demo-token').byOperation.searchContacts.received).toBe(2);
    } finally {
      await emulator.close();
    }
  });
});

describe('the token never leaves the base origin', () => {
  let home: HttpTestServer;
  let elsewhere: HttpTestServer;
  beforeEach(async () => {
    elsewhere = await startHttpTestServer((_request, response) => sendJson(response, 200, { data: [] }));
  });
  afterEach(async () => {
    await home.close();
    await elsewhere.close();
  });

  it('builds every page URL from the base URL with name and value, never from links.next', async () => {
    const contact = (id: string): Contact => ({ id, custom_fields: {}, tags: [], created_at: 1 });
    home = await startHttpTestServer((request, response) => {
      const page = Number(new URL(request.url, 'http://x').searchParams.get('page'));
      sendJson(response, 200, {
        data: [contact(`c${page}`)],
        // Like the platform's: no filter, and here another origin.
        links: { first: `${elsewhere.origin}/api/v1/contact/by_custom_field?page=1`, last: null, prev: null, next: `${elsewhere.origin}/api/v1/contact/by_custom_field?page=${page + 1}` },
        meta: { current_page: page, from: page, last_page: 3, path: elsewhere.origin, per_page: 1, to: page, total: 3 },
      });
    });
    const pages = await collect(testClient({ baseUrl: home.url }).searchContacts('email', 'a+b@x.io'));
    expect(pages.flat().map((c) => c.id)).toEqual(['c1', 'c2', 'c3']);
    expect(home.requests.map((r) => r.url)).toEqual([1, 2, 3].map((page) => `/api/v1/contact/by_custom_field?name=email&value=a%2Bb%40x.io&page=${page}`));
    expect(elsewhere.requests).toEqual([]);
  });

  it('does not follow a redirect to another origin and names that origin in the error', async () => {
    home = await startHttpTestServer((_request, response) => {
      response.writeHead(302, { location: `http://user:pw@127.0.0.1:${elsewhere.port}/api/v1/contact/1` });
      response.end();
    });
    const client = testClient({ baseUrl: home.url, token: 'tok-secret' });
    const error = await client.getContact('1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MalformedResponseError);
    expect((error as MalformedResponseError).message).toContain(elsewhere.origin);
    expect((error as MalformedResponseError).message).not.toContain('pw');
    expect(elsewhere.requests).toEqual([]);
    expect(home.requests).toHaveLength(1);
  });

  it('does not follow a redirect of a search either (an http to https upgrade included)', async () => {
    home = await startHttpTestServer((_request, response) => {
      response.writeHead(301, { location: 'https://app.example.com/api/v1/contact/by_custom_field?page=1' });
      response.end();
    });
    const error = await testClient({ baseUrl: home.url }).searchContactsPage('email', 'a@b.c').catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'MALFORMED_RESPONSE', status: 301 });
    expect((error as Error).message).toContain('https://app.example.com');
  });
});
