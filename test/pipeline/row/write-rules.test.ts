/**
 * A field's write rule in the row decision (issue 37, docs/configuration.md "Write rules"), as a
 * table: the rule x what the contact holds x where the decision knew it from, to the searches made
 * and the fields written. `fill-empty` over a value the state store knows as empty reads first; a
 * value it knows is there is kept without a read; `on-create` is written only by a create.
 */
import { V1_SURFACE } from '../../../src/api/v1/surface.js';
import type { WriteRule } from '../../../src/config/job-types.js';
import { decideRow, type KeyState, type RowFacts } from '../../../src/pipeline/row/decide.js';
import type { KnownContact } from '../../../src/state/known-contact.js';
import type { ContactDraft } from '../../../src/pipeline/map/contact-draft.js';
import { draftHash } from '../../../src/state/draft-hash.js';

function draftWith(rule: WriteRule | undefined): ContactDraft {
  return {
    line: 2,
    key: 'C-1',
    keyField: 'customerid',
    fields: { firstName: 'Ada', segment: 'gold' },
    tagsToAdd: [],
    tagsToRemove: [],
    templateValues: {},
    ...(rule === undefined ? {} : { writeRules: { segment: rule } }),
  };
}

const contact = (segment: string | undefined): KnownContact => ({
  id: '100',
  custom_fields: { customerid: 'C-1', firstName: 'Old', ...(segment === undefined ? {} : { segment }) },
  tags: [],
});

type Held = 'absent' | 'empty' | 'agent';
const HELD: Record<Held, string | undefined> = { absent: undefined, empty: '', agent: 'silver' };

/** Decides as the executor does: a search when asked, answered with what the platform holds. */
function decide(rule: WriteRule | undefined, known: Held | 'not-known', platform: Held, mode: 'upsert' | 'create' = 'upsert'): string {
  const draft = draftWith(rule);
  const state: KeyState =
    known === 'not-known' ? { kind: 'unknown' } : { kind: 'known', contact: contact(HELD[known]), draftHash: 'an older draft', jobTags: null };
  let facts: RowFacts = { draft, draftHash: draftHash(draft), mode, onDuplicate: 'fail', dryRun: false, full: false, limits: V1_SURFACE, state };
  for (let searches = 0; searches < 3; searches++) {
    const decision = decideRow(facts);
    if (decision.kind === 'plan') {
      const written = decision.plan.writes.flatMap((write) => write.fieldsChanged).filter((field) => field !== 'customerid');
      return `${searches === 0 ? '-' : 'S'} ${decision.plan.outcome} ${written.join(',') || 'nothing'}`;
    }
    facts = { ...facts, searched: known === 'not-known' && platform === 'absent' && mode === 'upsert' ? [] : [contact(HELD[platform])] };
  }
  throw new Error('the decision asked for a search again after it had the answer');
}

describe('write rules in the row decision', () => {
  it.each<[WriteRule | undefined, Held | 'not-known', Held, string]>([
    // always: whatever the contact holds, the file's value is written when it differs.
    [undefined, 'agent', 'agent', '- updated firstName,segment'],
    [undefined, 'empty', 'agent', '- updated firstName,segment'],
    // fill-empty, known to hold a value: kept, no read.
    ['fill-empty', 'agent', 'agent', '- updated firstName'],
    // fill-empty, known empty or never recorded: read first; the platform's answer decides.
    ['fill-empty', 'empty', 'empty', 'S updated firstName,segment'],
    ['fill-empty', 'absent', 'absent', 'S updated firstName,segment'],
    ['fill-empty', 'empty', 'agent', 'S updated firstName'],
    ['fill-empty', 'absent', 'agent', 'S updated firstName'],
    // A key the store does not know is searched anyway: one read, the same rule.
    ['fill-empty', 'not-known', 'agent', 'S updated firstName'],
    ['fill-empty', 'not-known', 'empty', 'S updated firstName,segment'],
    // A contact that does not exist yet is created with every field.
    ['fill-empty', 'not-known', 'absent', 'S created firstName,segment'],
    ['on-create', 'not-known', 'absent', 'S created firstName,segment'],
    // on-create: never written to a contact that exists, and never a read for it.
    ['on-create', 'empty', 'empty', '- updated firstName'],
    ['on-create', 'agent', 'agent', '- updated firstName'],
    ['on-create', 'not-known', 'agent', 'S updated firstName'],
  ])('write %s, the store knows %s, the platform holds %s: %s', (rule, known, platform, expected) => {
    expect(decide(rule, known, platform)).toBe(expected);
  });

  it('mode create reads nothing for fill-empty: a known key is skipped', () => {
    expect(decide('fill-empty', 'empty', 'empty', 'create')).toBe('- skipped nothing');
  });

  it('a row whose draft the store last wrote whole is settled without a read, fill-empty or not', () => {
    const draft = draftWith('fill-empty');
    const state: KeyState = { kind: 'known', contact: contact(''), draftHash: draftHash(draft), jobTags: null };
    const decision = decideRow({ draft, draftHash: draftHash(draft), mode: 'upsert', onDuplicate: 'fail', dryRun: false, full: false, limits: V1_SURFACE, state });
    expect(decision.kind === 'plan' && decision.plan.outcome).toBe('unchanged');
  });
});
