import { describeLines, describePolicy, foldDraft, verdict, type KeyGroup } from '../../../src/pipeline/map/duplicate-rows.js';
import { keyOfMappableRow, mapRow } from '../../../src/pipeline/map/map.js';
import { KeyTable } from '../../../src/pipeline/source/key-table.js';
import { RepeatedKeys } from '../../../src/pipeline/source/repeated-keys.js';
import type { ContactDraft } from '../../../src/pipeline/map/contact-draft.js';
import type { SourceRow } from '../../../src/pipeline/source/source-record.js';
import { columnField, makeJob } from '../../helpers/job-factory.js';

const GROUP: KeyGroup = { first: 2, last: 9, count: 3, lines: [2, 5, 9] };

describe('onDuplicateRows: the winner of a key on lines 2, 5 and 9', () => {
  test.each([
    ['last', [2, 5, 9], ['skip: superseded by line 9 (onDuplicateRows: last)', 'skip: superseded by line 9 (onDuplicateRows: last)', 'apply']],
    ['first', [2, 5, 9], ['apply', 'skip: superseded by line 2 (onDuplicateRows: first)', 'skip: superseded by line 2 (onDuplicateRows: first)']],
    ['merge', [2, 5, 9], ['fold: merged into line 9 (onDuplicateRows: merge)', 'fold: merged into line 9 (onDuplicateRows: merge)', 'apply-merged']],
  ] as const)('%s', (policy, lines, expected) => {
    const got = lines.map((line) => verdict(policy, GROUP, line, 'K')).map((v) => ('message' in v ? `${v.kind}: ${v.message}` : v.kind));
    expect(got).toEqual(expected);
  });

  // Issue 41: a winner that fails on its own (a bad email) is still the winner; no other row is written in its place.
  test.each([
    ['last', { ...GROUP, lastFails: true }, [2, 5, 9], ['skip: superseded by line 9 (onDuplicateRows: last), which fails: no row of key "K" is written until line 9 is fixed', 'skip: superseded by line 9 (onDuplicateRows: last), which fails: no row of key "K" is written until line 9 is fixed', 'apply']],
    ['first', { ...GROUP, firstFails: true }, [2, 5, 9], ['apply', 'skip: superseded by line 2 (onDuplicateRows: first), which fails: no row of key "K" is written until line 2 is fixed', 'skip: superseded by line 2 (onDuplicateRows: first), which fails: no row of key "K" is written until line 2 is fixed']],
    ['last, the first row failing', { ...GROUP, firstFails: true }, [2, 5, 9], ['skip: superseded by line 9 (onDuplicateRows: last)', 'skip: superseded by line 9 (onDuplicateRows: last)', 'apply']],
    ['merge', { ...GROUP, lastFails: true }, [2, 5, 9], ['fold: merged into line 9 (onDuplicateRows: merge), which fails: no row of key "K" is written until line 9 is fixed', 'fold: merged into line 9 (onDuplicateRows: merge), which fails: no row of key "K" is written until line 9 is fixed', 'apply-merged']],
  ] as const)('a failing winner, %s', (name, group, lines, expected) => {
    const policy = name.startsWith('last') ? 'last' : name === 'first' ? 'first' : 'merge';
    const got = lines.map((line) => verdict(policy, group, line, 'K')).map((v) => ('message' in v ? `${v.kind}: ${v.message}` : v.kind));
    expect(got).toEqual(expected);
  });

  it('fail: every row fails, naming all the lines and the fix', () => {
    for (const line of [2, 5, 9]) {
      const v = verdict('fail', GROUP, line, 'K');
      expect(v.kind).toBe('fail');
      expect('message' in v && v.message).toBe(
        'key "K" is on lines 2, 5 and 9 (onDuplicateRows: fail), so none of them is written; fix the export so the key is on one row, or set onDuplicateRows to last, first or merge',
      );
    }
  });

  it('names a long group by its count, the first lines kept and the last', () => {
    expect(describeLines({ first: 2, last: 900, count: 40, lines: [2, 3, 4] })).toBe('40 lines: 2, 3, 4, ... and 900');
    expect(describeLines({ first: 2, last: 3, count: 2, lines: [2, 3] })).toBe('lines 2 and 3');
  });

  test.each([
    ['last', 'line 9 is applied, the 2 other rows are skipped (onDuplicateRows: last)'],
    ['first', 'line 2 is applied, the 2 other rows are skipped (onDuplicateRows: first)'],
    ['merge', 'the 3 rows are merged into line 9 (onDuplicateRows: merge)'],
    ['fail', 'the 3 rows fail with DUPLICATE_ROWS (onDuplicateRows: fail)'],
  ] as const)('validate says what %s does', (policy, text) => {
    expect(describePolicy(policy, GROUP)).toBe(text);
  });
});

