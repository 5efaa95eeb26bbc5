import { startEmulator } from '../../src/emulator/index.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { TOKEN, api, createContact } from './emulator-http.js';

let emulator: RunningEmulator;
let clockMs = 1_700_000_000_500;

beforeEach(async () => {
  emulator = await startEmulator({ port: 0, now: () => clockMs, rateLimits: false });
});
afterEach(async () => {
  await emulator.close();
});

const fields = (record: Record<string, unknown>) => Object.entries(record).map(([name, value]) => ({ name, value }));

describe('create contact (operation 6)', () => {
  test('answers {data: {id}} with a numeric-string id and stores the fields with created_at in Unix seconds', async () => {
    clockMs = 1_700_000_123_999;
    const answer = await api(emulator, 'POST', '/v1/contact', { json: { custom_fields: fields({ firstName: 'Ada', customerid: '7' }) } });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ data: { id: expect.stringMatching(/^\d{16}$/) } });
    expect(emulator.contacts(TOKEN)).toEqual([
      { id: answer.body.data.id, custom_fields: { firstName: 'Ada', customerid: '7' }, tags: [], created_at: 1_700_000_123 },
    ]);
  });

  test('hands out increasing ids from the platform-like base', async () => {
    const first = await createContact(emulator, { customerid: '1' });
    const second = await createContact(emulator, { customerid: '2' });
    expect(first).toBe('1776025372480910');
    expect(BigInt(second)).toBe(BigInt(first) + 1n);
  });

  test('refuses more than 30 custom fields with a 403 and accepts exactly 30', async () => {
    const thirty = Array.from({ length: 30 }, (_, i) => ({ name: `f${i}`, value: 'x' }));
    expect((await api(emulator, 'POST', '/v1/contact', { json: { custom_fields: thirty } })).status).toBe(200);
    const answer = await api(emulator, 'POST', '/v1/contact', { json: { custom_fields: [...thirty, { name: 'f30', value: 'x' }] } });
    expect(answer.status).toBe(403);
    expect(answer.body).toEqual({ status: 'error', message: expect.stringContaining('at most 30'), data: [] });
    expect(emulator.contacts(TOKEN)).toHaveLength(1);
  });

  test.each([
    ['a number value', { custom_fields: [{ name: 'timezone', value: 5 }] }, 'must be a string'],
    ['a boolean value', { custom_fields: [{ name: 'vip', value: true }] }, 'must be a string'],
    ['an empty list', { custom_fields: [] }, 'is empty'],
    ['no custom_fields', { fields: [] }, 'custom_fields must be a list'],
    ['a list body', [1, 2], 'must be a JSON object'],
    ['an entry without a name', { custom_fields: [{ value: 'x' }] }, 'name must be a non-empty string'],
  ])('refuses %s with a 403 and creates nothing', async (_case, body, message) => {
    const answer = await api(emulator, 'POST', '/v1/contact', { json: body });
    expect(answer.status).toBe(403);
    expect(answer.body).toEqual({ status: 'error', message: expect.stringContaining(message), data: [] });
    expect(emulator.contacts(TOKEN)).toEqual([]);
  });

  test('refuses a body that is not JSON with a 403', async () => {
    const answer = await api(emulator, 'POST', '/v1/contact', { raw: '{"custom_fields": [' });
    expect(answer.status).toBe(403);
    expect(answer.body.message).toContain('not valid JSON');
  });
});

describe('get contact (operation 2)', () => {
  test('answers {data: Contact}', async () => {
    const [loaded] = emulator.loadContacts(TOKEN, [{ id: '42', custom_fields: { email: 'a@b.c' }, tags: ['vip'], created_at: 1_600_000_000 }]);
    const answer = await api(emulator, 'GET', '/v1/contact/42');
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ data: loaded });
    expect(answer.body.data).toEqual({ id: '42', custom_fields: { email: 'a@b.c' }, tags: ['vip'], created_at: 1_600_000_000 });
  });

  test('answers an unknown id with 403 "no such contact", not 404', async () => {
    const answer = await api(emulator, 'GET', '/v1/contact/999');
    expect(answer.status).toBe(403);
    expect(answer.body).toEqual({ status: 'error', message: expect.stringContaining('no such contact'), data: [] });
  });
});

