/**
 * The row decision as a table: every mode x what the state store knows x what the platform holds
 * x `--full`, each with its expected searches, outcome, writes, state record and message, written
 * out literally; then every combination again as a dry run, which must decide the same and write
 * nothing.
 */
import { V1_SURFACE } from '../../../src/api/v1/surface.js';
import { V2_SURFACE } from '../../../src/api/v2/surface.js';
import type { JobMode } from '../../../src/config/job-types.js';
import { decideRow, type KeyState, type RowFacts, type RowPlan } from '../../../src/pipeline/row/decide.js';
import type { KnownContact } from '../../../src/state/known-contact.js';
import type { ContactDraft } from '../../../src/pipeline/map/contact-draft.js';
import { draftHash } from '../../../src/state/draft-hash.js';

const draft: ContactDraft = {
  line: 2,
  key: 'C-1',
  keyField: 'customerid',
  fields: { firstName: 'Ada' },
  tagsToAdd: ['crm'],
  tagsToRemove: [],
  templateValues: {},
};

/** What a search finds: nothing, one contact, or two created in the same second. */
const PLATFORM: Record<0 | 1 | 2, KnownContact[]> = {
  0: [],
  1: [{ id: '100', custom_fields: { customerid: 'C-1', firstName: 'Old' }, tags: [], created_at: 1000 }],
  // Listed newest first; '99' is the older by the id tie-break (numeric ids by length).
  2: [
    { id: '100', custom_fields: { customerid: 'C-1', firstName: 'Old' }, tags: [], created_at: 1000 },
    { id: '99', custom_fields: { customerid: 'C-1', firstName: 'Old' }, tags: [], created_at: 1000 },
  ],
};

type StateName = 'no-store' | 'unknown' | 'known-same' | 'known-changed' | 'create-pending' | 'stale' | 'absent';

const STATES: Record<StateName, KeyState | undefined> = {
  'no-store': undefined,
  unknown: { kind: 'unknown' },
  'known-same': { kind: 'known', contact: { id: '100', custom_fields: { customerid: 'C-1', firstName: 'Ada' }, tags: ['crm'] }, draftHash: draftHash(draft), jobTags: ['crm'] },
  'known-changed': { kind: 'known', contact: { id: '100', custom_fields: { customerid: 'C-1', firstName: 'Old' }, tags: [] }, draftHash: 'an older draft', jobTags: null },
  'create-pending': { kind: 'create-pending' },
  stale: { kind: 'stale' },
  // The reconcile right before this run read the key and found no contact (row/fresh-read.ts).
  absent: { kind: 'absent' },
};

const MODES: JobMode[] = ['upsert', 'create', 'update', 'message'];
const STATE_NAMES = Object.keys(STATES) as StateName[];
const COUNTS = [0, 1, 2] as const;

/** Runs the decision as the executor does: a search when it asks, with what the platform holds. */
function decide(mode: JobMode, state: StateName, count: 0 | 1 | 2, flags: { full: boolean; dryRun: boolean }): { searches: number; plan: RowPlan } {
  let facts: RowFacts = {
    draft,
    draftHash: draftHash(draft),
    mode,
    onDuplicate: 'fail',
    dryRun: flags.dryRun,
    full: flags.full,
    limits: V1_SURFACE,
    state: STATES[state],
    message: { when: 'changed' },
  };
  for (let searches = 0; searches < 3; searches++) {
    const decision = decideRow(facts);
    if (decision.kind === 'plan') return { searches, plan: decision.plan };
    facts = { ...facts, searched: PLATFORM[count] };
  }
  throw new Error('the decision asked for a search again after it had the answer');
}

const OP: Record<string, string> = { createContact: 'create', updateContact: 'update', addTags: 'tag+', removeTags: 'tag-' };
const target = (t: { id: string } | 'created'): string => (t === 'created' ? 'new' : t.id);

