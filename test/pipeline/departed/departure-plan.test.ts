/** The departed step's decisions, pure: the guard, and the fewest calls for each action. */
import { type PlatformSurface } from '../../../src/api/platform-surface.js';
import { V1_SURFACE } from '../../../src/api/v1/surface.js';
import { V2_SURFACE } from '../../../src/api/v2/surface.js';
import type { OnMissingSpec } from '../../../src/config/job-types.js';
import { missingShare, planDeparture, refusalReason } from '../../../src/pipeline/departed/departure-plan.js';
import type { KnownContact } from '../../../src/state/known-contact.js';

const contact: KnownContact = { id: '700', tags: ['crm', 'vip'], custom_fields: { status: 'active', plan: 'pro' } };
const spec = (overrides: Partial<OnMissingSpec>): OnMissingSpec => ({ action: 'keep', tags: [], fields: {}, maxSharePercent: 10, ...overrides });
const calls = (plan: ReturnType<typeof planDeparture>) => plan.operations.map((op) => `${op.kind}:${'tags' in op ? op.tags.join('|') : Object.keys(op.fields).join('|')}`);

describe('the guard', () => {
  test.each([
    [100, 10, 10, false],
    [100, 11, 11, true],
    [50, 40, 80, true],
    [0, 0, 0, false],
  ])('%i known, %i missing: %f%%, refused %s at 10%%', (known, missing, percent, refused) => {
    expect(missingShare(known, missing, 10)).toEqual({ known, missing, percent, refused, maxSharePercent: 10 });
  });

  test('the refusal says how many, the share, and the ways on', () => {
    expect(refusalReason(missingShare(100, 30, 10), 'crm')).toBe(
      '30 of the 100 keys that earlier runs synced are missing from this input (30%, over onMissing.maxShare 10%); nothing was done to them. ' +
        'A truncated or empty export is the usual cause: check the file and run again, a part of the export is run with --partial, ' +
        'or if they really left, run once with --max-missing 30% (job crm)',
    );
  });

  test.each([
    [100, 50, true],
    [100, 51, false],
    [2000, 1934, false],
    [50, 40, false],
  ])('%i known, %i missing: advises --max-missing %s (never a share acting on most of the keys)', (known, missing, advises) => {
    const reason = refusalReason(missingShare(known, missing, 10), 'crm');
    expect(reason.includes('--max-missing')).toBe(advises);
    expect(reason).toContain('--partial');
  });
});

describe('planDeparture', () => {
  test('keep plans nothing', () => {
    expect(planDeparture(contact, spec({}), V1_SURFACE).operations).toEqual([]);
  });

  test.each<[string, PlatformSurface, number[]]>([
    ['v1', V1_SURFACE, [10, 1]],
    ['v2', V2_SURFACE, [10, 1]],
    ['a surface of 4 tags a call', { ...V1_SURFACE, tagsPerCall: 4 }, [4, 4, 3]],
  ])('tag adds only the tags the contact lacks, the surface\'s tagsPerCall a call (%s)', (_name, surface, sizes) => {
    const many = Array.from({ length: 11 }, (_, i) => `t${i}`);
    const plan = planDeparture(contact, spec({ action: 'tag', tags: ['vip', ...many] }), surface);
    expect(plan.tagsAdded).toEqual(many);
    expect(plan.operations.map((op) => ('tags' in op ? op.tags.length : 0))).toEqual(sizes);
  });

  test('untag removes only the tags the contact has; none held, no call', () => {
    expect(calls(planDeparture(contact, spec({ action: 'untag', tags: ['vip', 'gone'] }), V1_SURFACE))).toEqual(['removeTags:vip']);
    expect(planDeparture(contact, spec({ action: 'untag', tags: ['gone'] }), V1_SURFACE).operations).toEqual([]);
  });

  test('update sets only the fields that differ', () => {
    expect(calls(planDeparture(contact, spec({ action: 'update', fields: { status: 'inactive', plan: 'pro' } }), V1_SURFACE))).toEqual(['updateContact:status']);
    expect(planDeparture(contact, spec({ action: 'update', fields: { status: 'active' } }), V1_SURFACE).operations).toEqual([]);
  });
});
