import { createMasker, jobMasker, maskFieldValue, maskInText, maskValue, NO_MASK, ruleOf, type MaskRule } from '../../../src/pipeline/report/mask.js';

describe('maskValue', () => {
  it.each<[string, MaskRule, string]>([
    ['jane.doe@example.com', 'email', 'j•••@example.com'],
    ['j@example.com', 'email', 'j•••@example.com'],
    ['Ölaf@beispiel.de', 'email', 'Ö•••@beispiel.de'],
    ['+6591234567', 'phone', '+65•••••567'],
    ['+12125550100', 'phone', '+1•••••100'],
    ['+447911123456', 'phone', '+44•••••456'],
    ['+35312345678', 'phone', '+353•••••678'],
    ['+6512', 'phone', '+65•••••'],
    ['Jane', 'name', 'J•'],
    ['Ålesund-Jones', 'name', 'Å•'],
    ['😀bc', 'name', '😀•'],
    ['C0001', 'other', 'C•••'],
    ['x', 'other', 'x•••'],
    ['', 'email', ''],
    ['', 'phone', ''],
    ['', 'name', ''],
    ['', 'other', ''],
    // A value not of its rule's shape is masked as any other.
    ['not an email', 'email', 'n•••'],
    ['9123 4567', 'phone', '9•••'],
  ])('%s by %s -> %s', (value, rule, shown) => {
    expect(maskValue(value, rule)).toBe(shown);
  });

  it('shows no length of the hidden part: values of different lengths mask alike', () => {
    expect(maskValue('jo@example.com', 'email')).toBe(maskValue('johnathan.smith@example.com', 'email'));
    expect(maskValue('+6591234567', 'phone')).toBe(maskValue('+659123999567', 'phone'));
    expect(maskValue('Jo', 'name')).toBe(maskValue('Johanna', 'name'));
    expect(maskValue('C1', 'other')).toBe(maskValue('C123456789', 'other'));
  });
});

describe('ruleOf', () => {
  it.each<[string, string, MaskRule]>([
    ['email', 'jane@example.com', 'email'],
    ['email', 'garbage', 'email'],
    ['phone', '+6591234567', 'phone'],
    ['firstName', 'Jane', 'name'],
    ['lastName', 'Doe', 'name'],
    ['workEmail', 'jane@example.com', 'email'],
    ['mobile', '+6591234567', 'phone'],
    ['customerid', 'C0001', 'other'],
  ])('%s = %s is masked as %s', (field, value, rule) => {
    expect(ruleOf(field, value)).toBe(rule);
  });

  it('masks a field by its rule', () => {
    expect(maskFieldValue('firstName', 'Jane')).toBe('J•');
    expect(maskFieldValue('email', 'jane.doe@example.com')).toBe('j•••@example.com');
  });
});

describe('maskInText', () => {
  it.each<[string, string]>([
    ['updateContact PUT /v2/contact/email:jane.doe%40example.com: server error', 'updateContact PUT /v2/contact/email:j•••@example.com: server error'],
    ['GET /v2/contact/phone:%2B6591234567 failed', 'GET /v2/contact/phone:+65•••••567 failed'],
    ['the key jane.doe@example.com and +6591234567', 'the key j•••@example.com and +65•••••567'],
    ['nothing personal: 12 rows, exit 1, 2026-11-29T00:12:28+00:00', 'nothing personal: 12 rows, exit 1, 2026-11-29T00:12:28+00:00'],
    ['already j•••@example.com and +65•••••567', 'already j•••@example.com and +65•••••567'],
  ])('%s', (text, shown) => {
    expect(maskInText(text)).toBe(shown);
  });
});

describe('createMasker', () => {
  const masker = createMasker(['email', 'firstName'], 'email');

  it('masks the masked fields only, and the key when its field is masked', () => {
    expect(masker.active).toBe(true);
    expect(masker.field('firstName', 'Jane')).toBe('J•');
    expect(masker.field('plan', 'gold')).toBe('gold');
    expect(masker.key('jane.doe@example.com')).toBe('j•••@example.com');
    expect(createMasker(['firstName'], 'customerid').key('C0001')).toBe('C0001');
  });

  it('masks a row key in free text wherever it stands, raw or encoded', () => {
    const idKeyed = createMasker(['customerid'], 'customerid');
    expect(idKeyed.key('C 0001')).toBe('C•••');
    expect(idKeyed.text('GET /contact/list?customerid=C%200001: C 0001 failed', ['C 0001'])).toBe('GET /contact/list?customerid=C•••: C••• failed');
  });

  it('masks a row\'s own values of masked fields in its text, as whole words of 3 characters or more, with their field\'s rule', () => {
    const shown = masker.text('"Josephine" and Josephine2 and "Jo"; "bad@" is not an email; plan gold', ['bad@'], [
      ['firstName', 'Josephine'],
      ['firstName', 'Jo'],
      ['plan', 'gold'],
    ]);
    expect(shown).toBe('"J•" and Josephine2 and "Jo"; "b•••" is not an email; plan gold');
  });

  it('jobMasker maps the masked fields\' columns (a template\'s too) and the key\'s', () => {
    const job = {
      privacy: { mask: ['email', 'firstName', 'greeting'] },
      key: { column: 'mail', field: 'email' },
      fields: [
        { name: 'firstName', source: { kind: 'column' as const, column: 'first_name' }, transforms: [] },
        { name: 'plan', source: { kind: 'column' as const, column: 'plan' }, transforms: [] },
        { name: 'greeting', source: { kind: 'template' as const, template: 'Hi {{nick}}', columns: ['nick'] }, transforms: [] },
      ],
    };
    expect([...jobMasker(job).columns]).toEqual([
      ['mail', 'email'],
      ['first_name', 'firstName'],
      ['nick', 'greeting'],
    ]);
    expect(jobMasker({ ...job, privacy: undefined })).toBe(NO_MASK);
  });

  it('deep-masks a summary without changing its shape or numbers', () => {
    const summary = { job: 'crm', rows: { total: 3, failed: 1 }, aborted: { code: 'SERVER_ERROR', message: 'PUT /contact/email:jane%40example.com: 500' }, list: ['+6591234567'] };
    expect(masker.deep(summary)).toEqual({ job: 'crm', rows: { total: 3, failed: 1 }, aborted: { code: 'SERVER_ERROR', message: 'PUT /contact/email:j•••@example.com: 500' }, list: ['+65•••••567'] });
    expect(summary.aborted.message).toContain('jane%40example.com');
  });

  it('without privacy.mask nothing is masked', () => {
    expect(createMasker([], 'email')).toBe(NO_MASK);
    expect(NO_MASK.active).toBe(false);
    expect(NO_MASK.field('email', 'jane@example.com')).toBe('jane@example.com');
    expect(NO_MASK.key('jane@example.com')).toBe('jane@example.com');
    expect(NO_MASK.text('jane@example.com +6591234567', ['jane@example.com'])).toBe('jane@example.com +6591234567');
    const summary = { aborted: { message: 'jane@example.com' } };
    expect(NO_MASK.deep(summary)).toBe(summary);
  });
});
