import type { Job } from '../../../src/config/job-types.js';
import { mapRow } from '../../../src/pipeline/map/map.js';
import type { MapResult } from '../../../src/pipeline/map/contact-draft.js';
import type { SourceRow } from '../../../src/pipeline/source/source-record.js';
import { makeJob } from '../../helpers/job-factory.js';

function row(values: Record<string, string>, line = 12): SourceRow {
  return { kind: 'row', line, values, cells: Object.values(values) };
}

const map = (values: Record<string, string>, job: Job): MapResult => mapRow(row(values), job);

describe('the key', () => {
  test.each<[string, Job['key'], string, string]>([
    ['trimmed, case kept, for a custom key field', { column: 'customer_id', field: 'customerid' }, '  AB-12 ', 'AB-12'],
    ['lowercased for the email field', { column: 'mail', field: 'email' }, ' Ann@Example.COM ', 'ann@example.com'],
    ['E.164 for the phone field', { column: 'tel', field: 'phone' }, '+44 7946 012345', '+447946012345'],
  ])('%s', (_name, key, cell, expected) => {
    const result = map({ [key.column]: cell }, makeJob({ key }));
    expect(result).toMatchObject({ ok: true, draft: { key: expected, keyField: key.field } });
  });

  test.each([[''], ['   '], [undefined]])('an empty key (%j) is KEY_MISSING naming the column and the line', (cell) => {
    const result = map(cell === undefined ? { other: 'x' } : { customer_id: cell }, makeJob());
    expect(result).toEqual({
      ok: false,
      error: { line: 12, code: 'KEY_MISSING', message: expect.stringContaining('line 12: the key column "customer_id" is empty') },
    });
  });

  test.each<[Job['key'], string, string]>([
    [{ column: 'mail', field: 'email' }, 'not-an-email', 'INVALID_EMAIL'],
    [{ column: 'tel', field: 'phone' }, '07946 012345', 'INVALID_PHONE'],
    // A phone key with an extension would be searched and stored without it: refused, never cut.
    [{ column: 'tel', field: 'phone' }, '+1 212 555 0100 x889', 'PHONE_EXTENSION'],
  ])('an invalid %o key fails the row', (key, cell, code) => {
    const result = map({ [key.column]: cell }, makeJob({ key }));
    expect(result).toMatchObject({ ok: false, error: { line: 12, code } });
    expect(!result.ok && result.error.message).toContain(`column "${key.column}" (the key)`);
  });
});

describe('tags', () => {
  test.each<[string, Partial<Job['tags']>, string | undefined, string[], string[]]>([
    ['split, trimmed, empties dropped', { column: 'segments' }, ' vip ; ;news;', ['vip', 'news'], []],
    ['static after the column’s, each once in first-seen order', { column: 'segments', static: ['crm', 'vip'] }, 'vip;news;vip', ['vip', 'news', 'crm'], []],
    ['another separator', { column: 'segments', separator: '|' }, 'a|b;c', ['a', 'b;c'], []],
    ['static only', { static: ['crm'] }, undefined, ['crm'], []],
    ['removals', { column: 'segments', remove: ['lead', 'trial', 'lead'] }, 'vip', ['vip'], ['lead', 'trial']],
    ['a tag both added and removed is added, not removed', { column: 'segments', static: ['crm'], remove: ['lead', 'crm', 'vip'] }, 'vip', ['vip', 'crm'], ['lead']],
    ['tags are case-sensitive', { column: 'segments' }, 'VIP;vip', ['VIP', 'vip'], []],
    ['case: lower makes tags that differ only in case one tag, the lowercase one', { column: 'segments', case: 'lower' }, 'VIP; vip;Vip;Gold', ['vip', 'gold'], []],
    ['case: lower keeps the static tags as written (the config checks they are lowercase)', { column: 'segments', case: 'lower', static: ['crm'], remove: ['lead'] }, 'LEAD;Crm', ['lead', 'crm'], []],
  ])('%s', (_name, tags, cell, toAdd, toRemove) => {
    const job = makeJob({ tags: { separator: ';', static: [], remove: [], prune: false, ...tags } });
    const result = map(cell === undefined ? { customer_id: '1' } : { customer_id: '1', segments: cell }, job);
    expect(result).toMatchObject({ ok: true, draft: { tagsToAdd: toAdd, tagsToRemove: toRemove } });
  });

  test.each<[string, Partial<Job['tags']>, string, string[] | undefined]>([
    ['tags that differ only in case are named, in first-seen order', { column: 'segments' }, 'VIP;news;vip;Vip;Gold', ['VIP', 'vip', 'Vip']],
    ['two groups', { column: 'segments' }, 'a;B;A;b', ['a', 'A', 'B', 'b']],
    ['none', { column: 'segments' }, 'VIP;news', undefined],
    ['none under case: lower, which makes them one', { column: 'segments', case: 'lower' }, 'VIP;vip', undefined],
  ])('tagCaseVariants: %s', (_name, tags, cell, variants) => {
    const result = map({ customer_id: '1', segments: cell }, makeJob({ tags: { separator: ';', static: [], remove: [], prune: false, ...tags } }));
    expect(result.ok && result.draft.tagCaseVariants).toEqual(variants);
  });
});
