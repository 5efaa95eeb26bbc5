/**
 * A contact's key in the row's normal form (issue 42): what a read's answer, the prefetch index and
 * the decision compare with the row's key.
 */
import { keyOfContact, normalKey } from '../../../src/pipeline/map/key-value.js';

describe('normalKey', () => {
  it.each([
    ['email', 'ANN@Example.com', 'ann@example.com'],
    ['email', ' ann@example.com ', 'ann@example.com'],
    ['email', 'Not An Address', 'not an address'],
    ['phone', '+44 7946 012345', '+447946012345'],
    ['phone', '+447946012345', '+447946012345'],
    ['phone', 'call me', 'call me'],
    ['customerid', 'C0001', 'C0001'],
    ['customerid', 'c0001', 'c0001'],
    ['customerid', ' C0001', ' C0001'],
  ])('%s %j is %j', (field, value, normal) => {
    expect(normalKey(field, value)).toBe(normal);
  });
});

describe('keyOfContact', () => {
  it.each([
    ['the key it holds', { customerid: 'C0001' }, 'C0001'],
    ['none', { email: 'ann@example.com' }, ''],
  ])('%s', (_case, fields, key) => {
    expect(keyOfContact('customerid', { custom_fields: fields })).toBe(key);
  });
});
