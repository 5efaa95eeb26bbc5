import { spreadsheetSafe } from '../../../src/pipeline/report/spreadsheet-safe.js';

describe('spreadsheetSafe', () => {
  it.each([
    ['=HYPERLINK("http://x")', `'=HYPERLINK("http://x")`],
    ['@SUM(A1)', `'@SUM(A1)`],
    ['+1+cmd|calc', `'+1+cmd|calc`],
    ['-2+3+cmd', `'-2+3+cmd`],
    ['\tx', `'\tx`],
  ])('neutralises the formula %j', (input, output) => {
    expect(spreadsheetSafe(input)).toBe(output);
  });

  it.each(['+6591234567', '-5', '+1 (555) 010-9999', 'plain', '', 'a=b'])('leaves %j as it is', (value) => {
    expect(spreadsheetSafe(value)).toBe(value);
  });
});