/** `S|- outcome[:code] writes record msg:targets`, the shape of the table below. */
function describe_(searches: number, plan: RowPlan): string {
  const writes = plan.writes.flatMap((w) => w.operations.map((op) => (op.kind === 'createContact' ? 'create' : `${OP[op.kind]}@${target(op.target)}`))).join(',');
  const record =
    plan.record === undefined
      ? '-'
      : plan.record.kind === 'confirmed'
        ? `confirmed:${plan.record.contactId}`
        : `observed${plan.record.draftHash === null ? '-null' : ''}:${target(plan.record.contact)}`;
  return [
    searches > 0 ? 'S' : '-',
    plan.outcome + (plan.errorCode === '' ? '' : `:${plan.errorCode}`),
    (plan.journalCreate ? 'J:' : '') + (writes || '-'),
    record,
    `msg:${plan.message === undefined ? '-' : plan.message.map(target).join(';')}`,
  ].join(' ');
}

// Rows that several states share, written once so each reads as the rule it is.
const UPSERT_SEARCHED_NO_STORE = ['S created create,tag+@new - msg:new', 'S updated update@100,tag+@100 - msg:100', 'S failed:DUPLICATE_CONTACTS - - msg:-'];
const UPSERT_SEARCHED = ['S created J:create,tag+@new observed:new msg:new', 'S updated update@100,tag+@100 observed:100 msg:100', 'S failed:DUPLICATE_CONTACTS - - msg:-'];
const CREATE_SEARCHED = ['S created J:create,tag+@new observed:new msg:new', 'S skipped - observed-null:100 msg:-', 'S skipped - observed-null:99 msg:-'];
const UPDATE_SEARCHED_NO_STORE = ['S skipped - - msg:-', 'S updated update@100,tag+@100 - msg:100', 'S failed:DUPLICATE_CONTACTS - - msg:-'];
const UPDATE_SEARCHED = ['S skipped - - msg:-', 'S updated update@100,tag+@100 observed:100 msg:100', 'S failed:DUPLICATE_CONTACTS - - msg:-'];
const MESSAGE_SEARCHED = ['S skipped - - msg:-', 'S unchanged - - msg:100', 'S failed:DUPLICATE_CONTACTS - - msg:-'];
const all = (row: string): string[] => [row, row, row];

/** Expected for 0, 1 and 2 contacts on the platform, without `--full`. */
const EXPECTED: Record<JobMode, Record<StateName, string[]>> = {
  upsert: {
    'no-store': UPSERT_SEARCHED_NO_STORE,
    unknown: UPSERT_SEARCHED,
    'known-same': all('- unchanged - - msg:-'),
    'known-changed': all('- updated update@100,tag+@100 confirmed:100 msg:100'),
    'create-pending': UPSERT_SEARCHED,
    stale: UPSERT_SEARCHED,
    // The reconcile's read stands for the search: what the platform holds now is not asked.
    absent: all('- created J:create,tag+@new observed:new msg:new'),
  },
  create: {
    'no-store': ['S created create,tag+@new - msg:new', 'S skipped - - msg:-', 'S skipped - - msg:-'],
    // New keys are new: no search per row of a first migration.
    unknown: all('- created J:create,tag+@new observed:new msg:new'),
    'known-same': all('- skipped - - msg:-'),
    'known-changed': all('- skipped - - msg:-'),
    // A killed run may have created it: searched, and finished as an upsert.
    'create-pending': UPSERT_SEARCHED,
    stale: CREATE_SEARCHED,
    absent: all('- created J:create,tag+@new observed:new msg:new'),
  },
  update: {
    'no-store': UPDATE_SEARCHED_NO_STORE,
    unknown: UPDATE_SEARCHED,
    'known-same': all('- unchanged - - msg:-'),
    'known-changed': all('- updated update@100,tag+@100 confirmed:100 msg:100'),
    'create-pending': UPDATE_SEARCHED,
    stale: UPDATE_SEARCHED,
    absent: all('- skipped - - msg:-'),
  },
  message: {
    'no-store': MESSAGE_SEARCHED,
    unknown: MESSAGE_SEARCHED,
    'known-same': all('- unchanged - - msg:100'),
    'known-changed': all('- unchanged - - msg:100'),
    'create-pending': MESSAGE_SEARCHED,
    stale: MESSAGE_SEARCHED,
    absent: all('- skipped - - msg:-'),
  },
};

