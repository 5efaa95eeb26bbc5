import { request as httpRequest } from 'node:http';
import { startEmulator } from '../../src/emulator/index.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { TOKEN, api, createContact } from './emulator-http.js';
import type { Answer } from './emulator-http.js';

let emulator: RunningEmulator;

beforeEach(async () => {
  emulator = await startEmulator({ rateLimits: false });
});
afterEach(async () => {
  await emulator.close();
});

function loadMatches(count: number, value = 'gold'): string[] {
  const seeds = Array.from({ length: count }, (_, i) => ({ custom_fields: { tier: value, n: String(i) } }));
  return emulator.loadContacts(TOKEN, seeds).map((contact) => contact.id);
}

const search = (query: string) => api(emulator, 'GET', `/v1/contact/by_custom_field?${query}`);
const idsOf = (answer: Answer): string[] => (answer.body.data as Array<{ id: string }>).map((contact) => contact.id);
const pageLink = (page: number) => `${emulator.origin}/api/v1/contact/by_custom_field?page=${page}`;

describe('get contacts by custom field (operation 1)', () => {
  test('no match gives an empty data list, page 1 of 1, null prev and next, null from and to', async () => {
    loadMatches(3, 'silver');
    const answer = await search('name=tier&value=gold');
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      data: [],
      links: { first: pageLink(1), last: pageLink(1), prev: null, next: null },
      meta: { current_page: 1, from: null, last_page: 1, path: `${emulator.origin}/api/v1/contact/by_custom_field`, per_page: 10, to: null, total: 0 },
    });
  });

  test('one match gives the full contact, with first and last at page 1', async () => {
    emulator.loadContacts(TOKEN, [{ id: '77', custom_fields: { email: 'a@b.c' }, tags: ['x'], created_at: 5 }]);
    const answer = await search('name=email&value=a%40b.c');
    expect(answer.body.data).toEqual([{ id: '77', custom_fields: { email: 'a@b.c' }, tags: ['x'], created_at: 5 }]);
    expect(answer.body.links).toEqual({ first: pageLink(1), last: pageLink(1), prev: null, next: null });
    expect(answer.body.meta).toMatchObject({ current_page: 1, from: 1, to: 1, last_page: 1, total: 1, per_page: 10 });
  });

  test('ten matches fill exactly one page', async () => {
    const ids = loadMatches(10);
    const answer = await search('name=tier&value=gold');
    expect(idsOf(answer)).toEqual(ids);
    expect(answer.body.links).toEqual({ first: pageLink(1), last: pageLink(1), prev: null, next: null });
    expect(answer.body.meta).toMatchObject({ from: 1, to: 10, last_page: 1, total: 10 });
  });

  test('eleven matches spill one contact onto page 2', async () => {
    const ids = loadMatches(11);
    const first = await search('name=tier&value=gold');
    expect(first.body.data).toHaveLength(10);
    expect(first.body.links).toEqual({ first: pageLink(1), last: pageLink(2), prev: null, next: pageLink(2) });
    const second = await search('name=tier&value=gold&page=2');
    expect(idsOf(second)).toEqual([ids[10]]);
    expect(second.body.links).toEqual({ first: pageLink(1), last: pageLink(2), prev: pageLink(1), next: null });
    expect(second.body.meta).toMatchObject({ current_page: 2, from: 11, to: 11, last_page: 2, total: 11 });
  });

  test('twenty-five matches make three pages, oldest first, with prev and next in the middle', async () => {
    const ids = loadMatches(25);
    const pages = await Promise.all([1, 2, 3].map((page) => search(`name=tier&value=gold&page=${page}`)));
    expect(pages.flatMap(idsOf)).toEqual(ids);
    expect(pages[1]!.body.links).toEqual({ first: pageLink(1), last: pageLink(3), prev: pageLink(1), next: pageLink(3) });
    expect(pages.map((page): unknown => [page.body.meta.from, page.body.meta.to])).toEqual([[1, 10], [11, 20], [21, 25]]);
    expect(pages[2]!.body.links.next).toBeNull();
  });

  test('a page beyond the end gives empty data and no next', async () => {
    loadMatches(11);
    const answer = await search('name=tier&value=gold&page=5');
    expect(answer.status).toBe(200);
    expect(answer.body.data).toEqual([]);
    expect(answer.body.meta).toMatchObject({ current_page: 5, from: null, to: null, last_page: 2, total: 11 });
    expect(answer.body.links).toMatchObject({ next: null, last: pageLink(2) });
  });

  test('matches the value exactly (case, whitespace) on fields other than email, and on the named field only', async () => {
    emulator.loadContacts(TOKEN, [
      { custom_fields: { customerid: 'C-1' } },
      { custom_fields: { customerid: 'c-1 ' } },
      { custom_fields: { email: 'c-1' } },
    ]);
    expect((await search('name=customerid&value=c-1')).body.data).toEqual([]);
  });

  // Platform notes, "Values in queries": emails are matched case-insensitively (issue 28).
  test('matches an email case-insensitively by default (spaces still count), and follows updates', async () => {
    const [upper, lower] = emulator.loadContacts(TOKEN, [
      { custom_fields: { email: 'ANN@Example.com' } },
      { custom_fields: { email: 'ann@example.com' } },
      { custom_fields: { email: 'ann@example.com ' } },
      { custom_fields: { customerid: 'ann@example.com' } },
    ]);
    expect(idsOf(await search('name=email&value=ann%40example.com'))).toEqual([upper!.id, lower!.id]);
    expect(idsOf(await search('name=email&value=Ann%40EXAMPLE.com'))).toEqual([upper!.id, lower!.id]);
    await api(emulator, 'PUT', `/v1/contact/${upper!.id}`, { json: { custom_fields: [{ name: 'email', value: 'bob@example.com' }] } });
    expect(idsOf(await search('name=email&value=ann%40example.com'))).toEqual([lower!.id]);
    expect(idsOf(await search('name=email&value=BOB%40example.com'))).toEqual([upper!.id]);
    emulator.deleteContact(TOKEN, lower!.id);
    expect(idsOf(await search('name=email&value=ann%40example.com'))).toEqual([]);
  });

  test('with emailSearch: exact, an email is matched exactly too', async () => {
    const exact = await startEmulator({ rateLimits: false, emailSearch: 'exact' });
    try {
      const [, lower] = exact.loadContacts(TOKEN, [{ custom_fields: { email: 'ANN@Example.com' } }, { custom_fields: { email: 'ann@example.com' } }]);
      const answer = await api(exact, 'GET', '/v1/contact/by_custom_field?name=email&value=ann%40example.com');
      expect(idsOf(answer)).toEqual([lower!.id]);
    } finally {
      await exact.close();
    }
  });

  test('refuses an unknown emailSearch mode, naming the option and the modes', async () => {
    await expect(startEmulator({ emailSearch: 'loose' as never })).rejects.toThrow(/emailSearch: "loose" is not a search mode; use case-insensitive or exact/);
  });

  test('follows creates and updates: a changed value leaves the old search and joins the new one', async () => {
    const id = await createContact(emulator, { customerid: 'c-1' });
    expect((await search('name=customerid&value=c-1')).body.meta.total).toBe(1);
    await api(emulator, 'PUT', `/v1/contact/${id}`, { json: { custom_fields: [{ name: 'customerid', value: 'c-2' }] } });
    expect((await search('name=customerid&value=c-1')).body.meta.total).toBe(0);
    expect(idsOf(await search('name=customerid&value=c-2'))).toEqual([id]);
    emulator.deleteContact(TOKEN, id);
    expect((await search('name=customerid&value=c-2')).body.meta.total).toBe(0);
  });

  test('reads a bare + in the query as a space, like the platform, and %2B as +', async () => {
    emulator.loadContacts(TOKEN, [{ custom_fields: { phone: '+6591234567' } }]);
    expect((await search('name=phone&value=+6591234567')).body.data).toEqual([]);
    expect((await search('name=phone&value=%2B6591234567')).body.data).toHaveLength(1);
  });

  test('links use the Host of the request and carry only the page (the live quirk)', async () => {
    loadMatches(11);
    // fetch may not set Host; node:http may.
    const body = await new Promise<{ links: { next: string } }>((resolve, reject) => {
      const request = httpRequest(
        `${emulator.url}/v1/contact/by_custom_field?name=tier&value=gold`,
        { headers: { authorization: `Bearer ${TOKEN}`, host: 'api.example.test' } },
        (response) => {
          let text = '';
          response.on('data', (chunk: Buffer) => (text += chunk.toString()));
          response.on('end', () => resolve(JSON.parse(text) as { links: { next: string } }));
        },
      );
      request.on('error', reject);
      request.end();
    });
    expect(body.links.next).toBe('http://api.example.test/api/v1/contact/by_custom_field?page=2');
  });

  test('refuses a search without name or value with a 403', async () => {
    expect((await search('value=x')).status).toBe(403);
    expect((await search('name=email')).status).toBe(403);
  });
});
