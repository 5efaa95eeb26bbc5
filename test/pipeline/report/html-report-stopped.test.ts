/**
 * report.html of a run that stopped before the end of its input says so at the top (issue 34):
 * why it stopped, the rows not reached and what to do; a complete run has no such banner.
 */
import { V1_SURFACE } from '../../../src/api/v1/surface.js';
import { parse } from 'node-html-parser';
import { renderHtmlReport } from '../../../src/pipeline/report/html-report.js';
import { reportPaths, type JobSummary } from '../../../src/pipeline/report/job-summary.js';
import { RunDigest } from '../../../src/pipeline/report/run-digest.js';

function summaryOf(status: NonNullable<JobSummary['status']>, notReached: number, extra: Partial<JobSummary> = {}): JobSummary {
  return {
    job: 'import',
    runId: '7',
    dryRun: false,
    startedAt: '2026-11-26T02:00:00.000Z',
    finishedAt: '2026-11-26T03:00:00.000Z',
    durationMs: 3_600_000,
    rows: { total: 121, created: 100, updated: 21, unchanged: 0, skipped: 0, failed: 0, notReached },
    apiCalls: { total: 421, byOperation: { searchContacts: 121, createContact: 100, updateContact: 21, addTags: 100, removeTags: 0, getContact: 0, sendMessage: 0 } },
    retries: 0,
    rateLimited: 0,
    status,
    ...extra,
  };
}

function banner(summary: JobSummary): string | undefined {
  const html = renderHtmlReport({ summary, digest: new RunDigest(V1_SURFACE), callsPerMinute: [100], limits: [{ budget: 'contacts', operations: ['searchContacts'], perMinute: 100, source: 'configured' }], paths: reportPaths('/reports', 'import') });
  const doc = parse(html);
  const found = doc.querySelector('#stopped');
  if (found !== null) {
    // At the top: straight after the title's line, before the figures.
    expect(doc.querySelector('h1 + p.meta + #stopped')).not.toBeNull();
    expect(found.nextElementSibling?.getAttribute('id')).toBe('outcomes');
  }
  return found?.text;
}

describe('report.html: the banner of a run that stopped early', () => {
  it.each([
    [
      'deadline',
      summaryOf('deadline', 1879),
      'Stopped at --max-duration: 1879 rows of the input were not reached; run the same command again to go on: the rows already written settle with no call.',
    ],
    [
      'interrupted',
      summaryOf('interrupted', 1, { interrupted: 'SIGTERM' }),
      'Interrupted by SIGTERM: 1 row of the input was not reached; run the same command again to go on: the rows already written settle with no call.',
    ],
    [
      'aborted',
      summaryOf('aborted', 40, { aborted: { code: 'INVALID_TOKEN', message: 'the platform refused the token' } }),
      'Stopped by INVALID_TOKEN: 40 rows of the input were not reached; fix what stopped it (its message is above), then run the same command again to go on: the rows already written settle with no call.',
    ],
    ['--limit', summaryOf('completed', 12), 'Not the whole input (--limit): 12 rows of the input were not reached; run without --limit to take them.'],
  ])('%s: says why, how many rows were not reached and what to do, at the top', (_case, summary, words) => {
    expect(banner(summary)).toBe(words);
  });

  it('a run that read its whole input has no banner', () => {
    expect(banner(summaryOf('completed', 0))).toBeUndefined();
  });
});
