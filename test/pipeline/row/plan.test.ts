import { type PlatformSurface } from '../../../src/api/platform-surface.js';
import { V1_SURFACE } from '../../../src/api/v1/surface.js';
import { V2_SURFACE } from '../../../src/api/v2/surface.js';
import { decideMatch } from '../../../src/pipeline/row/decide.js';
import { applyPlan, chunk, planCreate, planUpdate, tagOperations } from '../../../src/pipeline/row/plan.js';
import type { KnownContact } from '../../../src/state/known-contact.js';
import type { ContactDraft } from '../../../src/pipeline/map/contact-draft.js';

function draft(overrides: Partial<ContactDraft> = {}): ContactDraft {
  return {
    line: 2,
    key: 'C-1',
    keyField: 'customerid',
    fields: { firstName: 'Ada', email: 'ada@example.com' },
    tagsToAdd: ['crm'],
    tagsToRemove: ['lead'],
    templateValues: {},
    ...overrides,
  };
}

function contact(overrides: Partial<KnownContact> = {}): KnownContact {
  return { id: '100', custom_fields: { customerid: 'C-1' }, tags: [], created_at: 1_700_000_000, ...overrides };
}

describe('planCreate', () => {
  it('creates with the key first and the mapped fields, then adds the tags', () => {
    const plan = planCreate(draft(), V1_SURFACE);
    expect(plan.action).toBe('create');
    expect(plan.operations).toEqual([
      { kind: 'createContact', fields: { customerid: 'C-1', firstName: 'Ada', email: 'ada@example.com' } },
      { kind: 'addTags', target: 'created', tags: ['crm'] },
    ]);
    expect(plan.fieldsChanged).toEqual(['customerid', 'firstName', 'email']);
    expect(plan.tagsRemoved).toEqual([]);
  });

  it('sends no empty value to a new contact and no tag call when there is no tag', () => {
    const plan = planCreate(draft({ fields: { firstName: '', lastName: 'L' }, tagsToAdd: [] }), V1_SURFACE);
    expect(plan.operations).toEqual([{ kind: 'createContact', fields: { customerid: 'C-1', lastName: 'L' } }]);
  });

  it('creates with 30 fields and updates the rest in chunks of 30; tags in chunks of 10', () => {
    const fields = Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`f${i}`, `v${i}`]));
    const tags = Array.from({ length: 23 }, (_, i) => `t${i}`);
    const plan = planCreate(draft({ fields, tagsToAdd: tags }), V1_SURFACE);
    const kinds = plan.operations.map((op) => op.kind);
    expect(kinds).toEqual(['createContact', 'updateContact', 'updateContact', 'addTags', 'addTags', 'addTags']);
    const sizes = plan.operations.map((op) => ('fields' in op ? Object.keys(op.fields).length : op.tags.length));
    // 66 fields with the key: 30 + 30 + 6; 23 tags: 10 + 10 + 3.
    expect(sizes).toEqual([30, 30, 6, 10, 10, 3]);
    expect(plan.operations[0]).toMatchObject({ fields: { customerid: 'C-1' } });
  });
});

describe('the tags are chunked by the surface the planner is given', () => {
  const tags = Array.from({ length: 23 }, (_, i) => `t${i}`);
  // Not a real surface: proves the number is read, not assumed.
  const FIVE_TAGS: PlatformSurface = { ...V1_SURFACE, tagsPerCall: 5 };

  it.each<[string, PlatformSurface, number[]]>([
    ['v1: 10 a call', V1_SURFACE, [10, 10, 3]],
    ['v2: 10 a call', V2_SURFACE, [10, 10, 3]],
    ['a surface of 5 a call', FIVE_TAGS, [5, 5, 5, 5, 3]],
  ])('%s', (_name, surface, sizes) => {
    const sizesOf = (operations: ReturnType<typeof tagOperations>) => operations.map((op) => ('tags' in op ? op.tags.length : 0));
    expect(sizesOf(tagOperations({ id: '100' }, tags, [], surface))).toEqual(sizes);
    expect(sizesOf(planCreate(draft({ tagsToAdd: tags }), surface).operations.slice(1))).toEqual(sizes);
    expect(sizesOf(planUpdate(draft({ fields: {}, tagsToAdd: [], tagsToRemove: tags }), contact({ tags }), [], true, surface).operations)).toEqual(sizes);
  });
});

