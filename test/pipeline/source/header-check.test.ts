import type { Job, MessageSpec } from '../../../src/config/job-types.js';
import { assertHeader, checkHeader, columnsUsedByJob, HeaderMismatchError } from '../../../src/pipeline/source/header-check.js';
import { SourceError } from '../../../src/pipeline/source/source-error.js';
import { columnField, makeJob, templateField, valueField } from '../../helpers/job-factory.js';

const message = (overrides: Partial<MessageSpec>): MessageSpec => ({
  when: 'created',
  type: 'text',
  quickReplies: [],
  forceCancelSurvey: false,
  repeat: false,
  ...overrides,
});

const fullJob: Job = makeJob({
  key: { column: 'customer_id', field: 'customerid' },
  fields: [columnField('email', 'e_mail'), templateField('fullName', '{{first}} {{Last_Name}}'), valueField('source', 'crm')],
  tags: { column: 'segments', separator: ';', static: [], remove: [], prune: false },
  message: message({ text: 'Hi {{fullName}} {{ nickname }}', url: 'https://x/{{customerid}}', quickReplies: ['{{answer}}'], contactIdColumn: 'contact_id' }),
});

describe('columns a job uses', () => {
  test('key, fields, templates, tags and message columns, each once; message placeholders naming fields are not columns', () => {
    const job = makeJob({ ...fullJob, fields: [...fullJob.fields, columnField('firstName', 'first')] });
    expect(columnsUsedByJob(job)).toEqual(['customer_id', 'e_mail', 'first', 'Last_Name', 'segments', 'nickname', 'answer', 'contact_id']);
  });
});

describe('a whatsapp_template\'s columns', () => {
  test('its name, language and body name columns like any message template; a mapped field is not a column', () => {
    const job = makeJob({
      key: { column: 'customer_id', field: 'customerid' },
      fields: [columnField('firstName', 'first')],
      message: message({ type: 'whatsapp_template', template: { name: 'welcome_{{plan}}', language: '{{lang}}', body: 'Hi {{firstName}}, your code is {{code}}' } }),
    });
    expect(columnsUsedByJob(job)).toEqual(['customer_id', 'first', 'plan', 'lang', 'code']);
    expect(checkHeader(job, ['customer_id', 'first', 'plan', 'lang'], 'f.csv', 'jobs[0]').map((problem) => problem.paths)).toEqual([['jobs[0].message.template.body']]);
  });
});

describe('checkHeader', () => {
  test('a header with every column has no problem', () => {
    const header = ['customer_id', 'e_mail', 'first', 'Last_Name', 'segments', 'nickname', 'answer', 'contact_id', 'extra'];
    expect(checkHeader(fullJob, header, 'customers.csv', 'jobs[0]')).toEqual([]);
  });

  test('every missing column is reported at once, with its YAML path and the closest header name', () => {
    const header = ['customer_id', 'email', 'first', 'last_name', 'segments', 'contact_id'];
    const problems = checkHeader(fullJob, header, 'customers.csv', 'jobs[0]');
    expect(problems.map((problem) => problem.message)).toEqual([
      'customers.csv: column "e_mail" (jobs[0].fields.email) is not in the header (did you mean "email"?)',
      'customers.csv: column "Last_Name" (jobs[0].fields.fullName.template) is not in the header (did you mean "last_name"?)',
      expect.stringMatching(/^customers\.csv: column "nickname" \(jobs\[0\]\.message\.text\) is not in the header; the header has "customer_id", "email", .*"contact_id": fix the name/),
      expect.stringContaining('column "answer" (jobs[0].message.quickReplies[0])'),
    ]);
    expect(problems[0]).toMatchObject({ column: 'e_mail', paths: ['jobs[0].fields.email'], suggestion: 'email' });
  });

  test('a column used in several places is one problem listing every place', () => {
    const job = makeJob({ key: { column: 'id', field: 'customerid' }, fields: [columnField('customerid2', 'id')], tags: { column: 'id', separator: ';', static: [], remove: [], prune: false } });
    const problems = checkHeader(job, ['ID'], 'f.csv', 'jobs[1]');
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ column: 'id', suggestion: 'ID', paths: ['jobs[1].key.column', 'jobs[1].fields.customerid2', 'jobs[1].tags.column'] });
  });

  test('a case-only difference is suggested before a nearer typo', () => {
    const job = makeJob({ key: { column: 'Mail', field: 'email' } });
    expect(checkHeader(job, ['mails', 'MAIL'], 'f.csv')[0]?.suggestion).toBe('MAIL');
  });

  test('assertHeader throws a HeaderMismatchError (a SourceError) holding every problem', () => {
    const error = (() => {
      try {
        assertHeader(fullJob, ['customer_id'], 'customers.csv', 'jobs[0]');
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(HeaderMismatchError);
    expect(error).toBeInstanceOf(SourceError);
    expect(error).toMatchObject({ code: 'INPUT_HEADER_MISMATCH', file: 'customers.csv' });
    expect((error as HeaderMismatchError).problems.map((problem) => problem.column)).toEqual(['e_mail', 'first', 'Last_Name', 'segments', 'nickname', 'answer', 'contact_id']);
    expect((error as Error).message.split('\n')).toHaveLength(7);
  });

  test('assertHeader is silent when nothing is missing', () => {
    expect(() => assertHeader(makeJob(), ['customer_id'], 'f.csv')).not.toThrow();
  });
});
