/**
 * An id is never trusted across surfaces (docs/reliability.md, "Moving a connection from v1 to
 * v2"), as tables of the pure decisions that say so: what a row's decision gets from the store's
 * record of its key (`keyStateOf`), which contact the departed step acts on (`departedContact`),
 * and whether undo may write to a run's ids (`undoSurfaceRefusal`); and what `check` prints.
 */
import { type SurfaceName } from '../../src/api/platform-surface.js';
import { V1_SURFACE } from '../../src/api/v1/surface.js';
import { formatCheck, learntLimitsOf, type ConnectionCheck } from '../../src/cli/check-command.js';
import { departedContact } from '../../src/pipeline/departed/departure-plan.js';
import { decideRow, type KeyState } from '../../src/pipeline/row/decide.js';
import { keyStateOf } from '../../src/pipeline/row/key-facts.js';
import { undoSurfaceRefusal } from '../../src/pipeline/undo/undo-plan.js';
import type { ContactDraft } from '../../src/pipeline/map/contact-draft.js';
import { draftHash } from '../../src/state/draft-hash.js';
import type { IdSurface, KnownContact, StoredContact } from '../../src/state/known-contact.js';
import type { ContactsApi } from '../../src/api/contacts-api.js';

const contact: KnownContact = { id: '100', custom_fields: { customerid: 'C-1', firstName: 'Ada' }, tags: ['crm'] };

function stored(surface: IdSurface): StoredContact {
  return { key: 'C-1', surface, contact, jobTags: ['crm'], draftHash: 'h1', rowHash: 'r1', updatedAt: 0 };
}

describe('keyStateOf: the store’s id of a key is trusted only by a run on the surface it came from', () => {
  const known: KeyState = { kind: 'known', contact, draftHash: 'h1', jobTags: ['crm'], rowHash: 'r1' };
  const table: Array<[pending: boolean, recorded: IdSurface | 'none', run: SurfaceName, expected: KeyState]> = [
    [false, 'none', 'v1', { kind: 'unknown' }],
    [false, 'none', 'v2', { kind: 'unknown' }],
    [false, 'v1', 'v1', known],
    [false, 'v2', 'v2', known],
    // Another surface's id: matched again by the key field, as a key whose contact vanished.
    [false, 'v1', 'v2', { kind: 'stale' }],
    [false, 'v2', 'v1', { kind: 'stale' }],
    // A create whose answer was lost is searched whatever the surface.
    [true, 'none', 'v2', { kind: 'create-pending' }],
    [true, 'v1', 'v2', { kind: 'create-pending' }],
  ];
  it.each(table)('pending %s, id from %s, run on %s', (pending, recorded, run, expected) => {
    expect(keyStateOf(pending, recorded === 'none' ? undefined : stored(recorded), run)).toEqual(expected);
  });

  it('a key known by another surface’s id is searched in every mode, even where an unknown key is taken as new', () => {
    const draft: ContactDraft = { line: 2, key: 'C-1', keyField: 'customerid', fields: { firstName: 'Ada' }, tagsToAdd: ['crm'], tagsToRemove: [], templateValues: {} };
    for (const mode of ['upsert', 'create', 'update'] as const) {
      const state = keyStateOf(false, { ...stored('v1'), draftHash: draftHash(draft) }, 'v2');
      const facts = { draft, draftHash: draftHash(draft), mode, onDuplicate: 'fail' as const, dryRun: false, full: false, state, limits: V1_SURFACE };
      expect([mode, decideRow(facts).kind]).toEqual([mode, 'search']);
      // On its own surface, the same record settles the unchanged row with no call.
      const same = decideRow({ ...facts, state: keyStateOf(false, { ...stored('v1'), draftHash: draftHash(draft) }, 'v1') });
      expect(same.kind === 'plan' && same.plan.callFree).toBe(true);
    }
  });
});

