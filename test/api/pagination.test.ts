import { PageLimitError } from '../../src/api/errors.js';
import { paginateContacts } from '../../src/api/pagination.js';
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
