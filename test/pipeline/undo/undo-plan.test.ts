/**
 * The undo decision's rules (docs/undo.md) as a table: what one run did to a contact, what the
 * contact holds now, and the calls and report lines that follow. No server.
 */
import { type PlatformSurface } from '../../../src/api/platform-surface.js';
import { V1_SURFACE } from '../../../src/api/v1/surface.js';
import { V2_SURFACE } from '../../../src/api/v2/surface.js';
import { DELETED_ALREADY_LINE, foldRunChanges, planDeleteCreated, planRecreate, planTagForDeletion, planUndo, planUntagUndone, undoCallsAtMost, UNDONE_TAG, untagsOnly, type RunChange } from '../../../src/pipeline/undo/undo-plan.js';
import type { KnownContact } from '../../../src/state/known-contact.js';

const ID = '1776025372480910';

type FieldOver = { before: string | null; after: string; read?: boolean };

/** A run's change of one contact; a field's before was read unless the row says `read: false`. */
function change(over: Omit<Partial<RunChange>, 'fields'> & { fields?: Record<string, FieldOver> } = {}): RunChange {
  const fields = Object.fromEntries(Object.entries(over.fields ?? {}).map(([name, field]) => [name, { read: true, ...field }]));
  return { key: 'C0001', contactId: ID, created: false, tagsAdded: [], tagsRemoved: [], unreadTags: [], ...over, fields };
}

function contact(fields: Record<string, string>, tags: string[] = []): KnownContact {
  return { id: ID, custom_fields: fields, tags };
}

type Row = [string, RunChange, KnownContact | undefined, boolean, { calls: unknown[]; outcomes: string[] }];

const target = { id: ID };