describe('departedContact: the contact a departed key’s action goes to', () => {
  const found: KnownContact = { id: '555', custom_fields: { customerid: 'C-1' }, tags: [] };
  const table: Array<[recorded: IdSurface, run: SurfaceName, search: readonly KnownContact[] | undefined, expected: string]> = [
    ['v1', 'v1', undefined, 'act 100 unread'],
    ['v2', 'v2', undefined, 'act 100 unread'],
    ['v1', 'v2', undefined, 'search'],
    ['v1', 'v2', [found], 'act 555 read'],
    ['v2', 'v1', [found], 'act 555 read'],
    ['v1', 'v2', [], 'gone'],
    ['v1', 'v2', [found, { ...found, id: '556' }], 'several'],
  ];
  it.each(table)('id from %s, run on %s, search found %j', (recorded, run, search, expected) => {
    const decided = departedContact({ surface: recorded, contact }, run, search);
    const said = decided.kind === 'act' ? `act ${decided.contact.id} ${decided.read ? 'read' : 'unread'}` : decided.kind;
    expect(said).toBe(expected);
  });

  it('says why a key is left or forgotten, naming both surfaces', () => {
    expect(departedContact({ surface: 'v1', contact }, 'v2', [])).toEqual({
      kind: 'gone',
      reason: "no contact holds the key on API v2 (its id was API v1's); the state store forgot the key",
    });
    const several = departedContact({ surface: 'v1', contact }, 'v2', [found, found]);
    expect(several.kind === 'several' && several.reason).toBe(
      "not acted on: 2 contacts hold the key on API v2 (its id was API v1's, never used on v2); the next complete run tries again",
    );
  });
});

describe('undoSurfaceRefusal: undo writes only to the ids of a run of its own surface', () => {
  it.each([
    ['v1', 'v1', false],
    ['v2', 'v2', false],
    ['v1', 'v2', true],
    ['v2', 'v1', true],
  ] as const)('run on %s, undo on %s: refused %s', (run, undo, refused) => {
    expect(undoSurfaceRefusal({ id: 7, surface: run }, undo) !== undefined).toBe(refused);
  });

  it('names the run, both surfaces and the fix', () => {
    expect(undoSurfaceRefusal({ id: 7, surface: 'v1' }, 'v2')).toBe(
      "run 7 wrote through API v1, and this job's connection now speaks API v2: the contact ids in its journal are v1's and are never written to through v2; " +
        "undo it with the connection's `api: v1` (as when the run was made)",
    );
  });
});

describe('check says which surface answered, and the limits a client learnt', () => {
  const base: ConnectionCheck = { connection: 'main', baseUrl: 'https://api.example.test/v2', surface: 'v2', learntLimits: undefined, problem: undefined, latencyMs: 12 };

  it('prints the surface, and nothing of limits for a client that learns none', () => {
    expect(formatCheck({ ...base, surface: 'v1', baseUrl: 'https://api.example.test' })).toBe(
      'connection main (https://api.example.test): ok: API v1 answers, token accepted, not throttled, 12 ms',
    );
    expect(formatCheck({ ...base, learntLimits: [] })).toBe('connection main (https://api.example.test/v2): ok: API v2 answers, token accepted, not throttled, 12 ms');
    expect(formatCheck({ ...base, problem: 'the platform refused the token (401)' })).toBe(
      'connection main (https://api.example.test/v2): FAILED: the platform refused the token (401) (asked through API v2)',
    );
  });

  it('prints each limit learnt, per endpoint', () => {
    const learntLimits = [
      { endpoint: 'POST /contact/list', limit: 60, windowMs: 60_000 },
      { endpoint: 'GET /contact/{identifier}', limit: 5, windowMs: 1_500 },
    ];
    expect(formatCheck({ ...base, learntLimits })).toBe(
      'connection main (https://api.example.test/v2): ok: API v2 answers, token accepted, not throttled, 12 ms; limits learnt: POST /contact/list 60 per 60 s, GET /contact/{identifier} 5 per 1.5 s',
    );
  });

  it('reads the limits through the client’s learntLimits() hook, when it has one', () => {
    const learnt = [{ endpoint: 'POST /contact/list', limit: 60, windowMs: 60_000 }];
    const plain = {} as ContactsApi;
    expect(learntLimitsOf(plain)).toBeUndefined();
    expect(learntLimitsOf(Object.assign({} as ContactsApi, { learntLimits: () => learnt }))).toEqual(learnt);
  });
});
