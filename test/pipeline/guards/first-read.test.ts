/** What the rows planned before the first write would change on the contacts they found (`firstReadFacts`), as a table. */
import { firstReadFacts, type PlannedRow } from '../../../src/pipeline/guards/first-read.js';
import type { ContactPlan } from '../../../src/pipeline/row/plan.js';

function update(before: Record<string, string | null>, tagsRemoved: string[] = []): ContactPlan {
  return { action: 'update', contactId: '1', operations: [], fieldsChanged: Object.keys(before), tagsAdded: [], tagsRemoved, before, beforeRead: true };
}

function row(key: string, plan: Partial<PlannedRow['plan']>, fields: Record<string, string> = {}, tags: string[] = []): PlannedRow {
  return { draft: { key, fields, tagsToAdd: tags }, plan: { contacts: [{ id: '1' }], writes: [], withheld: [], ...plan } };
}

describe('firstReadFacts', () => {
  it.each<[string, PlannedRow[], { found: number; changes: Array<[string, number]>; tags: number }]>([
    ['a key no contact holds is created: not found, nothing changed', [row('K1', { contacts: ['created'] })], { found: 0, changes: [], tags: 0 }],
    ['a contact that already holds the row: found, unchanged', [row('K1', {})], { found: 1, changes: [], tags: 0 }],
    ['a value replaced is a change', [row('K1', { writes: [update({ firstName: 'Ann' })] }, { firstName: 'Lee' })], { found: 1, changes: [['firstName', 1]], tags: 0 }],
    ['an empty or absent value filled is no change', [row('K1', { writes: [update({ firstName: '', lastName: null })] }, { firstName: 'Lee', lastName: 'Ng' })], { found: 1, changes: [], tags: 0 }],
    ['a dry run\'s withheld plans count alike', [row('K1', { withheld: [update({ plan: 'pro' })] }, { plan: '' })], { found: 1, changes: [['plan', 1]], tags: 0 }],
    ['tags removed count once per key', [row('K1', { writes: [update({}, ['vip', 'gold'])] })], { found: 1, changes: [], tags: 1 }],
  ])('%s', (_case, rows, expected) => {
    const facts = firstReadFacts(rows);
    expect({ found: facts.found, changes: facts.changes.map((change) => [change.field, change.keys]), tags: facts.tagsRemoved.keys }).toEqual(expected);
    expect(facts.keys).toBe(rows.length);
  });

  it('samples name the key, the value the contact holds and the file\'s', () => {
    const facts = firstReadFacts([row('K1', { writes: [update({ firstName: 'Ann' })] }, { firstName: '' })]);
    expect(facts.changes).toEqual([{ field: 'firstName', keys: 1, samples: [{ key: 'K1', written: 'Ann', file: '' }] }]);
  });
});