/** With `--full` what the state knows is not trusted: every key is searched. */
const EXPECTED_FULL: Record<JobMode, Record<StateName, string[]>> = {
  upsert: {
    'no-store': UPSERT_SEARCHED_NO_STORE,
    unknown: UPSERT_SEARCHED,
    'known-same': UPSERT_SEARCHED,
    'known-changed': UPSERT_SEARCHED,
    'create-pending': UPSERT_SEARCHED,
    stale: UPSERT_SEARCHED,
    absent: UPSERT_SEARCHED,
  },
  create: {
    'no-store': EXPECTED.create['no-store'],
    unknown: CREATE_SEARCHED,
    'known-same': CREATE_SEARCHED,
    'known-changed': CREATE_SEARCHED,
    'create-pending': UPSERT_SEARCHED,
    stale: CREATE_SEARCHED,
    absent: CREATE_SEARCHED,
  },
  update: {
    'no-store': UPDATE_SEARCHED_NO_STORE,
    unknown: UPDATE_SEARCHED,
    'known-same': UPDATE_SEARCHED,
    'known-changed': UPDATE_SEARCHED,
    'create-pending': UPDATE_SEARCHED,
    stale: UPDATE_SEARCHED,
    absent: UPDATE_SEARCHED,
  },
  message: {
    'no-store': MESSAGE_SEARCHED,
    unknown: MESSAGE_SEARCHED,
    'known-same': MESSAGE_SEARCHED,
    'known-changed': MESSAGE_SEARCHED,
    'create-pending': MESSAGE_SEARCHED,
    stale: MESSAGE_SEARCHED,
    absent: MESSAGE_SEARCHED,
  },
};

const cases = MODES.flatMap((mode) => STATE_NAMES.flatMap((state) => COUNTS.flatMap((count) => [false, true].map((full) => ({ mode, state, count, full })))));

describe('the row decision: mode x state x platform x --full', () => {
  test.each(cases)('$mode, state $state, $count on the platform, full $full', ({ mode, state, count, full }) => {
    const { searches, plan } = decide(mode, state, count, { full, dryRun: false });
    const expected = (full ? EXPECTED_FULL : EXPECTED)[mode][state][count];
    expect(describe_(searches, plan)).toBe(expected);
  });

  test.each(cases)('dry run: $mode, state $state, $count on the platform, full $full decides the same and writes nothing', ({ mode, state, count, full }) => {
    const real = decide(mode, state, count, { full, dryRun: false });
    const dry = decide(mode, state, count, { full, dryRun: true });
    expect(dry.searches).toBe(real.searches);
    expect({ outcome: dry.plan.outcome, code: dry.plan.errorCode, fields: dry.plan.fieldsChanged, tags: dry.plan.tagsAdded }).toEqual({
      outcome: real.plan.outcome,
      code: real.plan.errorCode,
      fields: real.plan.fieldsChanged,
      tags: real.plan.tagsAdded,
    });
    expect({ writes: dry.plan.writes, record: dry.plan.record, journal: dry.plan.journalCreate }).toEqual({ writes: [], record: undefined, journal: false });
    // What it withholds is what the real run writes: its estimate of the real run counts these calls.
    expect(dry.plan.withheld.flatMap((w) => w.operations.map((op) => op.kind))).toEqual(real.plan.writes.flatMap((w) => w.operations.map((op) => op.kind)));
    expect(real.plan.withheld).toEqual([]);
    // The next row of the key is planned against what this one would have left.
    if (real.plan.writes.length === 1) expect(dry.plan.simulate).toMatchObject({ custom_fields: { firstName: 'Ada' }, tags: expect.arrayContaining(['crm']) });
    // A contact the dry run would create has no id: it is reported without one.
    expect(dry.plan.contacts.filter((c) => c === 'created')).toEqual([]);
    expect(dry.plan.message).toEqual(real.plan.message);
  });
});

