import { draftHash, type DraftContent } from '../../src/state/draft-hash.js';

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
});
