/**
 * `forget --platform`'s decisions as tables (docs/personal-data.md, "Erasure reaches the
 * platform"): which contacts a key's erasure deletes or lists, and how the key's erasure ended. No server.
 */
import { erasureOutcome, needsLook, planErasure, type ErasureEnd, type ErasureFacts, type ErasureOutcome } from '../../../src/pipeline/forget/erasure-plan.js';

describe('planErasure', () => {
  const TABLE: Array<[string, ErasureFacts, { ids: string[]; deleted: string[]; byHand: string[] }]> = [
    ['the store\'s contact, found by the lookup too: one delete', { storeId: '7', found: ['7'], deletes: true }, { ids: ['7'], deleted: ['7'], byHand: [] }],
    ['the store knows one the lookup no longer finds: deleted by id (a 404 is gone already)', { storeId: '7', found: [], deletes: true }, { ids: ['7'], deleted: ['7'], byHand: [] }],
    ['the store forgot the key: the lookup\'s contact is deleted', { storeId: undefined, found: ['9'], deletes: true }, { ids: ['9'], deleted: ['9'], byHand: [] }],
    ['duplicates: each contact holding the key, the store\'s first', { storeId: '9', found: ['7', '9', '8'], deletes: true }, { ids: ['9', '7', '8'], deleted: ['9', '7', '8'], byHand: [] }],
    ['no contact anywhere: nothing to delete', { storeId: undefined, found: [], deletes: true }, { ids: [], deleted: [], byHand: [] }],
    ['a surface that cannot delete: listed by hand, none deleted', { storeId: '7', found: ['7', '8'], deletes: false }, { ids: ['7', '8'], deleted: [], byHand: ['7', '8'] }],
  ];
  test.each(TABLE)('%s', (_name, facts, expected) => {
    const plan = planErasure(facts);
    expect(plan.contactIds).toEqual(expected.ids);
    expect(plan.byHand).toEqual(expected.byHand);
    expect(plan.deletions.map((deletion) => deletion.contactId)).toEqual(expected.deleted);
    // Each plan is one delete of its contact, carrying no value (an erasure journals none).
    for (const deletion of plan.deletions) expect(deletion.operations).toEqual([{ kind: 'deleteContact', target: { id: deletion.contactId }, fields: {}, tags: [] }]);
  });
});

describe('erasureOutcome', () => {
  const deletes = planErasure({ storeId: '7', found: [], deletes: true });
  const none = planErasure({ storeId: undefined, found: [], deletes: true });
  const v1 = planErasure({ storeId: '7', found: [], deletes: false });
  const v1None = planErasure({ storeId: undefined, found: [], deletes: false });
  const TABLE: Array<[string, ErasureEnd, ErasureOutcome]> = [
    ['deleted and the store erased', { storeKnew: true, plan: deletes, failed: false, reached: true }, 'erased'],
    ['the store knew it, the platform holds none: erased', { storeKnew: true, plan: none, failed: false, reached: true }, 'erased'],
    ['the store forgot it, the platform held it: erased (deleted)', { storeKnew: false, plan: deletes, failed: false, reached: true }, 'erased'],
    ['neither knew it: unknown', { storeKnew: false, plan: none, failed: false, reached: true }, 'unknown'],
    ['a surface that cannot delete, ids left: by hand', { storeKnew: true, plan: v1, failed: false, reached: true }, 'by-hand'],
    ['a surface that cannot delete, nothing on the platform, the store erased: erased', { storeKnew: true, plan: v1None, failed: false, reached: true }, 'erased'],
    ['a delete failed', { storeKnew: true, plan: deletes, failed: true, reached: true }, 'failed'],
    ['the lookup failed (no plan)', { storeKnew: true, plan: undefined, failed: true, reached: true }, 'failed'],
    ['not taken: the forget stopped', { storeKnew: true, plan: undefined, failed: false, reached: false }, 'not-reached'],
  ];
  test.each(TABLE)('%s', (_name, end, outcome) => {
    expect(erasureOutcome(end)).toBe(outcome);
  });

  test.each<[ErasureOutcome[], boolean]>([
    [['erased', 'erased'], false],
    [[], false],
    [['erased', 'unknown'], true],
    [['by-hand'], true],
    [['failed'], true],
    // A key the run did not reach is the run's stop (its own exit code), not a look.
    [['erased', 'not-reached'], false],
  ])('needsLook(%j) is %s', (outcomes, look) => {
    expect(needsLook(outcomes)).toBe(look);
  });
});
