/**
 * `POST /contact/list`: filters (isEqualTo on a custom field and on email, tags), up to 100 a page
 * with a cursor, the next and previous pages' URLs, and the conditions it does not emulate refused.
 */
import type { RunningEmulator } from '../../../src/emulator/index.js';
import type { Answer } from '../emulator-http.js';
import { CHANNEL_TOKEN, createV2Contact, startV2Emulator, v2 } from './v2-http.js';

let emulator: RunningEmulator;
beforeEach(async () => {
  emulator = await startV2Emulator();
});
afterEach(async () => {
  await emulator.close();
});

const where = (...conditions: unknown[]) => ({ search: '', timezone: 'UTC', filter: { $and: conditions } });
const isEqualTo = (field: string, value: string) => ({ category: 'contactField', field, operator: 'isEqualTo', value });
/** The ids of a page's contacts, in order. */
const ids = (answer: Answer): number[] => (answer.body.items as Array<{ id: number }>).map((item) => item.id);
const list = (body: unknown, query = '') => v2(emulator, 'POST', `/contact/list${query}`, { json: body });

/** Loads `count` contacts straight into the store (quicker than one call each). */
function load(count: number, fields: (i: number) => Record<string, string>): void {
  emulator.loadContacts(CHANNEL_TOKEN, Array.from({ length: count }, (_, i) => ({ custom_fields: { firstName: `P${i}`, ...fields(i) } })));
}

describe('contact list filters', () => {
  test('isEqualTo on a custom field finds exactly the contacts holding that value', async () => {
    const a = await createV2Contact(emulator, 'email:a@example.com', { custom_fields: [{ name: 'customerid', value: 'C1' }] });
    await createV2Contact(emulator, 'email:b@example.com', { custom_fields: [{ name: 'customerid', value: 'C10' }] });
    await createV2Contact(emulator, 'email:c@example.com', { custom_fields: [{ name: 'customerid', value: 'c1' }] });
    const answer = await list(where(isEqualTo('customerid', 'C1')));
    expect(answer.status).toBe(200);
    expect(ids(answer)).toEqual([a]);
    expect(answer.body.items[0].custom_fields).toEqual([{ name: 'customerid', value: 'C1' }]);
    expect(answer.body.pagination).toEqual({ next: '', previous: '' });
  });

  test('isEqualTo on email ignores case; no match is an empty page', async () => {
    const ann = await createV2Contact(emulator, 'email:Ann@Example.com');
    expect(ids(await list(where(isEqualTo('email', 'ann@example.com'))))).toEqual([ann]);
    expect((await list(where(isEqualTo('email', 'nobody@example.com')))).body).toEqual({ items: [], pagination: { next: '', previous: '' } });
  });

  test('conditions of $and all hold; contactTag hasAnyOf and exists narrow further', async () => {
    const a = await createV2Contact(emulator, 'email:a@example.com', { custom_fields: [{ name: 'plan', value: 'gold' }] });
    const b = await createV2Contact(emulator, 'email:b@example.com', { custom_fields: [{ name: 'plan', value: 'gold' }], lastName: 'Lee' });
    await v2(emulator, 'POST', `/contact/id:${b}/tag`, { json: ['vip'] });
    const found = async (body: unknown) => ids(await list(body));
    expect(await found(where(isEqualTo('plan', 'gold')))).toEqual([a, b]);
    expect(await found(where(isEqualTo('plan', 'gold'), { category: 'contactTag', field: null, operator: 'hasAnyOf', value: ['vip'] }))).toEqual([b]);
    expect(await found(where({ category: 'contactField', field: 'lastName', operator: 'doesNotExist', value: null }))).toEqual([a]);
  });

  test.each([
    ['a free-text search', { search: 'ann', timezone: 'UTC', filter: { $and: [] } }, 'search: a free-text search is not emulated; send "" and find contacts with filter conditions'],
    ['an operator it does not emulate', where({ category: 'contactField', field: 'plan', operator: 'isGreaterThan', value: '1' }), 'filter.$and[0].operator "isGreaterThan" is not emulated on contactField; use isEqualTo, isNotEqualTo, exists, doesNotExist'],
    ['the lifecycle category', where({ category: 'lifecycle', field: null, operator: 'isEqualTo', value: 'Lead' }), 'filter.$and[0].category "lifecycle" is not emulated; use contactField or contactTag'],
    ['no timezone', { search: '', filter: { $and: [] } }, 'timezone is required (e.g. "UTC"), got none'],
  ])('refuses %s with 400 rather than ignore it', async (_case, body, message) => {
    const answer = await list(body);
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ code: 400, message });
  });
});

describe('contact list pages', () => {
  test('100 a page: 250 matches are 3 pages by cursor, in id order, each with its neighbours\' URLs', async () => {
    load(250, () => ({ plan: 'gold' }));
    load(5, () => ({ plan: 'silver' }));
    const body = where(isEqualTo('plan', 'gold'));
    const seen: number[] = [];
    let query = '?limit=100';
    const pages: Array<{ next: string; previous: string }> = [];
    for (let guard = 0; guard < 5 && query !== undefined; guard += 1) {
      const answer = await list(body, query);
      expect(answer.status).toBe(200);
      seen.push(...ids(answer));
      pages.push(answer.body.pagination as { next: string; previous: string });
      const next: string = answer.body.pagination.next;
      if (next === '') break;
      expect(next.startsWith(`${emulator.v2Url}/contact/list?limit=100&cursorId=`)).toBe(true);
      query = next.slice(next.indexOf('?'));
    }
    expect(pages).toHaveLength(3);
    expect(seen).toHaveLength(250);
    expect([...seen].sort((x, y) => x - y)).toEqual(seen);
    expect(new Set(seen).size).toBe(250);
    expect(pages[0]?.previous).toBe('');
    expect(pages[1]?.previous).toBe(`${emulator.v2Url}/contact/list?limit=100`);
    expect(pages[2]?.previous).toBe(`${emulator.v2Url}/contact/list?limit=100&cursorId=${seen[99]}`);
    expect(pages[2]?.next).toBe('');
  });

  test('the default page is 10; a limit over 100 or a cursor that is not a number is refused', async () => {
    load(12, () => ({ plan: 'gold' }));
    expect((await list(where())).body.items).toHaveLength(10);
    const over = await list(where(), '?limit=101');
    expect(over.status).toBe(400);
    expect(over.body).toEqual({ code: 400, message: 'limit must be a whole number from 1 to 100, got "101"' });
    expect((await list(where(), '?cursorId=abc')).status).toBe(400);
  });
});
