import { oldestFirst } from '../../../src/pipeline/row/contact-order.js';

describe('oldestFirst: the one order of the contacts of a key', () => {
  test('orders by created_at, then numeric ids by length and text, whatever the order given', () => {
    const contacts = [
      { id: '1000', created_at: 5 },
      { id: 'b', created_at: 5 },
      { id: '99', created_at: 5 },
      { id: '7', created_at: 9 },
      { id: 'a', created_at: 5 },
      { id: '100', created_at: 5 },
      { id: '3', created_at: 1 },
    ];
    expect(oldestFirst(contacts).map((c) => c.id)).toEqual(['3', 'a', 'b', '99', '100', '1000', '7']);
    expect(oldestFirst([...contacts].reverse()).map((c) => c.id)).toEqual(['3', 'a', 'b', '99', '100', '1000', '7']);
  });

  test('leaves the list it was given as it was', () => {
    const contacts = [
      { id: '2', created_at: 2 },
      { id: '1', created_at: 1 },
    ];
    oldestFirst(contacts);
    expect(contacts.map((c) => c.id)).toEqual(['2', '1']);
  });
});
