/**
 * The reconcile decision (`row/compare.ts`, issue 21): a table of a row, what the state store
 * knows and what the platform holds, and how the key stands; then the property that keeps it from
 * drifting from the row decision: a key agrees exactly when `run --full` would settle its row
 * `unchanged` against the same contacts. And the whole of a reconcile row's decision
 * (`decideReconcile`): the contact its reports name and what the store records of the read, on
 * each surface.
 */
import { type PlatformSurface } from '../../../src/api/platform-surface.js';
import { V1_SURFACE } from '../../../src/api/v1/surface.js';
import { V2_SURFACE } from '../../../src/api/v2/surface.js';
import { compareKey, decideReconcile, type KeyComparison, type ReconcileRecord } from '../../../src/pipeline/row/compare.js';
import { decideRow, type KeyState, type RowFacts } from '../../../src/pipeline/row/decide.js';
import type { KnownContact } from '../../../src/state/known-contact.js';
import type { ContactDraft } from '../../../src/pipeline/map/contact-draft.js';
import { draftHash } from '../../../src/state/draft-hash.js';

const draft: ContactDraft = {
  line: 2,
  key: 'C-1',
  keyField: 'customerid',
  fields: { firstName: 'Ada', email: 'ada@example.com', city: '' },
  tagsToAdd: ['crm', 'vip'],
  tagsToRemove: ['lead'],
  templateValues: {},
};
const contact = (over: Partial<KnownContact> = {}): KnownContact => ({
  id: '100',
  custom_fields: { customerid: 'C-1', firstName: 'Ada', email: 'ada@example.com' },
  tags: ['crm', 'vip'],
  created_at: 1000,
  ...over,
});
const fieldsWith = (extra: Record<string, string>) => ({ customerid: 'C-1', firstName: 'Ada', email: 'ada@example.com', ...extra });

interface Case {
  platform: KnownContact[];
  state?: KeyState;
  prune?: RowFacts['prune'];
}

function facts(c: Case): RowFacts {
  return {
    draft,
    draftHash: draftHash(draft),
    mode: 'upsert',
    onDuplicate: 'fail',
    dryRun: true,
    full: true,
    limits: V1_SURFACE,
    state: c.state,
    ...(c.prune === undefined ? {} : { prune: c.prune }),
  };
}

const KNOWN_SEG: KeyState = { kind: 'known', contact: { id: '100', custom_fields: {}, tags: [] }, draftHash: null, jobTags: ['seg:old'] };

const TABLE: Array<[string, Case, KeyComparison]> = [
  ['the one contact holds what the row asks', { platform: [contact()] }, { status: 'same', contactId: '100' }],
  ['a field the contact lacks and the row leaves empty is the same ("" both ways)', { platform: [contact()] }, { status: 'same', contactId: '100' }],
  ['no contact holds the key', { platform: [] }, { status: 'missing' }],
  ['several contacts hold the key: oldest first', { platform: [contact({ id: '7', created_at: 2000 }), contact({ id: '3', created_at: 500 })] }, { status: 'duplicate', contactIds: ['3', '7'] }],
  [
    'a field differs: both values',
    { platform: [contact({ custom_fields: fieldsWith({ firstName: 'Edited' }) })] },
    { status: 'differs', contactId: '100', fields: [{ field: 'firstName', fileValue: 'Ada', platformValue: 'Edited' }], tagsToAdd: [], tagsToRemove: [] },
  ],
  [
    'the row clears a field the contact holds',
    { platform: [contact({ custom_fields: fieldsWith({ city: 'Oslo' }) })] },
    { status: 'differs', contactId: '100', fields: [{ field: 'city', fileValue: '', platformValue: 'Oslo' }], tagsToAdd: [], tagsToRemove: [] },
  ],
  [
    'a tag the file wants is missing, a tag of tags.remove is there',
    { platform: [contact({ tags: ['crm', 'lead'] })] },
    { status: 'differs', contactId: '100', fields: [], tagsToAdd: ['vip'], tagsToRemove: ['lead'] },
  ],
  [
    'tags.prune: a tag the state knows the job set, that the row no longer carries',
    { platform: [contact({ tags: ['crm', 'vip', 'seg:old'] })], state: KNOWN_SEG, prune: {} },
    { status: 'differs', contactId: '100', fields: [], tagsToAdd: [], tagsToRemove: ['seg:old'] },
  ],
  ['without tags.prune, a tag the job once set stays and agrees', { platform: [contact({ tags: ['crm', 'vip', 'seg:old'] })], state: KNOWN_SEG }, { status: 'same', contactId: '100' }],
  [
    'a contact an undo tagged for deletion that the file still wants: the run would remove the tag',
    { platform: [contact({ tags: ['crm', 'vip', 'contact-sync-undone'] })] },
    { status: 'differs', contactId: '100', fields: [], tagsToAdd: [], tagsToRemove: ['contact-sync-undone'] },
  ],
  [
    'a tag the job never set is never the job\'s to remove',
    { platform: [contact({ tags: ['crm', 'vip', 'agent-note'] })], state: KNOWN_SEG, prune: {} },
    { status: 'same', contactId: '100' },
  ],
];

