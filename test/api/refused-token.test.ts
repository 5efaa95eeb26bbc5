import Bottleneck from 'bottleneck';
import { InvalidTokenError } from '../../src/api/errors.js';
import { sendJson, startHttpTestServer, type HttpTestServer } from './support/http-test-server.js';
import { testClient } from './support/test-client.js';

describe('a refused token', () => {
  let server: HttpTestServer;
  afterEach(async () => {
    await server.close();
  });

  it('after a 401 the client sends nothing more: calls queued behind it fail without a request', async () => {
    server = await startHttpTestServer((_request, response) => {
      sendJson(response, 401, { status: 'error', message: 'The API token is invalid', data: [] });
    });
    // One call at a time, as a strict limiter would let them out.
    const serial = new Bottleneck({ maxConcurrent: 1 });
    const client = testClient({ baseUrl: server.url, limiters: { contacts: serial, messages: serial } });

    const outcomes = await Promise.allSettled([client.getContact('1'), client.getContact('2'), client.updateContact('3', { a: 'b' }), client.sendText('4', 'hi')]);

    expect(outcomes.filter((o) => !(o.status === 'rejected' && o.reason instanceof InvalidTokenError))).toEqual([]);
    expect(server.requests).toHaveLength(1);
    expect(client.stats.total()).toBe(1);
  });
});

describe('a short token', () => {
  it('does not corrupt response bodies that happen to contain its text', async () => {
    const { startEmulator } = await import('../../src/emulator/index.js');
    const emulator = await startEmulator({ channels: [{ token: 't' }], rateLimits: false });
    try {
      emulator.loadContacts('t', [{ custom_fields: { customerid: 'data-t' } }]);
      const client = testClient({ baseUrl: emulator.url, token: 't' });
      const pages = [];
      for await (const page of client.searchContacts('customerid', 'data-t')) pages.push(page);
      expect(pages.flat().map((c) => c.custom_fields.customerid)).toEqual(['data-t']);
    } finally {
      await emulator.close();
    }
  });
});
