/** v2's contact both ways (src/api/v2/v2-contact-shape.ts), as tables. */
import { readV2Contact, v2ContactBody } from '../../../src/api/v2/v2-contact-shape.js';

const where = { operation: 'getContact' as const };

describe('v2ContactBody', () => {
  test.each<[string, Record<string, string>, unknown]>([
    ['top-level fields at the top, the others in custom_fields', { firstName: 'Ann', countryCode: 'SG', plan: 'pro' }, { firstName: 'Ann', countryCode: 'SG', custom_fields: [{ name: 'plan', value: 'pro' }] }],
    ['an empty top-level value clears it (null)', { email: '', phone: '' }, { email: null, phone: null }],
    ['an empty firstName is left out: v2 cannot clear it', { firstName: '', plan: 'x' }, { custom_fields: [{ name: 'plan', value: 'x' }] }],
    ['an empty custom value is written as such', { plan: '' }, { custom_fields: [{ name: 'plan', value: '' }] }],
    ['a field named like a top-level one in another case is a custom field', { Email: 'a@b.c' }, { custom_fields: [{ name: 'Email', value: 'a@b.c' }] }],
  ])('%s', (_case, fields, body) => {
    expect(v2ContactBody(fields)).toEqual(body);
  });
});

describe('readV2Contact', () => {
  const base = { id: 7, firstName: 'Ann', custom_fields: [], tags: [], created_at: 1_700_000_000 };

  test.each<[string, Record<string, unknown>, unknown]>([
    ['ids as strings, nulls absent', { ...base, lastName: null, email: 'a@b.c' }, { id: '7', custom_fields: { firstName: 'Ann', email: 'a@b.c' }, tags: [], created_at: 1_700_000_000 }],
    ['an empty firstName (a contact made through v1) is none', { ...base, firstName: '' }, { id: '7', custom_fields: {}, tags: [], created_at: 1_700_000_000 }],
    ['typed custom values as strings, a null one absent', { ...base, custom_fields: [{ name: 'n', value: 3 }, { name: 'b', value: false }, { name: 'z', value: null }] }, { id: '7', custom_fields: { firstName: 'Ann', n: '3', b: 'false' }, tags: [], created_at: 1_700_000_000 }],
    ['a date text as created_at', { ...base, created_at: '2023-11-14T22:13:20Z' }, { id: '7', custom_fields: { firstName: 'Ann' }, tags: [], created_at: 1_700_000_000 }],
    ['no tags (null) is none', { ...base, tags: null }, { id: '7', custom_fields: { firstName: 'Ann' }, tags: [], created_at: 1_700_000_000 }],
  ])('%s', (_case, answer, contact) => {
    expect(readV2Contact(answer, where)).toEqual(contact);
  });

  test.each<[string, unknown, RegExp]>([
    ['no id', { ...base, id: undefined }, /the body\.id is undefined|the body\.id is /],
    ['an object as a field', { ...base, email: { a: 1 } }, /the body\.email is an object, not a string or null/],
    ['custom_fields not a list', { ...base, custom_fields: {} }, /the body\.custom_fields is an object, not a list of \{name, value\}/],
    ['no created_at', { ...base, created_at: undefined }, /the body\.created_at is undefined|created_at/],
  ])('%s is a MALFORMED_RESPONSE naming what is wrong', (_case, answer, message) => {
    expect(() => readV2Contact(answer, where)).toThrow(message);
  });
});
