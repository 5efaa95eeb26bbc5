import { formatDuration } from '../../src/cli/progress-display.js';
import { formatSummary, whatNext } from '../../src/cli/summary-table.js';
import type { JobSummary } from '../../src/pipeline/report/job-summary.js';

const summary: JobSummary = {
  job: 'crm',
  runId: '7',
  dryRun: false,
  startedAt: '2026-01-01T00:00:00.000Z',
  finishedAt: '2026-01-01T00:01:05.000Z',
  durationMs: 65_000,
  rows: { total: 10, created: 4, updated: 3, unchanged: 1, skipped: 1, failed: 1 },
  apiCalls: { total: 21, byOperation: { searchContacts: 10, createContact: 4, addTags: 7, getContact: 0 } },
  retries: 2,
  rateLimited: 1,
  prefetch: { used: true, reason: 'the state store knows no key yet (a first import)', contacts: 500, calls: 50, searchesSaved: 480 },
  messages: { sent: 4, skipped: 0, failed: 0, unknown: 1 },
  aborted: { code: 'MAX_ERRORS', message: '1 of the 10 rows failed' },
};

describe('the summary table', () => {
  it('says one API call of a dry run\'s estimate in the singular (issue 41: "1 API calls")', () => {
    const estimate = { calls: { total: 1, byOperation: { searchContacts: 1 } }, contactsCalls: 1, messagesCalls: 0, contactsPerMinute: 100, durationMs: 600, limits: [] };
    const text = formatSummary({ ...summary, dryRun: true, realRunEstimate: estimate }, []);
    expect(text).toContain('the real run (estimate): 1 API call (searchContacts 1), about ');
  });

  it('shows rows by outcome, calls by operation (not the unused ones), 429s, retries, time, prefetch, messages and an abort', () => {
    const text = formatSummary(summary, ['reports/crm.results.csv']);
    expect(text).toMatch(/created\s+4\n/);
    expect(text).toMatch(/failed\s+1\n/);
    expect(text).toMatch(/searchContacts\s+10\n/);
    expect(text).not.toMatch(/getContact/);
    expect(text).toMatch(/API calls\s+21\n/);
    expect(text).toMatch(/429s\s+1\n/);
    expect(text).toMatch(/retries\s+2\n/);
    expect(text).toMatch(/duration\s+1m05s\n/);
    // The id history and undo take, at the end of every run with a state store, and none without.
    expect(text).toMatch(/run id\s+7\n/);
    expect(formatSummary({ ...summary, runId: null }, [])).not.toContain('run id');
    expect(text).toContain('prefetch: 500 contacts read in 50 calls, 480 searches saved');
    expect(text).toContain('messages: 4 sent, 0 skipped, 0 failed, 1 unknown');
    expect(text).toContain('ABORTED (MAX_ERRORS): 1 of the 10 rows failed');
    expect(text).toContain('  reports/crm.results.csv');
  });

  it('says when the prefetch was not used, and why', () => {
    const text = formatSummary({ ...summary, prefetch: { used: false, reason: '0 key(s) the state store does not know', contacts: 0, calls: 0, searchesSaved: 0 } }, []);
    expect(text).toContain('prefetch: not used (0 key(s) the state store does not know)');
    expect(text).not.toContain('contacts read in');
  });

  it('formats durations for people', () => {
    expect([formatDuration(4_400), formatDuration(59_600), formatDuration(61_000), formatDuration(3_725_000)]).toEqual(['4s', '1m00s', '1m01s', '1h02m']);
  });
});

describe('the sentence a summary ends with', () => {
  const done: JobSummary = { ...summary, status: 'completed', rows: { total: 100, created: 90, updated: 0, unchanged: 0, skipped: 0, failed: 10, notReached: 0 } };
  const { aborted: _aborted, ...completed } = done;
  const files = ['r/crm.results.csv', 'r/crm.rejected.csv'];
  const failedRows = (toFix: number, toRunAgain: number, rejectedEncoding = 'utf-8'): JobSummary['failedRows'] => ({ toFix, toRunAgain, rejectedEncoding, rejectedLineEnds: 'CRLF' });

  it.each<[string, JobSummary, { limit?: number }, string]>([
    ['rows to fix only', { ...completed, failedRows: failedRows(10, 0) }, {}, 'Done, but 10 rows failed for their data: fix them in r/crm.rejected.csv and feed it back as input (--input).'],
    [
      'a windows-1252 rejected file says its encoding',
      { ...completed, failedRows: failedRows(10, 0, 'windows-1252') },
      {},
      'Done, but 10 rows failed for their data: fix them in r/crm.rejected.csv (written in windows-1252, as the input: save it in windows-1252) and feed it back as input (--input).',
    ],
    [
      'rows to run again are not sent to rejected.csv',
      { ...completed, failedRows: failedRows(0, 10) },
      {},
      'Done, but 10 rows failed for a cause outside their data (the job stopped, or the platform refused or failed): nothing in the rows to fix; results.csv gives the error_code of each, and the same command run again takes them once that is fixed.',
    ],
    [
      'a refused departed step with most keys missing advises no share',
      { ...completed, rows: { ...completed.rows, failed: 0 }, departed: { refused: true, missingPercent: 96 } },
      {},
      'The rows are done, but the departed step was refused: most of the known keys are missing, so this input is not the whole export: run a part of it with --partial, or export it again.',
    ],
    [
      'a refused departed step with a few keys missing may name --max-missing',
      { ...completed, rows: { ...completed.rows, failed: 0 }, departed: { refused: true, missingPercent: 12 } },
      {},
      'The rows are done, but the departed step was refused: check the export, then run again (a part of it with --partial; or with --max-missing if the keys really left).',
    ],
    [
      'a threshold crossed after the rows --limit took',
      { ...done, status: 'aborted', rows: { ...done.rows, notReached: 1900 }, failedRows: failedRows(0, 10) },
      { limit: 100 },
      'Took the 100 rows asked for (--limit; 1900 rows of the input beyond it not reached); 10 rows failed for a cause outside their data (the job stopped, or the platform refused or failed): nothing in the rows to fix; results.csv gives the error_code of each, and the same command run again takes them once that is fixed; ended MAX_ERRORS: fix the cause above, then run again.',
    ],
    [
      'one row of each kind',
      { ...completed, rows: { ...completed.rows, failed: 2 }, failedRows: failedRows(1, 1) },
      {},
      'Done, but 1 row failed for its data: fix it in r/crm.rejected.csv and feed it back as input (--input); 1 row failed for a cause outside its data (the job stopped, or the platform refused or failed): ' +
        'nothing in the row to fix; results.csv gives its error_code, and the same command run again takes it once that is fixed.',
    ],
  ])('%s', (_case, given, asked, sentence) => {
    expect(whatNext(given, files, asked)).toBe(sentence);
  });
});