describe('compareKey: how a key of the file stands against the platform', () => {
  it.each(TABLE)('%s', (_name, c, expected) => {
    expect(compareKey(facts(c), c.platform)).toEqual(expected);
  });
});

describe('compareKey cannot drift from the row decision', () => {
  // Every one-contact case of the table, and more: a key agrees exactly when run --full settles
  // its row unchanged with the same contact, and differs exactly when run would update it, with
  // the same fields and tags.
  const variants: Case[] = [
    ...TABLE.map(([, c]) => c).filter((c) => c.platform.length === 1),
    { platform: [contact({ custom_fields: {} })] },
    { platform: [contact({ tags: [] })] },
    { platform: [contact({ custom_fields: fieldsWith({ email: 'ADA@example.com' }) })] },
    { platform: [contact({ tags: ['crm', 'vip', 'lead', 'seg:old'] })], state: KNOWN_SEG, prune: { owned: { kind: 'prefix', prefix: 'seg:' } } },
    { platform: [contact({ tags: ['crm', 'vip', 'seg:new'] })], prune: { owned: { kind: 'list', tags: ['seg:new'] } } },
  ];
  it.each(variants.map((c, i) => [i, c] as const))('case %i', (_i, c) => {
    const comparison = compareKey(facts(c), c.platform);
    const decision = decideRow({ ...facts(c), searched: c.platform });
    if (decision.kind !== 'plan') throw new Error('the decision asked for a search with the platform given');
    const { plan } = decision;
    expect(comparison.status === 'same').toBe(plan.outcome === 'unchanged');
    expect(comparison.status === 'differs').toBe(plan.outcome === 'updated');
    if (comparison.status === 'differs') {
      expect(comparison.fields.map((field) => field.field)).toEqual(plan.fieldsChanged);
      expect(comparison.tagsToAdd).toEqual(plan.tagsAdded);
      expect(comparison.tagsToRemove).toEqual(plan.tagsRemoved);
    }
  });

  it('a key no contact holds is one run would create, and several contacts one run refuses under onDuplicate: fail', () => {
    const missing = decideRow({ ...facts({ platform: [] }), searched: [] });
    expect(missing.kind === 'plan' && missing.plan.outcome).toBe('created');
    const two = [contact({ id: '1' }), contact({ id: '2' })];
    const duplicate = decideRow({ ...facts({ platform: two }), searched: two });
    expect(duplicate.kind === 'plan' && duplicate.plan.errorCode).toBe('DUPLICATE_CONTACTS');
    expect(compareKey(facts({ platform: two }), two).status).toBe('duplicate');
  });
});