describe('the row decision: choices between contacts and sources', () => {
  const facts = (overrides: Partial<RowFacts>): RowFacts => ({ draft, draftHash: draftHash(draft), mode: 'upsert', onDuplicate: 'fail', dryRun: false, full: false, limits: V1_SURFACE, state: undefined, ...overrides });
  const planOf = (f: RowFacts): RowPlan => {
    const decision = decideRow(f);
    if (decision.kind !== 'plan') throw new Error('expected a plan');
    return decision.plan;
  };

  test.each([
    ['oldest', ['99']],
    ['newest', ['100']],
    ['all', ['99', '100']],
  ] as const)('onDuplicate %s writes %j (created in the same second: the id breaks the tie)', (onDuplicate, ids) => {
    const plan = planOf(facts({ onDuplicate, searched: PLATFORM[2] }));
    expect(plan.contacts).toEqual(ids.map((id) => ({ id })));
    expect(plan.writes.map((w) => w.contactId)).toEqual(ids);
  });

  test('onDuplicate all records no contact in the state: the key has several', () => {
    expect(planOf(facts({ onDuplicate: 'all', searched: PLATFORM[2], state: { kind: 'unknown' } })).record).toBeUndefined();
  });

  test('a key the prefetch index holds needs no search, and the plan says it came from the index', () => {
    const plan = planOf(facts({ indexed: PLATFORM[1], state: { kind: 'unknown' } }));
    expect(plan.matchedBy).toBe('index');
    expect(plan.outcome).toBe('updated');
  });

  test('a key the reconcile read absent is matched from the index when the run pages: the index is the fresher read', () => {
    const plan = planOf(facts({ indexed: PLATFORM[1], state: { kind: 'absent' } }));
    expect(plan).toMatchObject({ matchedBy: 'index', outcome: 'updated' });
    expect(planOf(facts({ state: { kind: 'absent' } }))).toMatchObject({ matchedBy: 'reconcile', outcome: 'created' });
  });

  test('a create-pending key is searched even when the index holds it', () => {
    expect(decideRow(facts({ indexed: PLATFORM[1], state: { kind: 'create-pending' } }))).toEqual({ kind: 'search' });
  });

  test('a send-only job takes its contact from the contact id column, with no search', () => {
    const withId = { ...draft, templateValues: { contact_id: ' 555 ' } };
    const plan = planOf(facts({ draft: withId, mode: 'message', message: { when: 'always', contactIdColumn: 'contact_id' } }));
    expect(plan).toMatchObject({ outcome: 'unchanged', message: [{ id: '555' }], matchedBy: 'contact-id' });
    const empty = planOf(facts({ mode: 'message', message: { when: 'always', contactIdColumn: 'contact_id' } }));
    expect(empty).toMatchObject({ outcome: 'skipped', reason: 'the column "contact_id" is empty; put the contact id in it', message: undefined });
  });

  test('a message an earlier run owed (killed between the create and the send) is sent although the row is unchanged', () => {
    const owed = planOf(facts({ state: STATES['known-same'], message: { when: 'created' }, messageDue: true }));
    expect(owed).toMatchObject({ outcome: 'unchanged', message: [{ id: '100' }] });
    const settled = planOf(facts({ state: STATES['known-same'], message: { when: 'created' } }));
    expect(settled).toMatchObject({ outcome: 'unchanged', message: undefined });
  });

  test('the dry run matches a later row of a key against what the earlier row would have left', () => {
    const simulated: KnownContact = { id: '', custom_fields: { customerid: 'C-1', firstName: 'Ada' }, tags: ['crm'] };
    const plan = planOf(facts({ dryRun: true, simulated }));
    expect(plan).toMatchObject({ outcome: 'unchanged', matchedBy: 'simulated', writes: [] });
  });
});

