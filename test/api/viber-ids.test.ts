/** On Viber channels the contact id is Base64-encoded in the path of exactly operations 3, 5 and send. */
import { encodeViberId } from '../../src/api/wire-types.js';
import { startEmulator } from '../../src/emulator/index.js';
import { startHttpTestServer, sendJson } from './support/http-test-server.js';
import { testClient } from './support/test-client.js';

const meta = { current_page: 1, from: null, last_page: 1, path: '', per_page: 10, to: null, total: 0 };

describe('Viber contact ids', () => {
  it('encodes the id on update, remove tags and send, and nowhere else', async () => {
    const server = await startHttpTestServer((request, response) => {
      const path = request.url.split('?')[0] ?? '';
      if (path.endsWith('/tags')) return sendJson(response, 200, { status: 'success', message: 'ok', data: [] });
      if (path.includes('/message/')) return sendJson(response, 200, { status: 'Success', message: 'Message Sent', data: [] });
      if (path.endsWith('/by_custom_field')) return sendJson(response, 200, { data: [], meta });
      if (request.method === 'GET') return sendJson(response, 200, { data: { id: '??>', custom_fields: {}, tags: [], created_at: 1 } });
      return sendJson(response, 200, { data: { id: '1' } });
    });
    try {
      const client = testClient({ baseUrl: server.url, channelType: 'viber' });
      const id = '??>'; // Base64 "Pz8+": the + must be percent-encoded
      await client.getContact(id);
      await client.updateContact(id, { a: '1' });
      await client.addTags(id, ['t']);
      await client.removeTags(id, ['t']);
      await client.sendText(id, 'hi');
      await client.searchContactsPage('phone', '1');
      await client.createContact({ a: '1' });
      expect(server.requests.map((r) => `${r.method} ${r.url}`)).toEqual([
        'GET /api/v1/contact/%3F%3F%3E',
        'PUT /api/v1/contact/Pz8%2B',
        'POST /api/v1/contact/%3F%3F%3E/tags',
        'DELETE /api/v1/contact/Pz8%2B/tags',
        'POST /api/v1/message/sendContent/Pz8%2B',
        'GET /api/v1/contact/by_custom_field?name=phone&value=1&page=1',
        'POST /api/v1/contact',
      ]);
    } finally {
      await server.close();
    }
  });

  it('never encodes ids on a generic channel', async () => {
    const server = await startHttpTestServer((_request, response) => sendJson(response, 200, { data: { id: '1' } }));
    try {
      await testClient({ baseUrl: server.url }).updateContact('12', { a: '1' });
      expect(server.requests[0]?.url).toBe('/api/v1/contact/12');
    } finally {
      await server.close();
    }
  });

  it('works end to end on an emulated Viber channel', async () => {
    const emulator = await startEmulator({ channels: [{ token: 'viber-token', type: 'viber' }], rateLimits: false });
    try {
      const client = testClient({ baseUrl: emulator.url, token: 'viber-token', channelType: 'viber' });
      const { id } = await client.createContact({ firstName: 'Ann' });
      expect(encodeViberId(id)).not.toBe(id);
      await client.updateContact(id, { firstName: 'Anna' });
      await client.addTags(id, ['x', 'y']);
      await client.removeTags(id, ['x']);
      await client.sendText(id, 'hello');
      await expect(client.getContact(id)).resolves.toMatchObject({ custom_fields: { firstName: 'Anna' }, tags: ['y'] });
      expect(emulator.messages('viber-token', id)).toHaveLength(1);
    } finally {
      await emulator.close();
    }
  });
});