function draft(line: number, fields: Record<string, string>, tagsToAdd: string[], tagsToRemove: string[] = []): ContactDraft {
  return { line, key: 'K', keyField: 'customerid', fields, tagsToAdd, tagsToRemove, templateValues: { note: `row ${line}`, ...fields, customerid: 'K' } };
}

describe('merge: the fold of a key\'s rows in file order', () => {
  it('keeps the last non-empty value of each field, the union of the tags, and the last row\'s line and values', () => {
    const a = draft(2, { firstName: 'Ann', plan: 'basic', city: '' }, ['a', 'crm'], ['lead']);
    const b = draft(5, { firstName: 'Anna', city: 'Oslo' }, ['b', 'crm']);
    const c = draft(9, { plan: '', city: '' }, ['lead'], ['old']);

    const merged = foldDraft(foldDraft(a, b), c);

    expect(merged.line).toBe(9);
    expect(merged.fields).toEqual({ firstName: 'Anna', plan: 'basic', city: 'Oslo' });
    expect(merged.tagsToAdd).toEqual(['a', 'crm', 'b', 'lead']);
    // "lead" is asked for by the last row: it is not removed.
    expect(merged.tagsToRemove).toEqual(['old']);
    expect({ ...merged.templateValues }).toEqual({ note: 'row 9', firstName: 'Anna', plan: 'basic', city: 'Oslo', customerid: 'K' });
  });

  it('a field skipped on one row (onInvalid: skip-field) and given by another is written; one no row gave stays skipped, once', () => {
    const skip = (field: string, line: number) => ({ field, code: 'INVALID_EMAIL', reason: `bad on line ${line}` });
    const a = { ...draft(2, { email: 'ann@example.com' }, []), fieldsSkipped: [skip('phone', 2)] };
    const b = { ...draft(5, {}, []), fieldsSkipped: [skip('email', 5), skip('phone', 5)] };
    const merged = foldDraft(a, b);
    expect(merged.fields).toEqual({ email: 'ann@example.com' });
    expect(merged.fieldsSkipped).toEqual([skip('phone', 5)]);
    expect(foldDraft(draft(2, {}, []), draft(3, {}, [])).fieldsSkipped).toBeUndefined();
  });

  it('a phone written without its extension is named when the fold keeps that row\'s phone, not when another row\'s replaces it', () => {
    const note = (line: number) => ({ field: 'phone', extension: String(line), value: `+1 212 555 0100 x${line}` });
    const withExtension = (line: number) => ({ ...draft(line, { phone: '+12125550100' }, []), phoneExtensions: [note(line)] });
    expect(foldDraft(withExtension(2), withExtension(5)).phoneExtensions).toEqual([note(5)]);
    expect(foldDraft(withExtension(2), draft(5, { phone: '+6591234567' }, [])).phoneExtensions).toBeUndefined();
    expect(foldDraft(withExtension(2), draft(5, { firstName: 'Ann' }, [])).phoneExtensions).toEqual([note(2)]);
    expect(foldDraft(draft(2, { phone: '+6591234567' }, []), withExtension(5)).phoneExtensions).toEqual([note(5)]);
  });

  it('rows of one key that spell a tag in two cases are named as one row\'s would be (the run warns)', () => {
    expect(foldDraft(draft(2, {}, ['VIP', 'news']), draft(5, {}, ['vip'])).tagCaseVariants).toEqual(['VIP', 'vip']);
    expect(foldDraft(draft(2, {}, ['vip']), draft(5, {}, ['vip', 'news'])).tagCaseVariants).toBeUndefined();
  });

  it('an empty value (emptyValues: clear) stands when no row has a value', () => {
    expect(foldDraft(draft(2, { plan: '' }, []), draft(3, { plan: '' }, [])).fields).toEqual({ plan: '' });
  });
});