describe('the row decision: a contact an undo tagged for deletion, and whether "before" was read', () => {
  const UNDONE = 'contact-sync-undone';
  const facts = (overrides: Partial<RowFacts>): RowFacts => ({ draft, draftHash: draftHash(draft), mode: 'upsert', onDuplicate: 'fail', dryRun: false, full: false, limits: V1_SURFACE, state: undefined, ...overrides });
  const planOf = (f: RowFacts): RowPlan => {
    const decision = decideRow(f);
    if (decision.kind !== 'plan') throw new Error('expected a plan');
    return decision.plan;
  };
  const calls = (plan: RowPlan): unknown[] => plan.writes.flatMap((write) => write.operations.map((op) => (op.kind === 'createContact' ? op.kind : 'tags' in op ? [op.kind, op.tags] : [op.kind, op.fields])));
  /** What undo leaves in the store for a created contact it tagged: the contact, the tag, no hashes. */
  const undone: KeyState = { kind: 'known', contact: { id: '100', custom_fields: { customerid: 'C-1', firstName: 'Ada' }, tags: ['crm', UNDONE] }, draftHash: null, jobTags: ['crm'], rowHash: null };

  test('a row that takes the contact back removes the tag with one call, even when its fields already agree', () => {
    const plan = planOf(facts({ state: undone }));
    expect(plan).toMatchObject({ outcome: 'updated', tagsRemoved: [UNDONE], matchedBy: 'state' });
    expect(calls(plan)).toEqual([['removeTags', [UNDONE]]]);
    expect(plan.record).toMatchObject({ kind: 'confirmed', tagsRemoved: [UNDONE], draftHash: draftHash(draft) });
  });

  test('the same draft hash does not settle the row while the contact carries the tag', () => {
    const plan = planOf(facts({ state: { ...undone, draftHash: draftHash(draft) } }));
    expect(calls(plan)).toEqual([['removeTags', [UNDONE]]]);
  });

  test('a row that removes tags anyway removes the tag in the same call: no extra call', () => {
    const removing = { ...draft, tagsToRemove: ['lead'] };
    const state: KeyState = { ...undone, contact: { ...undone.contact, tags: ['crm', 'lead', UNDONE] } };
    const plan = planOf(facts({ draft: removing, draftHash: draftHash(removing), state }));
    expect(calls(plan)).toEqual([['removeTags', ['lead', UNDONE]]]);
  });

  test('a contact found by a search is taken back the same way; a row that carries the tag itself keeps it', () => {
    const searched: KnownContact[] = [{ id: '100', custom_fields: { customerid: 'C-1', firstName: 'Old' }, tags: [UNDONE], created_at: 1000 }];
    expect(calls(planOf(facts({ searched })))).toEqual([['updateContact', { firstName: 'Ada' }], ['addTags', ['crm']], ['removeTags', [UNDONE]]]);
    const carrying = { ...draft, tagsToAdd: ['crm', UNDONE] };
    expect(planOf(facts({ draft: carrying, draftHash: draftHash(carrying), searched })).tagsRemoved).toEqual([]);
  });

  test('mode create, which skips a contact that exists, still takes back one an undo tagged: the tag goes, nothing else is written', () => {
    const fromState = planOf(facts({ mode: 'create', state: undone }));
    expect(fromState).toMatchObject({ outcome: 'updated', contacts: [{ id: '100' }], tagsRemoved: [UNDONE], fieldsChanged: [] });
    expect(calls(fromState)).toEqual([['removeTags', [UNDONE]]]);
    expect(fromState.record).toMatchObject({ kind: 'observed', tags: ['crm'], draftHash: null });
    const searched: KnownContact[] = [{ id: '100', custom_fields: { customerid: 'C-1' }, tags: [UNDONE], created_at: 1000 }];
    const fromSearch = planOf(facts({ mode: 'create', state: { kind: 'unknown' }, full: true, searched }));
    expect(calls(fromSearch)).toEqual([['removeTags', [UNDONE]]]);
    // A dry run withholds the call and counts it.
    const dry = planOf(facts({ mode: 'create', state: undone, dryRun: true }));
    expect({ writes: dry.writes, withheld: dry.withheld.length, record: dry.record }).toEqual({ writes: [], withheld: 1, record: undefined });
    // Without the tag, mode create skips as before.
    expect(planOf(facts({ mode: 'create', state: STATES['known-changed'] })).outcome).toBe('skipped');
  });

  test('a write planned from a platform read says its before was read; one planned from the state store says it was not', () => {
    expect(planOf(facts({ searched: PLATFORM[1] })).writes[0]?.beforeRead).toBe(true);
    expect(planOf(facts({ indexed: PLATFORM[1], state: { kind: 'unknown' } })).writes[0]?.beforeRead).toBe(true);
    expect(planOf(facts({ state: STATES['known-changed'] })).writes[0]?.beforeRead).toBe(false);
    // The store's record is what the reconcile or undo right before this run read: a read (issue 41 item 11).
    expect(planOf(facts({ state: { ...STATES['known-changed'], read: true } as KeyState })).writes[0]?.beforeRead).toBe(true);
    // A create had nothing before it.
    expect(planOf(facts({ searched: [] })).writes[0]).toMatchObject({ action: 'create', beforeRead: true });
    // onDuplicate all writes the contacts a search found.
    expect(planOf(facts({ onDuplicate: 'all', searched: PLATFORM[2] })).writes.map((write) => write.beforeRead)).toEqual([true, true]);
  });
});