const TABLE: Row[] = [
  [
    'a field still holding the run\'s value is put back',
    change({ fields: { email: { before: 'old@example.com', after: 'new@example.com' } } }),
    contact({ email: 'new@example.com' }),
    false,
    { calls: [{ kind: 'updateContact', target, fields: { email: 'old@example.com' } }], outcomes: ['restored'] },
  ],
  [
    'a field the contact did not have is cleared with ""',
    change({ fields: { city: { before: null, after: 'Lyon' } } }),
    contact({ city: 'Lyon' }),
    false,
    { calls: [{ kind: 'updateContact', target, fields: { city: '' } }], outcomes: ['restored'] },
  ],
  [
    'a field already back (a resumed or repeated undo) is unchanged, with no call',
    change({ fields: { email: { before: 'old@example.com', after: 'new@example.com' } } }),
    contact({ email: 'old@example.com' }),
    false,
    { calls: [], outcomes: ['unchanged'] },
  ],
  [
    'a field changed since the run is a conflict, left; the other fields are still put back',
    change({ fields: { email: { before: 'old@example.com', after: 'new@example.com' }, plan: { before: 'basic', after: 'pro' } } }),
    contact({ email: 'agent@example.com', plan: 'pro' }),
    false,
    { calls: [{ kind: 'updateContact', target, fields: { plan: 'basic' } }], outcomes: ['conflict', 'restored'] },
  ],
  [
    '--force puts back a field changed since the run',
    change({ fields: { email: { before: 'old@example.com', after: 'new@example.com' } } }),
    contact({ email: 'agent@example.com' }),
    true,
    { calls: [{ kind: 'updateContact', target, fields: { email: 'old@example.com' } }], outcomes: ['restored'] },
  ],
  [
    'tags the run added are removed and tags it removed added back, only where still needed',
    change({ tagsAdded: ['vip', 'gone-already'], tagsRemoved: ['lead', 'back-already'] }),
    contact({}, ['vip', 'back-already']),
    false,
    {
      calls: [
        { kind: 'addTags', target, tags: ['lead'] },
        { kind: 'removeTags', target, tags: ['vip'] },
      ],
      outcomes: ['restored', 'unchanged', 'restored', 'unchanged'],
    },
  ],
  [
    'a contact the run created is tagged for deletion, nothing else of it touched',
    change({ created: true, fields: { email: { before: null, after: 'new@example.com' } }, tagsAdded: ['crm'] }),
    contact({ email: 'new@example.com' }, ['crm']),
    false,
    { calls: [{ kind: 'addTags', target, tags: [UNDONE_TAG] }], outcomes: ['tagged-for-deletion'] },
  ],
  [
    'a created contact already tagged for deletion makes no call',
    change({ created: true }),
    contact({}, ['crm', UNDONE_TAG]),
    false,
    { calls: [], outcomes: ['unchanged'] },
  ],
  [
    'a contact the run created and that was deleted since is unchanged, with no call',
    change({ created: true }),
    undefined,
    false,
    { calls: [], outcomes: ['unchanged'] },
  ],
  [
    'a field whose before the run did not read (it wrote by the state store) is unverified: left, no call',
    change({ fields: { email: { before: 'old@example.com', after: 'new@example.com', read: false }, plan: { before: 'basic', after: 'pro' } } }),
    contact({ email: 'new@example.com', plan: 'pro' }),
    false,
    { calls: [{ kind: 'updateContact', target, fields: { plan: 'basic' } }], outcomes: ['unverified', 'restored'] },
  ],
  [
    '--force puts back a field whose before the run did not read',
    change({ fields: { email: { before: 'old@example.com', after: 'new@example.com', read: false } } }),
    contact({ email: 'new@example.com' }),
    true,
    { calls: [{ kind: 'updateContact', target, fields: { email: 'old@example.com' } }], outcomes: ['restored'] },
  ],
  [
    'an unread field already holding the before is unchanged; one changed since is a conflict',
    change({ fields: { email: { before: 'old@example.com', after: 'new@example.com', read: false }, plan: { before: 'basic', after: 'pro', read: false } } }),
    contact({ email: 'old@example.com', plan: 'agent' }),
    false,
    { calls: [], outcomes: ['unchanged', 'conflict'] },
  ],
  [
    'tags the run changed without reading the contact\'s tags are unverified, left; contact-sync-undone is taken away all the same',
    change({ tagsAdded: ['vip', UNDONE_TAG], tagsRemoved: ['lead'], unreadTags: ['vip', 'lead', UNDONE_TAG] }),
    contact({}, ['vip', UNDONE_TAG]),
    false,
    { calls: [{ kind: 'removeTags', target, tags: [UNDONE_TAG] }], outcomes: ['unverified', 'restored', 'unverified'] },
  ],
  [
    '--force puts back the unread tags',
    change({ tagsAdded: ['vip'], tagsRemoved: ['lead'], unreadTags: ['vip', 'lead'] }),
    contact({}, ['vip']),
    true,
    {
      calls: [
        { kind: 'addTags', target, tags: ['lead'] },
        { kind: 'removeTags', target, tags: ['vip'] },
      ],
      outcomes: ['restored', 'restored'],
    },
  ],
  [
    'a contact deleted since the run is a conflict with no call, even with --force',
    change({ fields: { email: { before: 'old@example.com', after: 'new@example.com' } } }),
    undefined,
    true,
    { calls: [], outcomes: ['conflict'] },
  ],
];

describe('planUndo', () => {
  it.each(TABLE)('%s', (_name, runChange, current, force, expected) => {
    const undo = planUndo(runChange, current, { force, limits: V1_SURFACE });
    expect(undo.plan.operations).toEqual(expected.calls);
    expect(undo.plan.action).toBe(expected.calls.length === 0 ? 'unchanged' : 'update');
    expect(undo.lines.map((line) => line.outcome)).toEqual(expected.outcomes);
  });

  it('chunks 45 fields into updates of 30 and 15, and 12 tags into calls of 10 and 2', () => {
    const fields = Object.fromEntries(Array.from({ length: 45 }, (_unused, i) => [`f${i}`, { before: 'a', after: 'b' }]));
    const tags = Array.from({ length: 12 }, (_unused, i) => `t${i}`);
    const undo = planUndo(change({ fields, tagsAdded: tags }), contact(Object.fromEntries(Object.keys(fields).map((name) => [name, 'b'])), tags), { force: false, limits: V1_SURFACE });

    expect(undo.plan.operations.map((operation) => (operation.kind === 'updateContact' ? Object.keys(operation.fields).length : 'tags' in operation ? operation.tags.length : 0))).toEqual([30, 15, 10, 2]);
  });

  it('planned again against what the first undo left, every line is unchanged and no call is made', () => {
    const runChange = change({ fields: { email: { before: 'old@example.com', after: 'new@example.com' } }, tagsAdded: ['vip'], tagsRemoved: ['lead'] });
    const first = planUndo(runChange, contact({ email: 'new@example.com' }, ['vip']), { force: false, limits: V1_SURFACE });
    expect(first.plan.operations).toHaveLength(3);

    const again = planUndo(runChange, contact({ email: 'old@example.com' }, ['lead']), { force: false, limits: V1_SURFACE });

    expect(again.plan.operations).toEqual([]);
    expect(again.lines.every((line) => line.outcome === 'unchanged')).toBe(true);
  });
});