describe('planUpdate', () => {
  const cases: Array<{ name: string; draft: ContactDraft; existing: KnownContact; ops: unknown[]; action: string }> = [
    {
      name: 'nothing differs: unchanged with no call',
      draft: draft({ tagsToRemove: ['lead'] }),
      existing: contact({ custom_fields: { customerid: 'C-1', firstName: 'Ada', email: 'ada@example.com' }, tags: ['crm'] }),
      ops: [],
      action: 'unchanged',
    },
    {
      name: 'one field differs: only that field is sent',
      draft: draft(),
      existing: contact({ custom_fields: { firstName: 'Ada', email: 'old@example.com' }, tags: ['crm'] }),
      ops: [{ kind: 'updateContact', target: { id: '100' }, fields: { email: 'ada@example.com' } }],
      action: 'update',
    },
    {
      name: 'tags: adds only the missing ones and removes only present ones',
      draft: draft({ fields: {}, tagsToAdd: ['crm', 'vip'], tagsToRemove: ['lead', 'gone'] }),
      existing: contact({ tags: ['crm', 'lead'] }),
      ops: [
        { kind: 'addTags', target: { id: '100' }, tags: ['vip'] },
        { kind: 'removeTags', target: { id: '100' }, tags: ['lead'] },
      ],
      action: 'update',
    },
    {
      name: 'clearing a field the contact does not hold is no change',
      draft: draft({ fields: { lastName: '' }, tagsToAdd: [], tagsToRemove: [] }),
      existing: contact(),
      ops: [],
      action: 'unchanged',
    },
    {
      name: 'clearing a field the contact holds sends ""',
      draft: draft({ fields: { lastName: '' }, tagsToAdd: [], tagsToRemove: [] }),
      existing: contact({ custom_fields: { lastName: 'Lovelace' } }),
      ops: [{ kind: 'updateContact', target: { id: '100' }, fields: { lastName: '' } }],
      action: 'update',
    },
  ];
  it.each(cases)('$name', ({ draft: d, existing, ops, action }) => {
    const plan = planUpdate(d, existing, [], true, V1_SURFACE);
    expect(plan.operations).toEqual(ops);
    expect(plan.action).toBe(action);
    expect(plan.contactId).toBe('100');
  });

  it('names the tags it adds that the contact holds in another case only (the re-tagging of tags.case: lower)', () => {
    const plan = planUpdate(draft({ fields: {}, tagsToAdd: ['gold', 'news', 'vip'], tagsToRemove: [] }), contact({ tags: ['Gold', 'vip', 'NEWS', 'news'] }), [], true, V1_SURFACE);
    expect(plan.tagsAdded).toEqual(['gold']);
    expect(plan.tagsRecased).toEqual(['gold']);
    expect(planUpdate(draft({ fields: {}, tagsToAdd: ['gold'], tagsToRemove: [] }), contact({ tags: ['silver'] }), [], true, V1_SURFACE).tagsRecased).toBeUndefined();
  });

  it('splits 45 changed fields into updates of 30 and 15', () => {
    const fields = Object.fromEntries(Array.from({ length: 45 }, (_, i) => [`f${i}`, 'new']));
    const plan = planUpdate(draft({ fields, tagsToAdd: [], tagsToRemove: [] }), contact(), [], true, V1_SURFACE);
    expect(plan.operations.map((op) => ('fields' in op ? Object.keys(op.fields).length : 0))).toEqual([30, 15]);
  });
});

describe('decideMatch', () => {
  const older = contact({ id: '1', created_at: 100 });
  const newer = contact({ id: '2', created_at: 200 });
  it.each([
    { mode: 'upsert', matches: [], kind: 'create' },
    { mode: 'create', matches: [], kind: 'create' },
    { mode: 'update', matches: [], kind: 'skip' },
    { mode: 'upsert', matches: [older], kind: 'update' },
    { mode: 'update', matches: [older], kind: 'update' },
    { mode: 'create', matches: [older], kind: 'skip' },
  ] as const)('mode $mode with $matches.length matches: $kind', ({ mode, matches, kind }) => {
    expect(decideMatch(matches, mode, 'fail').kind).toBe(kind);
  });

  it('several matches: fail names the ids, oldest and newest pick by created_at, all takes every one', () => {
    expect(decideMatch([newer, older], 'upsert', 'fail')).toEqual({ kind: 'ambiguous', ids: ['1', '2'] });
    expect(decideMatch([newer, older], 'upsert', 'oldest')).toEqual({ kind: 'update', contacts: [older] });
    expect(decideMatch([older, newer], 'upsert', 'newest')).toEqual({ kind: 'update', contacts: [newer] });
    expect(decideMatch([newer, older], 'upsert', 'all')).toEqual({ kind: 'update', contacts: [older, newer] });
  });

  it('breaks a created_at tie by the numeric id', () => {
    const a = contact({ id: '99', created_at: 5 });
    const b = contact({ id: '100', created_at: 5 });
    expect(decideMatch([b, a], 'upsert', 'oldest')).toEqual({ kind: 'update', contacts: [a] });
  });
});

describe('applyPlan and chunk', () => {
  it('gives what the contact holds after the plan', () => {
    const before = contact({ custom_fields: { customerid: 'C-1', firstName: 'Old' }, tags: ['lead', 'x'] });
    const after = applyPlan(before, planUpdate(draft(), before, [], true, V1_SURFACE), '100');
    expect(after).toEqual({
      id: '100',
      custom_fields: { customerid: 'C-1', firstName: 'Ada', email: 'ada@example.com' },
      tags: ['x', 'crm'],
    });
  });

  it('chunks keep order and never exceed the size', () => {
    expect(chunk([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
    expect(chunk([], 10)).toEqual([]);
  });
});
