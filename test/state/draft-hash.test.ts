import { createHash } from 'node:crypto';
import { canonicalJson } from '../../src/state/canonical-json.js';
import { draftHash, type DraftContent } from '../../src/state/draft-hash.js';

/** The hash as first defined: sha256 of the canonical JSON of the content (every stored hash is one). */
function referenceHash(content: DraftContent): string {
  const uniqueSorted = (tags: readonly string[]): string[] => [...new Set(tags)].sort();
  const text = canonicalJson({ version: 1, fields: { ...content.fields }, tagsToAdd: uniqueSorted(content.tagsToAdd), tagsToRemove: uniqueSorted(content.tagsToRemove) });
  return createHash('sha256').update(text).digest('hex');
}

const draft: DraftContent = {
  fields: { firstName: 'Ann', email: 'ann@example.com', empty: '' },
  tagsToAdd: ['crm', 'vip'],
  tagsToRemove: ['lead'],
};

describe('draftHash', () => {
  test('is a sha256 hex digest', () => {
    expect(draftHash(draft)).toMatch(/^[0-9a-f]{64}$/);
  });

  test('does not depend on the order of field names, the order of tags or repeated tags', () => {
    const reordered: DraftContent = {
      fields: { empty: '', email: 'ann@example.com', firstName: 'Ann' },
      tagsToAdd: ['vip', 'crm', 'vip'],
      tagsToRemove: ['lead'],
    };
    expect(draftHash(reordered)).toBe(draftHash(draft));
  });

  test.each<[string, DraftContent]>([
    ['a value', { ...draft, fields: { ...draft.fields, firstName: 'Anne' } }],
    ['an empty value becoming absent', { ...draft, fields: { firstName: 'Ann', email: 'ann@example.com' } }],
    ['a field name', { ...draft, fields: { firstname: 'Ann', email: 'ann@example.com', empty: '' } }],
    ['a tag added', { ...draft, tagsToAdd: ['crm', 'vip', 'new'] }],
    ['a tag to add that moves to the tags to remove', { ...draft, tagsToAdd: ['crm'], tagsToRemove: ['lead', 'vip'] }],
    ['a tag to remove', { ...draft, tagsToRemove: [] }],
    ['a value that contains separators', { ...draft, fields: { ...draft.fields, firstName: 'Ann","x":"y' } }],
  ])('changes with %s', (_change, changed) => {
    expect(draftHash(changed)).not.toBe(draftHash(draft));
  });

  test('is the hash state stores already hold: a fixed value for a fixed draft', () => {
    expect(draftHash(draft)).toBe('3ee7fcc6c73c1e5d47bebaf0ccd0e79eac1a6822b26f46d1fb0776b406248504');
  });

  test.each<[string, DraftContent]>([
    ['no field, no tag', { fields: {}, tagsToAdd: [], tagsToRemove: [] }],
    ['one tag', { fields: { a: '1' }, tagsToAdd: ['x'], tagsToRemove: [] }],
    ['quotes, backslashes and controls', { fields: { 'na"me': 'a\\b"c\n\t\u0000\u001f', plain: 'x' }, tagsToAdd: ['t"1', 't\\2'], tagsToRemove: ['\r'] }],
    ['non-ASCII, pairs and lone surrogates', { fields: { 'é': 'Ünïcödé 😀', z: '\ud800', y: 'a\udc00b' }, tagsToAdd: ['日本', '😀', '\ud83d'], tagsToRemove: [] }],
    ['names sorted by code unit, not locale', { fields: { b: '1', B: '2', a: '3', 'é': '4', e: '5', _: '6', '10': '7', '9': '8' }, tagsToAdd: ['b', 'B', 'a'], tagsToRemove: ['Z', 'a'] }],
    ['a field named __proto__', { fields: JSON.parse('{"__proto__":"x","a":"y"}') as Record<string, string>, tagsToAdd: [], tagsToRemove: [] }],
    ['empty values and repeated tags', { fields: { a: '', b: '' }, tagsToAdd: ['x', 'x', 'y', 'x'], tagsToRemove: ['y', 'y'] }],
  ])('equals the canonical JSON hash for %s', (_what, content) => {
    expect(draftHash(content)).toBe(referenceHash(content));
  });

  test('equals the canonical JSON hash when rows change their field names and order', () => {
    const shapes: DraftContent[] = [
      { fields: { first: 'a', second: 'b' }, tagsToAdd: [], tagsToRemove: [] },
      { fields: { second: 'b', first: 'a' }, tagsToAdd: [], tagsToRemove: [] },
      { fields: { first: 'a', second: 'b', third: 'c' }, tagsToAdd: [], tagsToRemove: [] },
      { fields: { first: 'a', second: 'b' }, tagsToAdd: [], tagsToRemove: [] },
      { fields: { first: 'a', zz: 'b' }, tagsToAdd: [], tagsToRemove: [] },
    ];
    for (const content of shapes) expect(draftHash(content)).toBe(referenceHash(content));
  });
});
