/**
 * The row decision with `tags.prune` and with a departed key that is back: which tags go, and what
 * it costs. Pure: no server.
 */
import { V1_SURFACE } from '../../../src/api/v1/surface.js';
import { decideRow, droppedTags, type KeyState, type RowFacts, type RowPlan } from '../../../src/pipeline/row/decide.js';
import type { KnownContact } from '../../../src/state/known-contact.js';
import type { ContactDraft } from '../../../src/pipeline/map/contact-draft.js';
import { draftHash } from '../../../src/state/draft-hash.js';

/** Segments went from `Wholesale, EU;churn-risk;VIP` to `VIP`. */
const draft: ContactDraft = {
  line: 2,
  key: 'C-1',
  keyField: 'customerid',
  fields: { firstName: 'Ada' },
  tagsToAdd: ['VIP', 'crm'],
  tagsToRemove: [],
  templateValues: {},
};

const ON_CONTACT = ['Wholesale, EU', 'churn-risk', 'VIP', 'crm', 'hand-set'];

const known = (jobTags: readonly string[] | null, draftHashOf = 'an older draft'): KeyState => ({
  kind: 'known',
  contact: { id: '100', custom_fields: { customerid: 'C-1', firstName: 'Ada' }, tags: ON_CONTACT },
  draftHash: draftHashOf,
  jobTags,
});

const searched: KnownContact[] = [{ id: '100', custom_fields: { customerid: 'C-1', firstName: 'Ada' }, tags: ON_CONTACT, created_at: 1000 }];

function facts(overrides: Partial<RowFacts>): RowFacts {
  return { draft, draftHash: draftHash(draft), mode: 'upsert', onDuplicate: 'fail', dryRun: false, full: false, limits: V1_SURFACE, state: undefined, ...overrides };
}

function plan(f: RowFacts): { plan: RowPlan; searched: boolean } {
  const first = decideRow(f);
  if (first.kind === 'plan') return { plan: first.plan, searched: false };
  const second = decideRow({ ...f, searched });
  if (second.kind !== 'plan') throw new Error('the decision asked for a second search');
  return { plan: second.plan, searched: true };
}

const removeCalls = (p: RowPlan): string[][] => p.writes.flatMap((w) => w.operations.flatMap((op) => (op.kind === 'removeTags' ? [op.tags] : [])));

describe('tags.prune', () => {
  test('with a state store: the tags the job set that the row dropped go, in one call and no search; a hand-set tag stays', () => {
    const { plan: p, searched: s } = plan(facts({ state: known(['Wholesale, EU', 'churn-risk', 'VIP', 'crm']), prune: {} }));
    expect(s).toBe(false);
    expect(p.outcome).toBe('updated');
    expect(removeCalls(p)).toEqual([['Wholesale, EU', 'churn-risk']]);
    expect(p.tagsRemoved).toEqual(['Wholesale, EU', 'churn-risk']);
    expect(p.writes.flatMap((w) => w.operations)).toHaveLength(1);
  });

  test('an unchanged row whose state knows no dropped tag costs nothing, even when the draft hash matches', () => {
    const { plan: p } = plan(facts({ state: known(['VIP', 'crm'], draftHash(draft)), prune: {} }));
    expect(p).toMatchObject({ outcome: 'unchanged', writes: [] });
  });

  test('a row whose draft is as last written still loses a dropped tag of the job (prune turned on later)', () => {
    const { plan: p } = plan(facts({ state: known(['churn-risk', 'VIP'], draftHash(draft)), prune: {} }));
    expect(p.outcome).toBe('updated');
    expect(removeCalls(p)).toEqual([['churn-risk']]);
  });

  test('without prune nothing is dropped, whatever the state knows', () => {
    const { plan: p } = plan(facts({ state: known(['Wholesale, EU', 'churn-risk', 'VIP', 'crm'], draftHash(draft)) }));
    expect(p).toMatchObject({ outcome: 'unchanged', writes: [] });
  });

  test('a key recorded before the store knew the job\'s tags (null) loses none of them; owned still applies', () => {
    expect(plan(facts({ state: known(null), prune: {} })).plan.tagsRemoved).toEqual([]);
    const owned = plan(facts({ state: known(null), prune: { owned: { kind: 'list', tags: ['churn-risk', 'VIP'] } } })).plan;
    expect(owned.tagsRemoved).toEqual(['churn-risk']);
  });

  test('without a state store: the contact\'s tags that owned names (a list or a prefix) and the row lacks; found by the search', () => {
    const byList = plan(facts({ prune: { owned: { kind: 'list', tags: ['Wholesale, EU', 'churn-risk', 'VIP', 'gold'] } } }));
    expect(byList.searched).toBe(true);
    expect(byList.plan.tagsRemoved).toEqual(['Wholesale, EU', 'churn-risk']);
    const byPrefix = plan(facts({ prune: { owned: { kind: 'prefix', prefix: 'churn' } } }));
    expect(byPrefix.plan.tagsRemoved).toEqual(['churn-risk']);
  });

  test('tags.remove and dropped tags share the remove calls, 10 a call', () => {
    const many = Array.from({ length: 12 }, (_, i) => `seg:${i}`);
    const contact: KnownContact = { ...searched[0]!, tags: [...many, 'lead'] };
    const p = plan(facts({ draft: { ...draft, tagsToRemove: ['lead'] }, prune: { owned: { kind: 'prefix', prefix: 'seg:' } }, searched: [contact] })).plan;
    expect(removeCalls(p).map((tags) => tags.length)).toEqual([10, 3]);
    expect(p.tagsRemoved[0]).toBe('lead');
  });

  test('the state records what was added and removed, so the job\'s tags follow', () => {
    const p = plan(facts({ state: { kind: 'unknown' }, prune: { owned: { kind: 'prefix', prefix: 'churn' } } })).plan;
    expect(p.record).toMatchObject({ kind: 'observed', tagsRemoved: ['churn-risk'], tagsAdded: [] });
  });

  test('a contact other than the one the state knows is not pruned by the state\'s list (--full found another)', () => {
    const other: KnownContact = { ...searched[0]!, id: '200' };
    const p = plan(facts({ full: true, state: known(['churn-risk']), prune: {}, searched: [other] })).plan;
    expect(p.tagsRemoved).toEqual([]);
  });
});

describe('a departed key that is back', () => {
  test('the tags its departure added are removed once, with the row\'s own writes, and the journal is cleared', () => {
    const state = known(['VIP', 'crm'], draftHash(draft));
    const contact = { ...state, contact: { ...(state as Extract<KeyState, { kind: 'known' }>).contact, tags: [...ON_CONTACT, 'left-crm'] } } as KeyState;
    const p = plan(facts({ state: { ...contact, draftHash: null } as KeyState, departed: { undoTags: ['left-crm'] } })).plan;
    expect(removeCalls(p)).toEqual([['left-crm']]);
    expect(p.clearDeparted).toBe(true);
  });

  test('a tag the row itself carries is not undone', () => {
    expect(droppedTags(facts({ departed: { undoTags: ['VIP'] } }), searched[0]!)).toEqual([]);
  });

  test('a dry run clears nothing; a skipped row (mode update, no contact) keeps the key departed', () => {
    expect(plan(facts({ state: known([]), departed: { undoTags: [] }, dryRun: true })).plan.clearDeparted).toBe(false);
    const skipped = decideRow({ ...facts({ mode: 'update', departed: { undoTags: [] } }), searched: [] });
    expect(skipped).toMatchObject({ kind: 'plan', plan: { outcome: 'skipped', clearDeparted: false } });
  });
});