describe('the first pass (RepeatedKeys)', () => {
  it('groups the rows of a key, and the second pass sees each group from its first row', () => {
    const keys = new RepeatedKeys();
    const rows: Array<[number, string]> = [[2, 'A'], [3, 'B'], [4, 'A'], [5, 'C'], [6, 'A']];
    for (const [line, key] of rows) keys.note(line, key);
    const groups = rows.map(([line, key]) => keys.groupOf(line, key));
    expect(groups).toEqual([
      { first: 2, last: 6, count: 3, lines: [2, 4, 6] },
      undefined,
      { first: 2, last: 6, count: 3, lines: [2, 4, 6] },
      undefined,
      { first: 2, last: 6, count: 3, lines: [2, 4, 6] },
    ]);
  });

  it('a row that will fail is one of its key\'s rows, noted as failing when it is the first or the last (issue 41)', () => {
    const keys = new RepeatedKeys();
    const rows: Array<[number, string, boolean]> = [[2, 'A', true], [3, 'B', false], [4, 'A', false], [5, 'B', false], [6, 'A', true], [7, 'B', true], [8, 'B', false]];
    for (const [line, key, fails] of rows) keys.note(line, key, fails);
    const [a, b] = rows.map(([line, key]) => keys.groupOf(line, key));
    expect(a).toEqual({ first: 2, last: 6, count: 3, lines: [2, 4, 6], firstFails: true, lastFails: true });
    expect(b).toEqual({ first: 3, last: 8, count: 4, lines: [3, 5, 7, 8] });
  });

  it('keys that share a fingerprint are not grouped: only rows of the same real key are', () => {
    // Every key has the same fingerprint.
    const keys = new RepeatedKeys(new KeyTable(() => [7, 7]));
    const rows: Array<[number, string]> = [[2, 'A'], [3, 'B'], [4, 'C'], [5, 'C'], [6, 'B'], [7, 'D']];
    for (const [line, key] of rows) keys.note(line, key);
    expect(rows.map(([line, key]) => keys.groupOf(line, key))).toEqual([
      undefined,
      { first: 3, last: 6, count: 2, lines: [3, 6] },
      { first: 4, last: 5, count: 2, lines: [4, 5] },
      { first: 4, last: 5, count: 2, lines: [4, 5] },
      { first: 3, last: 6, count: 2, lines: [3, 6] },
      undefined,
    ]);
  });

  it('finds no repeat across 200,000 distinct keys (no row is grouped with another key\'s)', () => {
    const keys = new RepeatedKeys();
    for (let i = 0; i < 200_000; i++) keys.note(i + 2, `C${i}`);
    expect(keys.none).toBe(true);
  });
});

describe('keyOfMappableRow', () => {
  const job = makeJob({ fields: [columnField('email', 'email', [{ kind: 'trim' }, { kind: 'email' }]), columnField('plan', 'plan')] });
  const row = (values: Record<string, string>): SourceRow => ({ kind: 'row', line: 7, values, cells: Object.values(values) });

  test.each([
    [{ customer_id: ' C1 ', email: 'a@example.com', plan: 'x' }],
    [{ customer_id: 'C1', email: 'not-an-email', plan: 'x' }],
    [{ customer_id: '', email: 'a@example.com', plan: 'x' }],
    [{ customer_id: 'C1', email: '', plan: '' }],
  ])('gives the key mapRow gives, or none when mapRow fails the row: %o', (values) => {
    const mapped = mapRow(row(values), job);
    expect(keyOfMappableRow(row(values), job)).toBe(mapped.ok ? mapped.draft.key : undefined);
  });
});
