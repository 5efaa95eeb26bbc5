import type { Transform } from '../../../src/config/job-types.js';
import { applyTransform, applyTransforms } from '../../../src/pipeline/map/transforms.js';

const trim: Transform = { kind: 'trim' };
const lowercase: Transform = { kind: 'lowercase' };
const uppercase: Transform = { kind: 'uppercase' };
const email: Transform = { kind: 'email' };
const phone = (defaultCountry?: string): Transform => (defaultCountry === undefined ? { kind: 'phone' } : { kind: 'phone', defaultCountry });
const map = (entries: Record<string, string>): Transform => ({ kind: 'map', map: entries });

describe('transforms that cannot fail', () => {
  test.each<[string, Transform, string]>([
    ['  Ann  ', trim, 'Ann'],
    ['\tAnn\n', trim, 'Ann'],
    ['ÀNN Smith', lowercase, 'ànn smith'],
    ['straße', uppercase, 'STRASSE'],
    ['M', map({ M: 'male', F: 'female' }), 'male'],
    ['X', map({ M: 'male' }), 'X'],
    ['constructor', map({ M: 'male' }), 'constructor'],
    ['', map({ '': 'unknown' }), 'unknown'],
    ['=1+1', trim, '=1+1'],
  ])('%j through %o is %j', (value, transform, expected) => {
    expect(applyTransform(value, transform)).toEqual({ ok: true, value: expected });
  });
});

describe('email', () => {
  test.each([
    [' Ann.Smith@Example.COM ', 'ann.smith@example.com'],
    ['a+tag@sub.example.co.uk', 'a+tag@sub.example.co.uk'],
    ['zoë@exämple.de', 'zoë@exämple.de'],
    ['', ''],
  ])('%j is %j', (value, expected) => {
    expect(applyTransform(value, email)).toEqual({ ok: true, value: expected });
  });

  test.each([['ann'], ['ann@'], ['@example.com'], ['ann@example'], ['ann@@example.com'], ['ann smith@example.com'], ['ann@example..com'], ['ann@example.c'], [`${'a'.repeat(250)}@example.com`]])(
    '%j is INVALID_EMAIL naming the value',
    (value) => {
      const result = applyTransform(value, email);
      expect(result).toMatchObject({ ok: false, code: 'INVALID_EMAIL' });
      expect(!result.ok && result.reason).toContain(JSON.stringify(value));
    },
  );
});

describe('phone', () => {
  test.each([
    ['+44 7946 012345', undefined, '+447946012345'],
    ['07946 012345', 'GB', '+447946012345'],
    ['07946 012345', 'gb', '+447946012345'],
    ['(415) 555-2671', 'US', '+14155552671'],
    ['+1 415 555 2671', 'GB', '+14155552671'],
    ['', 'GB', ''],
  ])('%j with default country %s is %j', (value, country, expected) => {
    expect(applyTransform(value, phone(country))).toEqual({ ok: true, value: expected });
  });

  test.each([
    ['07946 012345', undefined, 'international form'],
    ['12ab', 'GB', 'GB'],
    ['+44 12', undefined, 'international form'],
    ['call 07946012345', 'GB', 'GB'],
  ])('%j with default country %s is INVALID_PHONE naming the value', (value, country, hint) => {
    const result = applyTransform(value, phone(country));
    expect(result).toMatchObject({ ok: false, code: 'INVALID_PHONE' });
    expect(!result.ok && result.reason).toContain(JSON.stringify(value));
    expect(!result.ok && result.reason).toContain(hint);
  });

  test.each([
    ['12ab', 'MX', 'a valid Mexico (MX) number such as 222 123 4567, or in international form (+522221234567)'],
    ['12ab', 'DE', 'a valid Germany (DE) number such as 01512 3456789, or in international form (+4915123456789)'],
    ['12ab', 'GB', 'a valid United Kingdom (GB) number such as 07400 123456, or in international form (+447400123456)'],
  ])('%j read as %s is advised with an example of that country, not of another', (value, country, advice) => {
    const result = applyTransform(value, phone(country));
    expect(!result.ok && result.reason).toBe(`"${value}" is not a valid phone number; write it as ${advice}`);
  });

  test.each([
    ['+1 212 555 0100 x889', undefined, '889'],
    ['212 555 0100 ext. 889', 'US', '889'],
    ['+1 212-555-0100;ext=12', undefined, '12'],
    ['+1 212 555 0100 x123', undefined, '123'],
    ['+1 212 555 0100 #123', undefined, '123'],
  ])('%j (default country %s) is the E.164 number and its extension beside it, never the number alone', (value, country, extension) => {
    expect(applyTransform(value, phone(country))).toEqual({ ok: true, value: '+12125550100', extension });
    expect(applyTransforms(` ${value} `, [trim, phone(country), trim])).toEqual({ ok: true, value: '+12125550100', extension });
  });
});

describe('chains', () => {
  test('transforms apply in the order given', () => {
    expect(applyTransforms(' m ', [trim, uppercase, map({ M: 'male' })])).toEqual({ ok: true, value: 'male' });
    expect(applyTransforms(' m ', [map({ M: 'male' }), trim, uppercase])).toEqual({ ok: true, value: 'M' });
  });

  test('the first error stops the chain', () => {
    expect(applyTransforms('nope', [email, map({ nope: 'a@example.com' })])).toMatchObject({ ok: false, code: 'INVALID_EMAIL' });
  });

  test('no transform leaves the value alone', () => {
    expect(applyTransforms('  x ', [])).toEqual({ ok: true, value: '  x ' });
  });
});
