/**
 * The rules the executor (`sync-row.ts`) obeys around a plan's calls, decided by the pure decision
 * (issue 27): when the row's message is journalled as owed before the writes, when it stops being
 * owed, what a vanished contact means, and when a row settles in the row loop with no call. A
 * table: the facts, then the four answers.
 */
import { V1_SURFACE } from '../../../src/api/v1/surface.js';
import { decideRow, type KeyState, type RowFacts, type RowPlan } from '../../../src/pipeline/row/decide.js';
import type { KnownContact } from '../../../src/state/known-contact.js';
import type { ContactDraft } from '../../../src/pipeline/map/contact-draft.js';
import { draftHash } from '../../../src/state/draft-hash.js';

const draft: ContactDraft = { line: 2, key: 'C-1', keyField: 'customerid', fields: { firstName: 'Ada' }, tagsToAdd: ['crm'], tagsToRemove: [], templateValues: {} };
const old: KnownContact = { id: '100', custom_fields: { customerid: 'C-1', firstName: 'Old' }, tags: ['crm'], created_at: 1000 };
const twin: KnownContact = { ...old, id: '99' };

const KNOWN_SAME: KeyState = { kind: 'known', contact: { id: '100', custom_fields: { customerid: 'C-1', firstName: 'Ada' }, tags: ['crm'] }, draftHash: draftHash(draft), jobTags: ['crm'] };
const KNOWN_CHANGED: KeyState = { kind: 'known', contact: { id: '100', custom_fields: { customerid: 'C-1', firstName: 'Old' }, tags: ['crm'] }, draftHash: 'older', jobTags: ['crm'] };

interface Case {
  state: KeyState | undefined;
  /** What a search finds, when the decision asks for one. */
  platform?: KnownContact[];
  message?: boolean;
  messageDue?: boolean;
  dryRun?: boolean;
}

function plan(c: Case): RowPlan {
  let facts: RowFacts = {
    draft,
    draftHash: draftHash(draft),
    mode: 'upsert',
    onDuplicate: 'fail',
    dryRun: c.dryRun === true,
    full: false,
    limits: V1_SURFACE,
    state: c.state,
    ...(c.message === true ? { message: { when: 'changed' } } : {}),
    ...(c.messageDue === true ? { messageDue: true } : {}),
  };
  for (let round = 0; round < 2; round++) {
    const decision = decideRow(facts);
    if (decision.kind === 'plan') return decision.plan;
    facts = { ...facts, searched: c.platform ?? [] };
  }
  throw new Error('the decision asked for a second search');
}

const rules = (p: RowPlan) => [p.outcome, p.markMessageDue, p.clearMessageDueWhenSent, p.onVanished, p.callFree];

describe('the executor rules the plan carries', () => {
  it.each<[string, Case, ReturnType<typeof rules>]>([
    //                                                                                              outcome      markDue clearDue onVanished                 callFree
    ['changed, found by a search, with a message, state store', { state: { kind: 'unknown' }, platform: [old], message: true }, ['updated', true, true, 'fail', false]],
    ['changed, known to the state store, with a message', { state: KNOWN_CHANGED, message: true }, ['updated', true, true, 'forget-and-decide-again', false]],
    ['changed, known to the state store, no message', { state: KNOWN_CHANGED }, ['updated', false, false, 'forget-and-decide-again', false]],
    ['unchanged by the state store, a message job (none wanted)', { state: KNOWN_SAME, message: true }, ['unchanged', false, false, 'forget-and-decide-again', true]],
    ['unchanged, its message owed by a killed run', { state: KNOWN_SAME, message: true, messageDue: true }, ['unchanged', false, true, 'forget-and-decide-again', false]],
    ['unchanged, a job without message', { state: KNOWN_SAME }, ['unchanged', false, false, 'forget-and-decide-again', true]],
    ['new key, created, with a message', { state: { kind: 'unknown' }, platform: [], message: true }, ['created', true, true, 'fail', false]],
    // No write in a dry run, but the message it would send is reported: not settled in the loop.
    ['a dry run owes and clears nothing', { state: KNOWN_CHANGED, message: true, dryRun: true }, ['updated', false, false, 'forget-and-decide-again', false]],
    ['a dry run of a row with no message settles in the loop', { state: KNOWN_CHANGED, dryRun: true }, ['updated', false, false, 'forget-and-decide-again', true]],
    ['no state store: nothing journalled, a vanished contact fails the row', { state: undefined, platform: [old], message: true }, ['updated', false, false, 'fail', false]],
    ['two contacts under onDuplicate: fail', { state: { kind: 'unknown' }, platform: [old, twin], message: true }, ['failed', false, false, 'fail', false]],
  ])('%s', (_name, facts, expected) => {
    expect(rules(plan(facts))).toEqual(expected);
  });
});
