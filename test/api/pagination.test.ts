import { PageLimitError } from '../../src/api/errors.js';
import { listPageCap, paginateContacts, paginateList } from '../../src/api/v1/pagination.js';
import type { Contact, ContactPage } from '../../src/api/wire-types.js';

function contact(n: number): Contact {
  return { id: String(n), custom_fields: {}, tags: [], created_at: 0 };
}

/** Pages of 10 over `total` contacts, recording the page numbers asked for. */
function fakePages(total: number): { fetchPage: (page: number) => Promise<ContactPage>; asked: number[] } {
  const asked: number[] = [];
  const lastPage = Math.max(1, Math.ceil(total / 10));
  return {
    asked,
    fetchPage: (page) => {
      asked.push(page);
      const from = (page - 1) * 10;
      const data = Array.from({ length: Math.max(0, Math.min(10, total - from)) }, (_, i) => contact(from + i + 1));
      return Promise.resolve({
        data,
        links: { first: null, last: null, prev: null, next: 'http://evil.example/?page=99' },
        meta: { current_page: page, from: null, last_page: lastPage, path: '', per_page: 10, to: null, total },
      });
    },
  };
}

async function collect(pages: AsyncGenerator<Contact[]>): Promise<Contact[][]> {
  const seen: Contact[][] = [];
  for await (const page of pages) seen.push(page);
  return seen;
}

describe('paginateContacts', () => {
  it('reads pages 1 to meta.last_page in order, ignoring links', async () => {
    const { fetchPage, asked } = fakePages(25);
    const pages = await collect(paginateContacts(fetchPage, 100));
    expect(asked).toEqual([1, 2, 3]);
    expect(pages.map((page) => page.length)).toEqual([10, 10, 5]);
    expect(pages.flat().map((c) => c.id)).toEqual(Array.from({ length: 25 }, (_, i) => String(i + 1)));
  });

  it('stops at the first empty page, yielding it once (one yield per request)', async () => {
    const { fetchPage, asked } = fakePages(0);
    expect(await collect(paginateContacts(fetchPage, 100))).toEqual([[]]);
    expect(asked).toEqual([1]);
  });

  it('throws PageLimitError after maxPages pages when more remain', async () => {
    const { fetchPage, asked } = fakePages(45);
    const seen: number[] = [];
    const run = async (): Promise<void> => {
      for await (const page of paginateContacts(fetchPage, 2)) seen.push(page.length);
    };
    await expect(run()).rejects.toThrow(PageLimitError);
    await expect(collect(paginateContacts(fakePages(45).fetchPage, 2))).rejects.toMatchObject({ code: 'PAGE_LIMIT', maxPages: 2 });
    expect(seen).toEqual([10, 10]);
    expect(asked).toEqual([1, 2]);
  });

  it('does not throw when the last page is exactly the cap', async () => {
    const { fetchPage } = fakePages(20);
    expect((await collect(paginateContacts(fetchPage, 2))).length).toBe(2);
  });
});

describe('listPageCap: a listing reads at most twice the pages its first page announces, plus 10', () => {
  it.each([
    [1, 12],
    [3, 16],
    [1000, 2010],
    [5000, 10_010],
  ])('%i pages announced: at most %i read', (announced, cap) => {
    expect(listPageCap(announced)).toBe(cap);
  });
});

describe('paginateList (a marker listing, issue 34): bounded by the pages announced, not by a search cap', () => {
  const marker = { field: 'source', value: 'crm' };

  it('reads all 1,200 pages of 12,000 marked contacts, past the 1,000 pages that cap one key search', async () => {
    const { fetchPage, asked } = fakePages(12_000);
    const pages = await collect(paginateList(fetchPage, marker));
    expect(pages.flat()).toHaveLength(12_000);
    expect(asked).toHaveLength(1200);
    expect(asked.at(-1)).toBe(1200);
  });

  it('follows a list that grows while it is read, within the margin', async () => {
    // 10 contacts are added with each page read: 3 pages announced, 6 by the end.
    let total = 25;
    const asked: number[] = [];
    const fetchPage = (page: number): Promise<ContactPage> => {
      asked.push(page);
      const lastPage = Math.ceil(total / 10);
      const data = Array.from({ length: Math.max(0, Math.min(10, total - (page - 1) * 10)) }, (_, i) => contact((page - 1) * 10 + i + 1));
      total = Math.min(total + 10, 55);
      return Promise.resolve({ data, links: { first: null, last: null, prev: null, next: null }, meta: { current_page: page, from: null, last_page: lastPage, path: '', per_page: 10, to: null, total } });
    };
    expect((await collect(paginateList(fetchPage, marker))).flat()).toHaveLength(55);
    expect(asked).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('ends with PAGE_LIMIT naming the marker and the pages announced when the list keeps growing past the cap', async () => {
    const asked: number[] = [];
    // Every page says there is one more: a list that never ends.
    const fetchPage = (page: number): Promise<ContactPage> => {
      asked.push(page);
      return Promise.resolve({ data: [contact(page)], links: { first: null, last: null, prev: null, next: null }, meta: { current_page: page, from: null, last_page: page + 1, path: '', per_page: 10, to: null, total: page + 1 } });
    };
    const error = await collect(paginateList(fetchPage, marker)).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PageLimitError);
    expect((error as PageLimitError).maxPages).toBe(14);
    expect((error as PageLimitError).message).toBe(
      'searchContacts: the list of the contacts with source=crm announced 2 pages on its first page and grew to 15 while it was read, past the cap of 14 (twice the pages announced, plus 10); contacts are being added with the marker faster than they can be read: run again when they are not',
    );
    expect(asked).toHaveLength(14);
  });
});
