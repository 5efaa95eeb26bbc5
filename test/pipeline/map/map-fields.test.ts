import type { FieldSpec, Job } from '../../../src/config/job-types.js';
import { keyOfMappableRow, mapRow } from '../../../src/pipeline/map/map.js';
import type { ContactDraft, RowError } from '../../../src/pipeline/map/contact-draft.js';
import type { SourceRow } from '../../../src/pipeline/source/source-record.js';
import { columnField, makeJob, templateField, valueField } from '../../helpers/job-factory.js';

function row(values: Record<string, string>, line = 7): SourceRow {
  return { kind: 'row', line, values, cells: Object.values(values) };
}

function draftOf(values: Record<string, string>, job: Job): ContactDraft {
  const result = mapRow(row({ customer_id: 'C-1', ...values }), job);
  if (!result.ok) throw new Error(`expected a draft, got ${result.error.code}: ${result.error.message}`);
  return result.draft;
}

function errorOf(values: Record<string, string>, job: Job): RowError {
  const result = mapRow(row({ customer_id: 'C-1', ...values }), job);
  if (result.ok) throw new Error('expected a row error');
  return result.error;
}

describe('field values', () => {
  test.each<[string, FieldSpec, Record<string, string>, Record<string, string>]>([
    ['a column, trimmed', columnField('firstName', 'first_name'), { first_name: '  Ann ' }, { firstName: 'Ann' }],
    ['a column without trim keeps its spaces', columnField('firstName', 'first_name', []), { first_name: ' Ann ' }, { firstName: ' Ann ' }],
    ['a constant value', valueField('source', 'crm'), {}, { source: 'crm' }],
    ['a template of trimmed cells', templateField('fullName', '{{first_name}} {{ last_name }}'), { first_name: ' Ann ', last_name: 'Lee ' }, { fullName: 'Ann Lee' }],
    ['a template with a column repeated', templateField('tag', '{{a}}-{{a}}'), { a: 'x' }, { tag: 'x-x' }],
    ['a template whose cells are empty is empty (then left out)', templateField('fullName', '{{first_name}} {{last_name}}'), { first_name: '', last_name: ' ' }, {}],
    ['transforms after the source', columnField('email', 'email', [{ kind: 'trim' }, { kind: 'lowercase' }]), { email: ' ANN@X.COM ' }, { email: 'ann@x.com' }],
    ['a map transform', columnField('gender', 'g', [{ kind: 'trim' }, { kind: 'map', map: { M: 'male' } }]), { g: 'M ' }, { gender: 'male' }],
    ['default when empty after transforms', columnField('locale', 'locale', [{ kind: 'trim' }], 'en'), { locale: '   ' }, { locale: 'en' }],
    ['default not used when there is a value', columnField('locale', 'locale', [{ kind: 'trim' }], 'en'), { locale: 'fr' }, { locale: 'fr' }],
    ['an empty cell is left out', columnField('firstName', 'first_name'), { first_name: '' }, {}],
    ['a formula-like value is not changed', columnField('note', 'note'), { note: '=HYPERLINK("x")' }, { note: '=HYPERLINK("x")' }],
    ['values starting with + - @ are not changed', templateField('note', '{{a}}|{{b}}|{{c}}', []), { a: '+1', b: '-2', c: '@x' }, { note: '+1|-2|@x' }],
  ])('%s', (_name, spec, values, expected) => {
    expect(draftOf(values, makeJob({ fields: [spec] })).fields).toEqual(expected);
  });

  test('emptyValues: clear writes "" for an empty value', () => {
    const job = makeJob({ emptyValues: 'clear', fields: [columnField('firstName', 'first_name'), columnField('lastName', 'last_name')] });
    expect(draftOf({ first_name: ' ', last_name: 'Lee' }, job).fields).toEqual({ firstName: '', lastName: 'Lee' });
  });

  test('the key field is not among the fields; it is the key', () => {
    const draft = draftOf({ first_name: 'Ann' }, makeJob({ fields: [columnField('firstName', 'first_name')] }));
    expect(draft).toMatchObject({ line: 7, key: 'C-1', keyField: 'customerid', fields: { firstName: 'Ann' } });
  });

  test('templateValues hold the columns, the mapped fields and the key', () => {
    const job = makeJob({ fields: [columnField('firstName', 'first_name'), valueField('source', 'crm')] });
    expect(draftOf({ first_name: ' Ann ', city: 'Oslo' }, job).templateValues).toEqual({
      customer_id: 'C-1',
      first_name: ' Ann ',
      city: 'Oslo',
      firstName: 'Ann',
      source: 'crm',
      customerid: 'C-1',
    });
  });
});

