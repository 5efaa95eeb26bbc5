import { mappingFingerprint, rowHash } from '../../../src/pipeline/map/row-hash.js';
import { RowLookahead } from '../../../src/pipeline/row/row-lookahead.js';
import type { SourceRecord, SourceRow } from '../../../src/pipeline/source/source-record.js';
import { StateStore } from '../../../src/state/state-store.js';
import { makeJob } from '../../helpers/job-factory.js';
import { makeStateTestDir, type StateTestDir } from '../../state/state-test-dir.js';

function row(key: string, line: number): SourceRow {
  return { kind: 'row', line, values: { customer_id: key }, cells: [key] };
}

async function* source(records: readonly SourceRecord[]): AsyncGenerator<SourceRecord> {
  for (const record of records) yield await Promise.resolve(record);
}

describe('RowLookahead', () => {
  let dir: StateTestDir;
  let store: StateStore;
  const job = makeJob();

  beforeEach(() => {
    dir = makeStateTestDir();
    store = StateStore.open(dir.statePath(), { job: job.name, keyField: job.key.field });
    store.recordConfirmed('K1', { contactId: '101', surface: 'v1', fields: { firstName: 'Ann' }, tagsAdded: ['vip'], draftHash: 'h1' });
    store.markCreatePending('K3');
  });

  afterEach(() => {
    store.close();
    dir.remove();
  });

  it('gives each record in order, mapped ahead, and the store answer once to the first row of a key', async () => {
    const malformed: SourceRecord = { kind: 'malformed', line: 6, code: 'CSV_MALFORMED', message: 'x', cells: [] };
    const records = [row('K1', 2), row('K2', 3), row('K1', 4), row('K3', 5), malformed];
    const ahead = new RowLookahead({ job, state: store, surface: 'v1', mine: () => true, busy: () => false, rows: 3 });
    const seen: Array<[number, unknown]> = [];
    for await (const record of ahead.records(source(records))) {
      if (record.kind !== 'row') {
        seen.push([record.line, 'malformed']);
        continue;
      }
      const mapped = ahead.mapped(record);
      expect(mapped).toMatchObject({ ok: true, draft: { key: record.values.customer_id, line: record.line } });
      seen.push([record.line, mapped.ok ? ahead.take(mapped.draft.key)?.state : 'unmapped']);
    }
    expect(seen).toEqual([
      [2, { kind: 'known', contact: { id: '101', custom_fields: { firstName: 'Ann' }, tags: ['vip'] }, draftHash: 'h1', jobTags: ['vip'], rowHash: null }],
      [3, { kind: 'unknown' }],
      // The second row of K1 in the batch: no answer, it reads the store itself.
      [4, undefined],
      // Next batch: K3 has a create pending.
      [5, { kind: 'create-pending' }],
      [6, 'malformed'],
    ]);
  });

  it('reads no key that has a row running or waiting, nor another shard\'s', async () => {
    const ahead = new RowLookahead({ job, state: store, surface: 'v1', mine: (key) => key !== 'K2', busy: (key) => key === 'K1' });
    const answers: unknown[] = [];
    for await (const record of ahead.records(source([row('K1', 2), row('K2', 3), row('K4', 4)]))) {
      const mapped = ahead.mapped(record as SourceRow);
      answers.push(mapped.ok ? ahead.take(mapped.draft.key)?.state : 'unmapped');
    }
    expect(answers).toEqual([undefined, undefined, { kind: 'unknown' }]);
  });

  it('answers with no state for a job without a store, and nothing when the store cannot be read', async () => {
    const without = new RowLookahead({ job, state: undefined, surface: 'v1', mine: () => true, busy: () => false });
    const answers: unknown[] = [];
    for await (const record of without.records(source([row('K1', 2)]))) {
      const known = without.take((record as SourceRow).values.customer_id!);
      answers.push([known !== undefined, known?.state]);
    }
    // One answer, with no state in it (the loop ran: an empty list would fail here).
    expect(answers).toEqual([[true, undefined]]);
    store.close();
    const closed = new RowLookahead({ job, state: store, surface: 'v1', mine: () => true, busy: () => false });
    const unread: unknown[] = [];
    for await (const record of closed.records(source([row('K1', 2)]))) unread.push(closed.take((record as SourceRow).values.customer_id!));
    expect(unread).toEqual([undefined]);
  });

  it('closes the input when the loop stops early', async () => {
    let closed = false;
    async function* input(): AsyncGenerator<SourceRecord> {
      try {
        for (let line = 2; ; line++) yield await Promise.resolve(row(`K${line}`, line));
      } finally {
        closed = true;
      }
    }
    const ahead = new RowLookahead({ job, state: store, surface: 'v1', mine: () => true, busy: () => false, rows: 4 });
    for await (const record of ahead.records(input())) if (record.line === 3) break;
    expect(closed).toBe(true);
  });

  it('settles a row by its row hash once, for the first row of its key, only when asked to and the key is alone', async () => {
    const fingerprint = mappingFingerprint(job, ['customer_id'], '1.0.0');
    store.recordConfirmed('K5', { contactId: '105', surface: 'v1', draftHash: 'h5', rowHash: rowHash(fingerprint, ['K5']) });
    store.recordConfirmed('K6', { contactId: '106', surface: 'v1', draftHash: 'h6', rowHash: rowHash(fingerprint, ['K6-old']) });
    store.recordConfirmed('K7', { contactId: '107', surface: 'v1', draftHash: 'h7', rowHash: rowHash(fingerprint, ['K7']) });
    const records = [row('K5', 2), row('K5', 3), row('K6', 4), row('K7', 5)];
    const settled = async (quick: boolean, alone: (key: string) => boolean): Promise<unknown[]> => {
      const ahead = new RowLookahead({ job, state: store, surface: 'v1', mine: () => true, busy: () => false, fingerprint, quick, alone });
      const answers: unknown[] = [];
      for await (const record of ahead.records(source(records))) answers.push(ahead.quick(record as SourceRow) ?? ahead.mapped(record as SourceRow).ok);
      return answers;
    };
    // K5's second row finds the answer taken; K6's stored hash is another row's.
    expect(await settled(true, () => true)).toEqual([{ key: 'K5', contactId: '105' }, true, true, { key: 'K7', contactId: '107' }]);
    expect(await settled(true, (key) => key !== 'K7')).toEqual([{ key: 'K5', contactId: '105' }, true, true, true]);
    expect(await settled(false, () => true)).toEqual([true, true, true, true]);

    // Only the brief of a key to settle was read: `take` hands no half answer out, the row reads for itself.
    const ahead = new RowLookahead({ job, state: store, surface: 'v1', mine: () => true, busy: () => false, fingerprint, quick: true });
    const taken: unknown[] = [];
    for await (const record of ahead.records(source([row('K7', 2), row('K6', 3)]))) taken.push(ahead.take((record as SourceRow).values.customer_id!)?.state?.kind);
    expect(taken).toEqual([undefined, 'known']);
  });

  it('gives a mapped draft its row hash, and none without a fingerprint', async () => {
    const fingerprint = mappingFingerprint(job, ['customer_id'], '1.0.0');
    const hashes: unknown[] = [];
    for (const options of [{ fingerprint }, {}]) {
      const ahead = new RowLookahead({ job, state: store, surface: 'v1', mine: () => true, busy: () => false, ...options });
      for await (const record of ahead.records(source([row('K9', 2)]))) {
        const mapped = ahead.mapped(record as SourceRow);
        hashes.push(mapped.ok ? mapped.draft.rowHash : 'unmapped');
      }
    }
    expect(hashes).toEqual([rowHash(fingerprint, ['K9']), undefined]);
  });
});
