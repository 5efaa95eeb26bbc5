import { parseJsonBody } from '../../src/api/json-body.js';
import {
  readContactEnvelope,
  readContactPage,
  readIdEnvelope,
  readSuccessEnvelope,
} from '../../src/api/v1/envelopes.js';
import { MalformedResponseError } from '../../src/api/errors.js';

const where = { operation: 'searchContacts' as const, method: 'GET', path: '/api/v1/contact/by_custom_field', status: 200 };
const contact = { id: '17', custom_fields: { email: 'a@b.c' }, tags: ['vip'], created_at: 1_700_000_000 };
const meta = { current_page: 1, from: 1, last_page: 1, path: 'http://x/api/v1/contact/by_custom_field', per_page: 10, to: 1, total: 1 };

function malformed(read: () => unknown): MalformedResponseError {
  try {
    read();
  } catch (error) {
    if (error instanceof MalformedResponseError) return error;
    throw error;
  }
  throw new Error('expected a MalformedResponseError');
}

describe('envelope checks', () => {
  it('reads a documented search page', () => {
    const page = readContactPage({ data: [contact], links: { first: 'x', last: 'x', prev: null, next: null }, meta }, where);
    expect(page.data).toEqual([contact]);
    expect(page.meta.last_page).toBe(1);
  });

  it('tolerates an empty page with from and to null and no links', () => {
    const page = readContactPage({ data: [], meta: { ...meta, from: null, to: null, total: 0 } }, where);
    expect(page.data).toEqual([]);
    expect(page.links).toEqual({ first: null, last: null, prev: null, next: null });
  });

  it('reads custom field values given as numbers as strings and skips nulls', () => {
    const page = readContactPage({ data: [{ ...contact, custom_fields: { timezone: 5, gender: null, vip: true } }], meta }, where);
    expect(page.data[0]?.custom_fields).toEqual({ timezone: '5', vip: 'true' });
  });

  it.each([
    ['a list body', []],
    ['data not a list', { data: {}, meta }],
    ['no meta', { data: [] }],
    ['meta.last_page missing', { data: [], meta: { current_page: 1 } }],
    ['meta.last_page a string', { data: [], meta: { ...meta, last_page: '2' } }],
    ['a contact id that is a number', { data: [{ ...contact, id: 17 }], meta }],
    ['custom_fields a list', { data: [{ ...contact, custom_fields: [] }], meta }],
    ['tags not a list', { data: [{ ...contact, tags: 'vip' }], meta }],
    ['created_at missing', { data: [{ id: '1', custom_fields: {}, tags: [] }], meta }],
  ])('refuses a search answer with %s', (_name, body) => {
    expect(malformed(() => readContactPage(body, where)).code).toBe('MALFORMED_RESPONSE');
  });

  it('names where a page is wrong', () => {
    expect(malformed(() => readContactPage({ data: [contact, { ...contact, tags: 3 }], meta }, where)).message).toContain('data[1].tags');
  });

  it('reads {data: contact} and refuses anything else', () => {
    expect(readContactEnvelope({ data: contact }, where)).toEqual(contact);
    expect(malformed(() => readContactEnvelope(contact, where)).message).toContain('data');
  });

  it('reads {data: {id}} and refuses a missing or non-string id', () => {
    expect(readIdEnvelope({ data: { id: '9' } }, where)).toEqual({ id: '9' });
    malformed(() => readIdEnvelope({ data: { id: 9 } }, where));
    malformed(() => readIdEnvelope({ data: [] }, where));
    malformed(() => readIdEnvelope({ id: '9' }, where));
  });

  it('accepts a success envelope in any case and refuses another status', () => {
    readSuccessEnvelope({ status: 'success', message: 'ok', data: [] }, where);
    readSuccessEnvelope({ status: 'Success', message: ['ok'], data: [] }, where);
    malformed(() => readSuccessEnvelope({ status: 'error', message: 'no', data: [] }, where));
    malformed(() => readSuccessEnvelope('success', where));
  });

  it('refuses a body that is not JSON and quotes its start', () => {
    expect(malformed(() => parseJsonBody('<html>Gateway</html>', where)).message).toContain('<html>Gateway');
  });
});