describe('field errors fail the row with the code, the column, the value and the line', () => {
  test.each<[string, FieldSpec, Record<string, string>, RowError['code'], string[]]>([
    ['a bad email', columnField('email', 'e_mail', [{ kind: 'email' }]), { e_mail: 'ann@' }, 'INVALID_EMAIL', ['line 7', 'column "e_mail"', 'field email', '"ann@"']],
    ['a bad phone', columnField('phone', 'tel', [{ kind: 'phone', defaultCountry: 'GB' }]), { tel: '12ab' }, 'INVALID_PHONE', ['line 7', 'column "tel"', '"12ab"']],
    ['a bad phone from a template', templateField('phone', '{{cc}}{{n}}', [{ kind: 'phone' }]), { cc: '+44', n: '12' }, 'INVALID_PHONE', ['line 7', 'field phone', '{{cc}}{{n}}', '"+4412"']],
  ])('%s', (_name, spec, values, code, parts) => {
    const error = errorOf(values, makeJob({ fields: [spec] }));
    expect(error).toMatchObject({ line: 7, code });
    for (const part of parts) expect(error.message).toContain(part);
  });

  test('an invalid value that a default would replace is still an error', () => {
    const spec = columnField('email', 'email', [{ kind: 'email' }], 'none@example.com');
    expect(errorOf({ email: 'nope' }, makeJob({ fields: [spec] })).code).toBe('INVALID_EMAIL');
  });
});

describe('onInvalid: skip-field writes the row without the field and names it', () => {
  const skipping = (spec: FieldSpec): FieldSpec => ({ ...spec, onInvalid: 'skip-field' });
  const job = makeJob({ fields: [columnField('firstName', 'first'), skipping(columnField('email', 'e_mail', [{ kind: 'email' }])), skipping(columnField('phone', 'tel', [{ kind: 'phone', defaultCountry: 'GB' }]))] });

  test.each<[string, Record<string, string>, Record<string, string>, Array<[string, string]>]>([
    ['both bad: both skipped, the rest written', { first: 'Ann', e_mail: 'ann@', tel: '12ab' }, { firstName: 'Ann' }, [['email', 'INVALID_EMAIL'], ['phone', 'INVALID_PHONE']]],
    ['one bad', { first: 'Ann', e_mail: 'ann@example.com', tel: '12ab' }, { firstName: 'Ann', email: 'ann@example.com' }, [['phone', 'INVALID_PHONE']]],
    ['none bad: nothing skipped', { first: 'Ann', e_mail: 'ann@example.com', tel: '07946 012345' }, { firstName: 'Ann', email: 'ann@example.com', phone: '+447946012345' }, []],
  ])('%s', (_name, values, fields, skipped) => {
    const draft = draftOf(values, job);
    expect(draft.fields).toEqual(fields);
    expect((draft.fieldsSkipped ?? []).map((skip) => [skip.field, skip.code])).toEqual(skipped);
    for (const skip of draft.fieldsSkipped ?? []) expect(skip.reason).not.toBe('');
  });

  test('the first pass of onDuplicateRows takes such a row as mappable', () => {
    expect(keyOfMappableRow(row({ customer_id: 'C-1', first: 'A', e_mail: 'bad', tel: '' }), job)).toBe('C-1');
    expect(keyOfMappableRow(row({ customer_id: 'C-1', e_mail: 'bad' }), makeJob({ fields: [columnField('email', 'e_mail', [{ kind: 'email' }])] }))).toBeUndefined();
  });
});