describe('decideReconcile: the comparison, the contact named and what the store records, as data', () => {
  const hash = draftHash(draft);
  const withRowHash: ContactDraft = { ...draft, rowHash: 'row-1' };
  const edited = contact({ custom_fields: fieldsWith({ firstName: 'Edited' }) });
  const observed = (of: KnownContact, hashes: { draftHash: string | null; rowHash: string | null }): ReconcileRecord['observed'] => ({ contactId: of.id, fields: of.custom_fields, tags: of.tags, ...hashes });
  const rows: Array<[string, ContactDraft, KnownContact[], { status: string; contactId: string; record: ReconcileRecord }]> = [
    ['agrees: known with the row\'s hashes (the next run settles it with no call)', withRowHash, [contact()], { status: 'same', contactId: '100', record: { absent: false, observed: observed(contact(), { draftHash: draftHash(withRowHash), rowHash: 'row-1' }) } }],
    ['agrees, a draft with no row hash: known with the draft\'s hash alone', draft, [contact()], { status: 'same', contactId: '100', record: { absent: false, observed: observed(contact(), { draftHash: hash, rowHash: null }) } }],
    ['differs: known as the platform holds it, no hash (the next run writes the difference)', withRowHash, [edited], { status: 'differs', contactId: '100', record: { absent: false, observed: observed(edited, { draftHash: null, rowHash: null }) } }],
    ['no contact: noted absent, nothing observed', draft, [], { status: 'missing', contactId: '', record: { absent: true } }],
    ['several contacts: both named, oldest first; the store left as it was', draft, [contact({ id: '7', created_at: 2000 }), contact({ id: '3', created_at: 500 })], { status: 'duplicate', contactId: '3;7', record: { absent: false } }],
  ];
  const surfaces: Array<[string, PlatformSurface]> = [
    ['v1', V1_SURFACE],
    ['v2', V2_SURFACE],
  ];
  it.each(surfaces.flatMap(([name, surface]) => rows.map((row) => [name, ...row, surface] as const)))('%s: %s', (_surface, _name, row, platform, expected, surface) => {
    const plan = decideReconcile({ draft: row, draftHash: draftHash(row), limits: surface, state: undefined }, platform);
    expect({ status: plan.comparison.status, contactId: plan.contactId, record: plan.record }).toEqual(expected);
  });

  // A missing key says why no run repairs it when the surface cannot create its contact (issue 41).
  const noEmail: ContactDraft = { ...draft, fields: { firstName: 'Ada', city: 'Oslo' } };
  const noName: ContactDraft = { ...draft, fields: { email: 'ada@example.com' } };
  it.each<[string, PlatformSurface, ContactDraft, KnownContact[], string | undefined]>([
    ['v1 creates a contact without an email or a phone', V1_SURFACE, noEmail, [], undefined],
    ['v2 creates a contact with an email and a firstName', V2_SURFACE, draft, [], undefined],
    ['v2 cannot create a contact with neither an email nor a phone', V2_SURFACE, noEmail, [], 'neither an email nor a phone'],
    ['v2 cannot create a contact without a firstName', V2_SURFACE, noName, [], 'no firstName'],
    ['a contact holds the key: not missing, nothing to create', V2_SURFACE, noEmail, [contact()], undefined],
  ])('%s', (_name, surface, row, platform, lacks) => {
    const { comparison } = decideReconcile({ draft: row, draftHash: draftHash(row), limits: surface, createRefusal: (fields) => surface.createRefusal(fields), state: undefined }, platform);
    const cannotCreate = comparison.status === 'missing' ? comparison.cannotCreate : undefined;
    if (lacks === undefined) expect(cannotCreate).toBeUndefined();
    else expect(cannotCreate).toEqual({ code: 'V2_CANNOT_CREATE', message: expect.stringContaining(`it has ${lacks}`) });
  });
});
