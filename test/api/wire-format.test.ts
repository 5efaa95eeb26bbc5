/** What goes on the wire: methods, paths, headers and bodies, seen by a raw recording server. */
import type { ServerResponse } from 'node:http';
import { startHttpTestServer, sendJson, type HttpTestServer, type RecordedRequest } from './support/http-test-server.js';
import { testClient } from './support/test-client.js';

const contact = { id: '7', custom_fields: {}, tags: [], created_at: 1 };
const meta = { current_page: 1, from: null, last_page: 1, path: '', per_page: 10, to: null, total: 0 };

/** Answers each path with its documented success envelope. */
function platform(request: RecordedRequest, response: ServerResponse): void {
  const path = request.url.split('?')[0] ?? '';
  if (path.endsWith('/by_custom_field')) return sendJson(response, 200, { data: [], links: {}, meta });
  if (path.endsWith('/tags')) return sendJson(response, 200, { status: 'success', message: 'ok', data: [] });
  if (path.includes('/message/')) return sendJson(response, 200, { status: 'Success', message: 'Message Sent', data: [] });
  if (request.method === 'GET') return sendJson(response, 200, { data: contact });
  return sendJson(response, 200, { data: { id: '7' } });
}

let server: HttpTestServer;
beforeEach(async () => {
  server = await startHttpTestServer(platform);
});
afterEach(() => server.close());

function only(): RecordedRequest {
  expect(server.requests).toHaveLength(1);
  return server.requests[0]!;
}

describe('requests on the wire', () => {
  it('sends the bearer token, asks for JSON and puts no Content-Type on a GET', async () => {
    await testClient({ baseUrl: server.url, token: 'tok-123' }).getContact('7');
    const request = only();
    expect(request).toMatchObject({ method: 'GET', url: '/api/v1/contact/7', body: '' });
    expect(request.headers.authorization).toBe('Bearer tok-123');
    expect(request.headers.accept).toBe('application/json');
    expect(request.headers['content-type']).toBeUndefined();
  });

  it('builds the search URL from the base URL with name, value and page percent-encoded', async () => {
    await testClient({ baseUrl: `${server.url}/` }).searchContactsPage('phone', '+65 9123&x=1', 3);
    expect(only().url).toBe('/api/v1/contact/by_custom_field?name=phone&value=%2B65%209123%26x%3D1&page=3');
  });

  it('sends custom fields as a list of {name, value} strings with Content-Type: application/json', async () => {
    await testClient({ baseUrl: server.url }).updateContact('7', { timezone: '5', active: 'true' });
    const request = only();
    expect(request.method).toBe('PUT');
    expect(request.url).toBe('/api/v1/contact/7');
    expect(request.headers['content-type']).toBe('application/json');
    expect(JSON.parse(request.body)).toEqual({
      custom_fields: [
        { name: 'timezone', value: '5' },
        { name: 'active', value: 'true' },
      ],
    });
  });

  it('creates with POST /v1/contact', async () => {
    await testClient({ baseUrl: server.url }).createContact({ customerid: '1' });
    expect(only()).toMatchObject({ method: 'POST', url: '/api/v1/contact', body: '{"custom_fields":[{"name":"customerid","value":"1"}]}' });
  });

  it('adds tags with POST and removes them with DELETE carrying a JSON body', async () => {
    const client = testClient({ baseUrl: server.url });
    await client.addTags('7', ['a', 'b']);
    await client.removeTags('7', ['c']);
    const [add, remove] = server.requests;
    expect(add).toMatchObject({ method: 'POST', url: '/api/v1/contact/7/tags', body: '{"tags":["a","b"]}' });
    expect(remove).toMatchObject({ method: 'DELETE', url: '/api/v1/contact/7/tags', body: '{"tags":["c"]}' });
    expect(remove?.headers['content-type']).toBe('application/json');
  });

  it('percent-encodes a contact id so it stays one path segment', async () => {
    await testClient({ baseUrl: server.url }).getContact('a/b?c');
    expect(only().url).toBe('/api/v1/contact/a%2Fb%3Fc');
  });

  it('sends forceCancelSurvey only when asked, next to a one-element body', async () => {
    const client = testClient({ baseUrl: server.url });
    await client.sendText('7', 'hi');
    await client.sendAttachment('7', 'file', 'https://x.io/a.pdf', { forceCancelSurvey: true });
    expect(server.requests.map((r): [string, unknown] => [r.url, JSON.parse(r.body)])).toEqual([
      ['/api/v1/message/sendContent/7', { body: [{ type: 'text', text: 'hi' }] }],
      ['/api/v1/message/sendContent/7', { body: [{ type: 'file', url: 'https://x.io/a.pdf' }], forceCancelSurvey: true }],
    ]);
  });
});
