/**
 * reconcile.html's differing values (issue 41 item 18): two values that differ in whitespace only
 * would look identical on a page (a browser collapses and trims whitespace), so their whitespace is
 * shown as marks and the line says so; any other difference is shown as it is.
 */
import { parse as parseHtml } from 'node-html-parser';
import { renderReconcileHtml, valueCells } from '../../../src/pipeline/report/reconcile-html.js';
import type { DiffLine } from '../../../src/pipeline/report/reconcile-summary.js';

const cells = (html: string): string[] => parseHtml(`<table><tr>${html}</tr></table>`).querySelectorAll('td').map((cell) => cell.text);
const NOTE = '\ndiffers in whitespace only: · space, → tab, ↵ line feed, ⍽ no-break space';

describe('valueCells', () => {
  it.each<[string, string, string, string[]]>([
    ['a trailing space', 'Ann ', 'Ann', [`Ann·${NOTE}`, 'Ann']],
    ['a tab for a space', 'Ann\tLee', 'Ann Lee', [`Ann→Lee${NOTE}`, 'Ann·Lee']],
    ['a no-break space', 'Ann\u00a0Lee', 'Ann Lee', [`Ann⍽Lee${NOTE}`, 'Ann·Lee']],
    ['a line feed', 'a\nb', 'a b', [`a↵b${NOTE}`, 'a·b']],
    ['an em space (another whitespace)', 'Ann\u2003Lee', 'Ann Lee', [`Ann␣Lee${NOTE}`, 'Ann·Lee']],
    ['another difference: as it is', 'Ann Lee', 'Anne Lee', ['Ann Lee', 'Anne Lee']],
    ['a space against no value', ' ', '', [`·${NOTE}`, '']],
    ['HTML in a value is escaped', '<b> ', '<b>', [`<b>·${NOTE}`, '<b>']],
  ])('%s', (_case, file, platform, expected) => {
    expect(cells(valueCells(file, platform))).toEqual(expected);
  });

  it('a mark says on hover what it stands for', () => {
    expect(valueCells('a\u2003', 'a')).toContain('title="U+2003"');
    expect(valueCells('a\t', 'a')).toContain('title="tab"');
  });
});

describe('renderReconcileHtml', () => {
  it('shows a whitespace-only difference in the page', () => {
    const line: DiffLine = { key: 'C1', contactId: '7', status: 'differs', field: 'firstName', fileValue: 'Ann ', platformValue: 'Ann', errorCode: '', errorMessage: '' };
    const html = renderReconcileHtml({
      summary: {
        job: 'crm', runId: null, startedAt: '2026-11-28T00:00:00.000Z', finishedAt: '2026-11-28T00:00:01.000Z', durationMs: 1000, status: 'completed',
        keys: { inFile: 1, same: 0, differs: 1, missing: 0, extra: 0, duplicate: 0, failed: 0 }, fields: { firstName: 1 }, extra: { listed: false, reason: 'no marker' },
        apiCalls: { total: 1, byOperation: {} }, notReached: 0,
      },
      first: new Map([['differs', [line]]]),
      perStatus: 20,
      paths: { diff: '/r/crm.diff.csv', summary: '/r/crm.reconcile.json', html: '/r/crm.reconcile.html' },
    });
    const row = parseHtml(html).querySelectorAll('#differs ~ table')[0]?.querySelectorAll('tr')[1]?.querySelectorAll('td').map((cell) => cell.text);
    expect(row).toEqual(['C1', '7', 'firstName', `Ann·${NOTE}`, 'Ann']);
  });
});
