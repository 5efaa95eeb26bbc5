import { stringify } from 'csv-stringify/sync';
import { csvLine, valueCsvLine, type CsvCell } from '../../../src/pipeline/report/csv-line.js';

/** What the reports wrote with csv-stringify before: the reference the hand-written line must equal. */
const reference = (cells: readonly string[]): string => stringify([cells], { eof: true, record_delimiter: 'unix' });

describe('csvLine', () => {
  it.each<[string, string[]]>([
    ['plain values', ['2', 'C0000001', 'unchanged', '1', '', '', '', '0', '', '', '', '']],
    ['one empty value', ['']],
    ['no value', []],
    ['a comma', ['a,b', 'c']],
    ['quotes', ['say "hi"', '"', '""', 'x"']],
    ['line breaks', ['a\nb', 'a\r\nb', 'a\rb', '\r', '\n']],
    ['spaces and tabs', [' a ', '\tb', 'c\t']],
    ['a formula after neutralising', [`'=SUM(A1)`, `'@x`]],
    ['non-ASCII', ['Zoë', '日本', '😀', '\u2028']],
    ['separators of other files', ['a;b', 'a|b', 'a\u001eb']],
  ])('writes %s as csv-stringify does', (_what, cells) => {
    expect(csvLine(cells)).toBe(reference(cells));
  });

  it('writes random values as csv-stringify does', () => {
    const alphabet = ['a', 'Z', '0', ' ', ',', '"', '\n', '\r', '\t', ';', "'", '=', '-', 'é', '😀', '\\'];
    let seed = 42;
    const random = (n: number): number => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % n;
    };
    for (let row = 0; row < 2000; row++) {
      const cells = Array.from({ length: 1 + random(6) }, () => Array.from({ length: random(6) }, () => alphabet[random(alphabet.length)]!).join(''));
      expect(csvLine(cells)).toBe(reference(cells));
    }
  });
});

describe('valueCsvLine: an absent value is nothing, an empty one `""` (issue 41 item 18)', () => {
  it.each<[string, CsvCell[], string]>([
    ['absent', ['a', null, 'b'], 'a,,b\n'],
    ['empty', ['a', '', 'b'], 'a,"",b\n'],
    ['both, empty last', ['a', null, ''], 'a,,""\n'],
    ['quoting as csvLine', ['x,y', 'say "hi"'], '"x,y","say ""hi"""\n'],
  ])('%s', (_what, cells, line) => {
    expect(valueCsvLine(cells)).toBe(line);
  });

  it('writes strings as csv-stringify does with quoted_empty', () => {
    const cells = ['', 'a', ' ', 'a,b', '"', ''];
    expect(valueCsvLine(cells)).toBe(stringify([cells], { eof: true, record_delimiter: 'unix', quoted_empty: true }));
  });

  it('csvLine (the other reports) writes an absent value as nothing, as an empty one', () => {
    expect(csvLine(['a', null, ''])).toBe('a,,\n');
  });
});