describe('update contact (operation 3)', () => {
  test('changes only the named fields and answers {data: {id}}', async () => {
    const id = await createContact(emulator, { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@x.org' });
    const answer = await api(emulator, 'PUT', `/v1/contact/${id}`, { json: { custom_fields: fields({ email: 'ada@y.org', phone: '+441' }) } });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ data: { id } });
    expect(emulator.contacts(TOKEN)[0]?.custom_fields).toEqual({ firstName: 'Ada', lastName: 'Lovelace', email: 'ada@y.org', phone: '+441' });
  });

  test('keeps tags and created_at', async () => {
    const [before] = emulator.loadContacts(TOKEN, [{ id: '5', custom_fields: { a: '1' }, tags: ['t'], created_at: 100 }]);
    await api(emulator, 'PUT', '/v1/contact/5', { json: { custom_fields: fields({ a: '2' }) } });
    expect(emulator.contacts(TOKEN)).toEqual([{ ...before, custom_fields: { a: '2' } }]);
  });

  test('refuses an unknown contact, more than 30 fields and non-string values with 403', async () => {
    const id = await createContact(emulator, { firstName: 'Ada' });
    const unknown = await api(emulator, 'PUT', '/v1/contact/1', { json: { custom_fields: fields({ a: 'b' }) } });
    expect([unknown.status, unknown.body.message]).toEqual([403, expect.stringContaining('no such contact')]);
    const many = await api(emulator, 'PUT', `/v1/contact/${id}`, {
      json: { custom_fields: Array.from({ length: 31 }, (_, i) => ({ name: `f${i}`, value: 'x' })) },
    });
    expect(many.status).toBe(403);
    const numeric = await api(emulator, 'PUT', `/v1/contact/${id}`, { json: { custom_fields: [{ name: 'firstName', value: 1 }] } });
    expect(numeric.status).toBe(403);
    expect(emulator.contacts(TOKEN)[0]?.custom_fields).toEqual({ firstName: 'Ada' });
  });
});

describe('tags (operations 4 and 5)', () => {
  test('add tags answers the tag envelope and treats tags as a set', async () => {
    const id = await createContact(emulator, { customerid: '1' });
    const first = await api(emulator, 'POST', `/v1/contact/${id}/tags`, { json: { tags: ['a', 'b', 'a'] } });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ status: 'success', message: expect.any(String), data: [] });
    await api(emulator, 'POST', `/v1/contact/${id}/tags`, { json: { tags: ['b', 'c'] } });
    expect(emulator.contacts(TOKEN)[0]?.tags).toEqual(['a', 'b', 'c']);
  });

  test('remove tags takes a JSON body on DELETE and ignores tags the contact does not have', async () => {
    const [contact] = emulator.loadContacts(TOKEN, [{ tags: ['a', 'b', 'c'] }]);
    const answer = await api(emulator, 'DELETE', `/v1/contact/${contact!.id}/tags`, { json: { tags: ['b', 'zzz'] } });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ status: 'success', message: expect.any(String), data: [] });
    expect(emulator.contacts(TOKEN)[0]?.tags).toEqual(['a', 'c']);
  });

  test.each([
    ['more than 10 tags', { tags: Array.from({ length: 11 }, (_, i) => `t${i}`) }, 'at most 10'],
    ['an empty tag list', { tags: [] }, 'tags is empty'],
    ['a non-string tag', { tags: [1] }, 'must be a non-empty string'],
    ['no tags key', { tag: 'a' }, 'tags must be a list'],
  ])('refuses %s with a 403 on add and remove', async (_case, body, message) => {
    const id = await createContact(emulator, { customerid: '1' });
    for (const method of ['POST', 'DELETE']) {
      const answer = await api(emulator, method, `/v1/contact/${id}/tags`, { json: body });
      expect(answer.status).toBe(403);
      expect(answer.body).toEqual({ status: 'error', message: expect.stringContaining(message), data: [] });
    }
    expect(emulator.contacts(TOKEN)[0]?.tags).toEqual([]);
  });

  test('accepts exactly 10 tags', async () => {
    const id = await createContact(emulator, { customerid: '1' });
    const answer = await api(emulator, 'POST', `/v1/contact/${id}/tags`, { json: { tags: Array.from({ length: 10 }, (_, i) => `t${i}`) } });
    expect(answer.status).toBe(200);
    expect(emulator.contacts(TOKEN)[0]?.tags).toHaveLength(10);
  });

  test('refuses tags on an unknown contact with 403 "no such contact"', async () => {
    const answer = await api(emulator, 'POST', '/v1/contact/123/tags', { json: { tags: ['a'] } });
    expect(answer.status).toBe(403);
    expect(answer.body.message).toContain('no such contact');
  });
});

describe('allowed custom fields', () => {
  test('without a list any field name is accepted', async () => {
    await createContact(emulator, { anything_goes: 'yes' });
    expect(emulator.contacts(TOKEN)[0]?.custom_fields).toEqual({ anything_goes: 'yes' });
  });

  test('with a list, the spec fields and the listed ones are accepted and any other is a 403 naming it', async () => {
    const strict = await startEmulator({ allowedFields: ['vip'] });
    try {
      const ok = await api(strict, 'POST', '/v1/contact', { json: { custom_fields: fields({ email: 'a@b.c', customerid: '1', vip: 'true' }) } });
      expect(ok.status).toBe(200);
      const refused = await api(strict, 'POST', '/v1/contact', { json: { custom_fields: fields({ email: 'x@y.z', shoeSize: '9' }) } });
      expect(refused.status).toBe(403);
      expect(refused.body.message).toContain('"shoeSize"');
      const update = await api(strict, 'PUT', `/v1/contact/${ok.body.data.id}`, { json: { custom_fields: fields({ shoeSize: '9' }) } });
      expect(update.status).toBe(403);
      expect(strict.contacts(TOKEN)).toHaveLength(1);
      expect(strict.contacts(TOKEN)[0]?.custom_fields).toEqual({ email: 'a@b.c', customerid: '1', vip: 'true' });
    } finally {
      await strict.close();
    }
  });
});