describe('undoCallsAtMost: the most calls undoing one contact makes, on the surface it is given', () => {
  const tags = (n: number) => Array.from({ length: n }, (_, i) => `t${i}`);
  it.each<[string, PlatformSurface, RunChange, number]>([
    ['a created contact: one tag call (v1)', V1_SURFACE, change({ created: true, tagsAdded: tags(30) }), 1],
    ['a created contact: one tag call (v2)', V2_SURFACE, change({ created: true, tagsAdded: tags(30) }), 1],
    ['a read, a field, 12 tags added taken off in 2 calls (v1)', V1_SURFACE, change({ fields: { email: { before: 'a', after: 'b' } }, tagsAdded: tags(12) }), 4],
    ['the same on v2 (10 tags a call too)', V2_SURFACE, change({ fields: { email: { before: 'a', after: 'b' } }, tagsAdded: tags(12) }), 4],
    ['the same on a surface of 5 tags a call', { ...V1_SURFACE, tagsPerCall: 5 }, change({ fields: { email: { before: 'a', after: 'b' } }, tagsAdded: tags(12) }), 5],
  ])('%s: %i', (_name, surface, runChange, calls) => {
    expect(undoCallsAtMost(runChange, surface)).toBe(calls);
  });
});

describe('planTagForDeletion', () => {
  it('tags a created contact with one call and no read; undo\'s own line vouches for it', () => {
    const undo = planTagForDeletion(change({ created: true }), { alreadyTagged: false });
    expect(undo.plan.operations).toEqual([{ kind: 'addTags', target, tags: [UNDONE_TAG] }]);
    expect(undo.plan.beforeRead).toBe(true);
    expect(undo.lines).toEqual([expect.objectContaining({ action: 'tag-for-deletion', to: UNDONE_TAG, outcome: 'tagged-for-deletion' })]);
  });

  it('makes no call for a contact known to carry the tag already (an earlier undo recorded it)', () => {
    const undo = planTagForDeletion(change({ created: true }), { alreadyTagged: true });
    expect(undo.plan.operations).toEqual([]);
    expect(undo.lines.map((line) => line.outcome)).toEqual(['unchanged']);
  });
});

describe('untagsOnly: an undo\'s tag for deletion is taken off with no read (issue 41 item 12)', () => {
  it.each<[string, RunChange, boolean, number]>([
    ['an undo tagged the contact for deletion, nothing else', change({ tagsAdded: [UNDONE_TAG] }), true, 1],
    ['the tag and another tag', change({ tagsAdded: [UNDONE_TAG, 'vip'] }), false, 2],
    ['the tag and a field', change({ tagsAdded: [UNDONE_TAG], fields: { email: { before: 'a', after: 'b' } } }), false, 3],
    ['the tag and a tag removed', change({ tagsAdded: [UNDONE_TAG], tagsRemoved: ['lead'] }), false, 3],
    ['another tag alone', change({ tagsAdded: ['vip'] }), false, 2],
    ['a created contact (one tag call already)', change({ created: true, tagsAdded: [UNDONE_TAG] }), false, 1],
  ])('%s: %s, %i calls at most', (_name, runChange, noRead, calls) => {
    expect(untagsOnly(runChange)).toBe(noRead);
    expect(undoCallsAtMost(runChange, V1_SURFACE)).toBe(calls);
  });

  it('one remove-tags call, vouched for; none when the store knows the tag is gone', () => {
    const undo = planUntagUndone(change({ tagsAdded: [UNDONE_TAG] }), { alreadyUntagged: false });
    expect([undo.plan.operations, undo.plan.beforeRead, undo.lines.map((line) => line.outcome)]).toEqual([[{ kind: 'removeTags', target, tags: [UNDONE_TAG] }], true, ['restored']]);
    const again = planUntagUndone(change({ tagsAdded: [UNDONE_TAG] }), { alreadyUntagged: true });
    expect([again.plan.operations, again.lines.map((line) => line.outcome)]).toEqual([[], ['unchanged']]);
  });
});

