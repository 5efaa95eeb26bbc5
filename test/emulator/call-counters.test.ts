import { API_OPERATIONS } from '../../src/api/wire-types.js';
import { startEmulator } from '../../src/emulator/index.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { TOKEN, api } from './emulator-http.js';

let emulator: RunningEmulator;

beforeEach(async () => {
  emulator = await startEmulator({ channels: [{ token: TOKEN }, { token: 'other-token' }], rateLimits: { contacts: { limit: 6, periodMs: 60_000 } } });
});
afterEach(async () => {
  await emulator.close();
});

describe('call counters', () => {
  test('count every request per operation, refused ones included, with totals', async () => {
    const [contact] = emulator.loadContacts(TOKEN, [{}]);
    const id = contact!.id;
    await api(emulator, 'GET', '/v1/contact/by_custom_field?name=a&value=b');
    await api(emulator, 'GET', `/v1/contact/${id}`);
    await api(emulator, 'GET', '/v1/contact/404'); // 403, still received
    await api(emulator, 'PUT', `/v1/contact/${id}`, { json: { custom_fields: [{ name: 'a', value: 'b' }] } });
    await api(emulator, 'POST', `/v1/contact/${id}/tags`, { json: { tags: ['a'] } });
    await api(emulator, 'DELETE', `/v1/contact/${id}/tags`, { json: { tags: ['a'] } });
    await api(emulator, 'POST', '/v1/contact', { json: { custom_fields: [{ name: 'a', value: 'b' }] } }); // 429: 7th contacts call
    await api(emulator, 'POST', `/v1/message/sendContent/${id}`, { json: { body: [{ type: 'text', text: 'x' }] } });

    const counters = emulator.counters(TOKEN);
    expect(Object.keys(counters.byOperation).sort()).toEqual([...API_OPERATIONS].sort());
    expect(counters.byOperation).toEqual({
      searchContacts: { received: 1, rateLimited: 0, faulted: 0 },
      getContact: { received: 2, rateLimited: 0, faulted: 0 },
      updateContact: { received: 1, rateLimited: 0, faulted: 0 },
      addTags: { received: 1, rateLimited: 0, faulted: 0 },
      removeTags: { received: 1, rateLimited: 0, faulted: 0 },
      createContact: { received: 1, rateLimited: 1, faulted: 0 },
      sendMessage: { received: 1, rateLimited: 0, faulted: 0 },
    });
    expect(counters.total).toEqual({ received: 8, rateLimited: 1, faulted: 0 });
    expect(emulator.counters('other-token').total.received).toBe(0);
  });

  test('do not count unauthenticated requests or 405s', async () => {
    await api(emulator, 'GET', '/v1/contact/1', { token: 'unknown' });
    await api(emulator, 'PATCH', '/v1/contact/1');
    expect(emulator.counters(TOKEN).total.received).toBe(0);
  });

  test('reset for one channel or all', async () => {
    await api(emulator, 'GET', '/v1/contact/1');
    await api(emulator, 'GET', '/v1/contact/1', { token: 'other-token' });
    emulator.resetCounters(TOKEN);
    expect([emulator.counters(TOKEN).total.received, emulator.counters('other-token').total.received]).toEqual([0, 1]);
    emulator.resetCounters();
    expect(emulator.counters('other-token').total.received).toBe(0);
  });

  test('are snapshots: changing one changes nothing in the emulator', async () => {
    await api(emulator, 'GET', '/v1/contact/1');
    const snapshot = emulator.counters(TOKEN);
    snapshot.total.received = 99;
    expect(emulator.counters(TOKEN).total.received).toBe(1);
  });
});
