import { mappingFingerprint, rowHash } from '../../../src/pipeline/map/row-hash.js';
import { settlesByRowHash } from '../../../src/pipeline/row/row-lookahead.js';
import { columnField, makeJob } from '../../helpers/job-factory.js';

const HEADER = ['customer_id', 'first_name', 'plan', 'segments'];
const job = makeJob({
  fields: [columnField('firstName', 'first_name'), columnField('plan', 'plan', [{ kind: 'map', map: { pro: 'Pro' } }])],
  tags: { column: 'segments', separator: ';', static: ['crm'], remove: [], prune: false },
});
const base = mappingFingerprint(job, HEADER, '1.0.0');

describe('mappingFingerprint', () => {
  it('is the same for the same mapping, header and version, whatever else of the job differs', () => {
    const elsewhere = makeJob({
      ...job,
      name: 'other-name',
      connection: { ...job.connection, token: 'another-token', baseUrl: 'https://example.com/api' },
      input: { ...job.input, path: '/elsewhere/customers.csv' },
      concurrency: 32,
      mode: 'update',
    });
    expect(mappingFingerprint(elsewhere, [...HEADER], '1.0.0')).toBe(base);
  });

  it.each([
    ['a column moved', job, ['first_name', 'customer_id', 'plan', 'segments'], '1.0.0', undefined],
    ['a column renamed', job, ['customer_id', 'firstname', 'plan', 'segments'], '1.0.0', undefined],
    ['another version of contact-sync', job, HEADER, '1.0.1', undefined],
    ['another version of the phone library', job, HEADER, '1.0.0', '0.0.1'],
    ['another key field', makeJob({ ...job, key: { column: 'customer_id', field: 'crmid' } }), HEADER, '1.0.0', undefined],
    ['a value map entry', makeJob({ ...job, fields: [job.fields[0]!, columnField('plan', 'plan', [{ kind: 'map', map: { pro: 'PRO' } }])] }), HEADER, '1.0.0', undefined],
    ['a default', makeJob({ ...job, fields: [columnField('firstName', 'first_name', [{ kind: 'trim' }], 'n/a'), job.fields[1]!] }), HEADER, '1.0.0', undefined],
    ['empty values cleared', makeJob({ ...job, emptyValues: 'clear' }), HEADER, '1.0.0', undefined],
    ['a static tag', makeJob({ ...job, tags: { ...job.tags, static: ['crm', 'nightly'] } }), HEADER, '1.0.0', undefined],
    ['tags.prune', makeJob({ ...job, tags: { ...job.tags, prune: true } }), HEADER, '1.0.0', undefined],
  ])('changes with %s', (_what, changed, header, version, phoneLibrary: string | undefined) => {
    expect(mappingFingerprint(changed, header, version, phoneLibrary)).not.toBe(base);
  });

  it('never holds the token, in any form', () => {
    const withToken = makeJob({ ...job, connection: { ...job.connection, token: 'secret-token-123' } });
    expect(mappingFingerprint(withToken, HEADER, '1.0.0')).toBe(mappingFingerprint(makeJob({ ...job }), HEADER, '1.0.0'));
  });
});

describe('rowHash', () => {
  it('is stable, and differs with any cell, their order, or where a value splits into cells', () => {
    const cells = ['C1', 'Ann', 'pro', 'a;b'];
    expect(rowHash(base, [...cells])).toBe(rowHash(base, cells));
    const others = [
      ['C1', 'Ann ', 'pro', 'a;b'],
      ['C1', 'pro', 'Ann', 'a;b'],
      ['C1', 'Ann', 'pro', 'a', 'b'],
      ['C1,Ann', 'pro', 'a;b'],
      ['C1', 'Ann', 'pro', 'a;b', ''],
    ].map((other) => rowHash(base, other));
    expect(new Set([rowHash(base, cells), ...others]).size).toBe(others.length + 1);
    expect(rowHash(mappingFingerprint(job, HEADER, '2.0.0'), cells)).not.toBe(rowHash(base, cells));
  });
});

describe('settlesByRowHash', () => {
  const run = { dryRun: false, full: false };
  it('holds for a run that writes, trusts its store, in upsert or update mode, with no message', () => {
    expect(settlesByRowHash(makeJob({ state: 's.db' }), run)).toBe(true);
    expect(settlesByRowHash(makeJob({ state: 's.db', mode: 'update' }), run)).toBe(true);
  });
  it.each([
    ['a dry run', makeJob({ state: 's.db' }), { dryRun: true, full: false }],
    ['--full', makeJob({ state: 's.db' }), { dryRun: false, full: true }],
    ['no state store', makeJob({ state: false }), run],
    ['mode create', makeJob({ state: 's.db', mode: 'create' }), run],
    ['mode message', makeJob({ state: 's.db', mode: 'message' }), run],
    ['a message', makeJob({ state: 's.db', message: { when: 'always', type: 'text', text: 'Hi', quickReplies: [], forceCancelSurvey: false, repeat: false } }), run],
  ])('not for %s', (_what, which, flags) => {
    expect(settlesByRowHash(which, flags)).toBe(false);
  });
});