describe('foldRunChanges', () => {
  const at = { runId: 7, recordedAt: 0 };
  it('keeps each field\'s first before and last after, nets the tags, marks a create, and drops what the run put back itself', () => {
    const folded = foldRunChanges([
      { ...at, id: 1, key: 'C0001', contactId: 'a', operation: 'update', fields: { email: ['old@example.com', 'mid@example.com'], plan: ['basic', 'pro'] }, beforeRead: true },
      { ...at, id: 2, key: 'C0001', contactId: 'a', operation: 'update', fields: { email: ['mid@example.com', 'new@example.com'], plan: ['pro', 'basic'], city: ['Oslo', 'Bergen'] }, beforeRead: false },
      { ...at, id: 3, key: 'C0001', contactId: 'a', operation: 'add-tags', tags: ['vip', 'lead'], beforeRead: false },
      { ...at, id: 4, key: 'C0001', contactId: 'a', operation: 'remove-tags', tags: ['lead', 'old'], beforeRead: true },
      { ...at, id: 5, key: 'C0002', contactId: 'b', operation: 'create', fields: { customerid: [null, 'C0002'] }, beforeRead: true },
    ]);

    // Each field's "read" is the line that gave its before: email's first line read it, city's did not.
    expect(folded).toEqual([
      {
        key: 'C0001',
        contactId: 'a',
        created: false,
        fields: { email: { before: 'old@example.com', after: 'new@example.com', read: true }, city: { before: 'Oslo', after: 'Bergen', read: false } },
        tagsAdded: ['vip'],
        tagsRemoved: ['old'],
        unreadTags: ['vip'],
      },
      { key: 'C0002', contactId: 'b', created: true, fields: { customerid: { before: null, after: 'C0002', read: true } }, tagsAdded: [], tagsRemoved: [], unreadTags: [] },
    ]);
  });
});

describe('planDeleteCreated (--delete-created)', () => {
  const created = change({ created: true, fields: { customerid: { before: null, after: 'C0001' }, plan: { before: null, after: 'pro' } }, tagsAdded: ['crm', 'vip'] });
  const deleteCall = (fields: Record<string, string>, tags: string[]) => [{ kind: 'deleteContact', target, fields, tags }];
  type DeleteRow = [string, KnownContact | undefined, boolean, { calls: unknown[]; outcome: string; message?: RegExp }];
  const TABLE_DELETE: DeleteRow[] = [
    ['a contact holding what the run wrote is deleted, carrying its values for the journal', contact({ customerid: 'C0001', plan: 'pro' }, ['vip', 'crm']), false, { calls: deleteCall({ customerid: 'C0001', plan: 'pro' }, ['vip', 'crm']), outcome: 'deleted' }],
    ['contact-sync-undone (an earlier undo\'s tag) is not a change, and not a value to create again', contact({ customerid: 'C0001', plan: 'pro' }, ['crm', 'vip', UNDONE_TAG]), false, { calls: deleteCall({ customerid: 'C0001', plan: 'pro' }, ['crm', 'vip']), outcome: 'deleted' }],
    ['a field changed since the run: a conflict, kept', contact({ customerid: 'C0001', plan: 'gold' }, ['crm', 'vip']), false, { calls: [], outcome: 'conflict', message: /plan is "gold", the run wrote "pro"/ }],
    ['a tag added since the run: a conflict, kept', contact({ customerid: 'C0001', plan: 'pro' }, ['crm', 'vip', 'agent']), false, { calls: [], outcome: 'conflict', message: /tags added since: agent/ }],
    ['a tag removed since the run: a conflict, kept', contact({ customerid: 'C0001', plan: 'pro' }, ['crm']), false, { calls: [], outcome: 'conflict', message: /tags removed since: vip/ }],
    ['--force deletes a changed one, saying so', contact({ customerid: 'C0001', plan: 'gold' }, ['crm', 'vip']), true, { calls: deleteCall({ customerid: 'C0001', plan: 'gold' }, ['crm', 'vip']), outcome: 'deleted', message: /deleted with --force/ }],
    ['a contact deleted since: where undo wants it, no call', undefined, false, { calls: [], outcome: 'unchanged' }],
  ];
  it.each(TABLE_DELETE)('%s', (_name, current, force, expected) => {
    const undo = planDeleteCreated(created, current, { force });
    expect(undo.plan.operations).toEqual(expected.calls);
    expect(undo.lines.map((line) => [line.action, line.outcome])).toEqual([['delete', expected.outcome]]);
    if (expected.message !== undefined) expect(undo.lines[0]?.message).toMatch(expected.message);
  });

  it('a contact deleted since is the DELETED_ALREADY line; the calls at most are a read and the delete', () => {
    expect(planDeleteCreated(created, undefined, { force: false }).lines).toEqual([DELETED_ALREADY_LINE]);
    expect(undoCallsAtMost(created, V2_SURFACE, true)).toBe(2);
    expect(undoCallsAtMost(created, V2_SURFACE, false)).toBe(1);
  });
});