describe('the row decision: a create that lands on the holder of its email or phone (API v2, issue 41)', () => {
  const family: ContactDraft = { ...draft, fields: { firstName: 'Ada', email: 'family@example.com', phone: '+447946012345' } };
  const holder = (fields: Record<string, string>): KnownContact => ({ id: '200', custom_fields: { email: 'family@example.com', ...fields }, tags: [] });
  const facts = (over: Partial<RowFacts> = {}): RowFacts => ({
    draft: family,
    draftHash: draftHash(family),
    mode: 'upsert',
    onDuplicate: 'fail',
    dryRun: false,
    full: false,
    limits: V2_SURFACE,
    state: { kind: 'unknown' },
    searched: [],
    ...over,
  });
  /** `read:field=value`, or `outcome[:code] writes|withheld`. */
  const shown = (decided: ReturnType<typeof decideRow>): string => {
    if (decided.kind === 'search') return 'search';
    if (decided.kind === 'read-identifier') return `read:${decided.field}=${decided.value}`;
    const { plan } = decided;
    return `${plan.outcome}${plan.errorCode === '' ? '' : `:${plan.errorCode}`} ${plan.writes.length}|${plan.withheld.length}`;
  };

  test.each<[string, Partial<RowFacts>, string]>([
    ['v2, a new key: the holder of the email the create lands on is read first', {}, 'read:email=family@example.com'],
    ['v2, nobody holds the email: created', { identifierHolders: [] }, 'created 1|0'],
    ['v2, another key\'s contact holds it: the row fails, nothing written', { identifierHolders: [holder({ customerid: 'C-2' })] }, 'failed:IDENTIFIER_HELD 0|0'],
    ['v2, a contact with no key holds it (a chat that came in): create_or_update takes it', { identifierHolders: [holder({})] }, 'created 1|0'],
    ['v2, mode create with a state store takes the key as new, and still reads the holder', { mode: 'create', searched: undefined }, 'read:email=family@example.com'],
    ['v2 dry run: read too, and fails as the real run would', { dryRun: true, identifierHolders: [holder({ customerid: 'C-2' })] }, 'failed:IDENTIFIER_HELD 0|0'],
    ['v2, no email: the create lands on the phone', { draft: { ...family, fields: { firstName: 'Ada', phone: '+447946012345' } } }, 'read:phone=+447946012345'],
    ['v2, a create v2 cannot send (no firstName): no read, it fails in the client', { draft: { ...family, fields: { email: 'family@example.com' } } }, 'created 1|0'],
    ['v2, the key is the email itself: its search found no holder, no read', { draft: { ...family, key: 'family@example.com', keyField: 'email', fields: { firstName: 'Ada' } } }, 'created 1|0'],
    ['v2, an update of the key\'s own contact: no read', { searched: [{ id: '100', custom_fields: { customerid: 'C-1' }, tags: [] }] }, 'updated 1|0'],
    ['v1: a create always makes a new contact, no read', { limits: V1_SURFACE }, 'created 1|0'],
  ])('%s', (_case, over, expected) => {
    expect(shown(decideRow(facts(over)))).toBe(expected);
  });

  test('the failure names the holder, its key and the fix', () => {
    const decided = decideRow(facts({ identifierHolders: [holder({ customerid: 'C-2' })] }));
    expect(decided.kind === 'plan' && decided.plan.reason).toBe(
      'email family@example.com belongs to contact 200, whose customerid is C-2: the platform creates a contact by its email and would write customerid=C-1 over that contact, so nothing was written; give this row an email of its own (or none), or merge the two on the platform',
    );
  });
});
