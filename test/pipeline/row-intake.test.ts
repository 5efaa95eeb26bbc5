/**
 * The intake's rules (issue 35: a stage with no test of its own): each record of a real input file,
 * read ahead as a run reads it, classified once, in file order: another shard's, ended here with
 * no call (failed in mapping, decided by onDuplicateRows, unchanged on a re-run), or to dispatch;
 * every key read is noted for the departed step. The API it is given throws on any call: the
 * intake makes none.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { V1_SURFACE } from '../../src/api/v1/surface.js';
import type { ContactsApi } from '../../src/api/contacts-api.js';
import { DuplicateRowsStage } from '../../src/pipeline/kinds/duplicate-rows-stage.js';
import { KeySighting } from '../../src/pipeline/kinds/key-sighting.js';
import { mapRow } from '../../src/pipeline/map/map.js';
import { RowIntake, type IntakeDecision } from '../../src/pipeline/kinds/row-intake.js';
import type { KeyState } from '../../src/pipeline/row/decide.js';
import { RowLookahead } from '../../src/pipeline/row/row-lookahead.js';
import { settleWithoutCalls } from '../../src/pipeline/row/sync-row.js';
import type { ContactDraft } from '../../src/pipeline/map/contact-draft.js';
import { openCheckedSource } from '../../src/pipeline/source/checked-source.js';
import { draftHash } from '../../src/state/draft-hash.js';
import { StateStore } from '../../src/state/state-store.js';
import { columnField, makeJob } from '../helpers/job-factory.js';
import { makeStateTestDir, type StateTestDir } from '../state/state-test-dir.js';

/** Any call fails the test: the intake decides with what is known, it never asks the platform. */
const noCalls = new Proxy({} as ContactsApi, {
  // Its surface is read (the ids the store holds are trusted on it), never called.
  get: (_target, name) => {
    // What one call of the surface takes is a fact of the port, not a call.
    if (name === 'surface') return V1_SURFACE;
    throw new Error(`the intake called the API (${String(name)})`);
  },
});

describe('RowIntake', () => {
  let dir: StateTestDir;
  let store: StateStore;
  const csv = ['customer_id,first_name', 'C1,Ann', 'C2,Bob', 'C3,Cy', ',Dee', 'C3,Cyd'].join('\n');

  beforeEach(() => {
    dir = makeStateTestDir();
  });

  afterEach(() => {
    store.close();
    dir.remove();
  });

  /** Each record's decision, in file order, as `line: kind outcome/key`. */
  async function classify(options: { idle: boolean; settles?: boolean; mine?: (key: string) => boolean }): Promise<{ decisions: string[]; seen: KeySighting }> {
    const path = join(dir.dir, 'customers.csv');
    writeFileSync(path, `${csv}\n`);
    const job = makeJob({ input: { path, delimiter: 'auto', encoding: 'utf-8' }, fields: [columnField('firstName', 'first_name')], onDuplicateRows: 'last' });
    store = StateStore.open(dir.statePath(), { job: job.name, keyField: job.key.field });
    // C1 was written by an earlier run with this very row.
    const earlier = mapRow({ kind: 'row', line: 2, values: { customer_id: 'C1', first_name: 'Ann' }, cells: ['C1', 'Ann'] }, job);
    if (!earlier.ok) throw new Error('the row did not map');
    store.recordConfirmed('C1', { contactId: '101', surface: 'v1', fields: { customerid: 'C1', firstName: 'Ann' }, tagsAdded: [], draftHash: draftHash(earlier.draft) });
    const mine = options.mine ?? (() => true);
    const duplicates = await DuplicateRowsStage.open(job);
    const source = await openCheckedSource(job);
    const ahead = new RowLookahead({ job, state: store, surface: 'v1', mine, busy: () => false });
    const seen = new KeySighting();
    const context = { api: noCalls, job, dryRun: false, state: store };
    // `run`'s rule for a row that needs no call; none for a kind that reads every key (reconcile).
    const settle = options.settles === false ? undefined : (draft: ContactDraft, cells: string[], known: KeyState | undefined) => settleWithoutCalls(draft, cells, context, known);
    const intake = new RowIntake({ job, ahead, duplicates, mine, seen, header: source.header, settle });
    const decisions: string[] = [];
    for await (const record of ahead.records(source.records)) decisions.push(`${record.line}: ${decisionOf(intake.classify(record, options.idle))}`);
    await source.close();
    return { decisions, seen };
  }

  it('classifies each record once, in file order, and notes every key read', async () => {
    const { decisions, seen } = await classify({ idle: true });
    expect(decisions).toEqual([
      // Known with this row's draft: settled here, no call.
      '2: ended unchanged',
      '3: dispatch C2',
      // onDuplicateRows: last: the last line of C3 is the one applied.
      '4: ended skipped',
      '5: ended failed KEY_MISSING',
      '6: dispatch C3',
    ]);
    expect(['C1', 'C2', 'C3', ''].map((key) => seen.has(key))).toEqual([true, true, true, false]);
  });

  it('settles a row that needs no call only when no row is in flight, so the reports keep their order', async () => {
    const { decisions } = await classify({ idle: false });
    expect(decisions[0]).toBe('2: dispatch C1');
  });

  it('settles no row without the API when the kind reads every key (reconcile)', async () => {
    const { decisions } = await classify({ idle: true, settles: false });
    expect(decisions[0]).toBe('2: dispatch C1');
  });

  it('another shard\'s rows are not this run\'s, but their keys are noted', async () => {
    const { decisions, seen } = await classify({ idle: true, mine: (key) => key !== 'C2' });
    expect([decisions[1], seen.has('C2')]).toEqual(['3: not-mine', true]);
  });
});

function decisionOf(decision: IntakeDecision): string {
  if (decision.kind === 'not-mine') return 'not-mine';
  if (decision.kind === 'dispatch') return `dispatch ${decision.draft.key}`;
  return ['ended', decision.result.outcome, decision.result.errorCode].filter((part) => part !== '').join(' ');
}