describe('planRecreate (undoing a deletion)', () => {
  const values = { fields: Object.fromEntries(Array.from({ length: 32 }, (_unused, i) => [`f${i}`, `v${i}`])), tags: Array.from({ length: 11 }, (_unused, i) => `t${i}`) };
  const deleted = change({ deleted: values });

  it('creates the contact again from its values: the create, the fields past 30, the tags in calls of 10', () => {
    const undo = planRecreate(deleted, { recreatedAs: undefined }, V2_SURFACE);
    expect(undo.plan.action).toBe('create');
    expect(undo.plan.operations.map((operation) => [operation.kind, 'tags' in operation ? operation.tags.length : Object.keys(operation.fields).length])).toEqual([
      ['createContact', 30],
      ['updateContact', 2],
      ['addTags', 10],
      ['addTags', 1],
    ]);
    expect(undo.lines.map((line) => [line.action, line.outcome])).toEqual([['recreate', 'restored']]);
    // v2 creates by email or phone: none here, so no holder to read first.
    expect(undoCallsAtMost(deleted, V2_SURFACE)).toBe(4);
    expect(undoCallsAtMost(change({ deleted: { fields: { email: 'a@example.com', firstName: 'A' }, tags: [] } }), V2_SURFACE)).toBe(2);
    expect(undoCallsAtMost(change({ deleted: { fields: { email: 'a@example.com', firstName: 'A' }, tags: [] } }), V1_SURFACE)).toBe(1);
  });

  it('a contact holding its email or phone now: a conflict, nothing created (a create_or_update would write over it)', () => {
    const undo = planRecreate(deleted, { recreatedAs: undefined, heldBy: { field: 'email', contactId: '77' } }, V2_SURFACE);
    expect(undo.plan.operations).toEqual([]);
    expect(undo.lines).toEqual([expect.objectContaining({ action: 'recreate', field: 'email', from: '77', outcome: 'conflict' })]);
  });

  it('the state knowing the key by another id (created again already): no call', () => {
    const undo = planRecreate(deleted, { recreatedAs: '99' }, V2_SURFACE);
    expect(undo.plan.operations).toEqual([]);
    expect(undo.lines).toEqual([expect.objectContaining({ action: 'recreate', outcome: 'unchanged', to: '99' })]);
  });

  it('foldRunChanges gives a delete line\'s values as the change\'s deleted; a merge line\'s fields fold as an update\'s', () => {
    const at = { runId: 8, recordedAt: 0, beforeRead: true };
    const folded = foldRunChanges([
      { ...at, id: 1, key: 'C0001', contactId: 'a', operation: 'delete', values: { fields: { plan: 'pro' }, tags: ['crm'] } },
      { ...at, id: 2, key: 'C0002', contactId: 'b', operation: 'merge', merged: ['c'], fields: { plan: ['basic', 'pro'] } },
    ]);
    expect(folded).toEqual([
      { key: 'C0001', contactId: 'a', created: false, fields: {}, tagsAdded: [], tagsRemoved: [], unreadTags: [], deleted: { fields: { plan: 'pro' }, tags: ['crm'] } },
      { key: 'C0002', contactId: 'b', created: false, fields: { plan: { before: 'basic', after: 'pro', read: true } }, tagsAdded: [], tagsRemoved: [], unreadTags: [] },
    ]);
  });
});
