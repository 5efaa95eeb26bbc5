import type { JobSummary } from '../../src/pipeline/report/job-summary.js';
import { notifyText, shouldNotify } from '../../src/watch/notify-text.js';

const clean: JobSummary = {
  job: 'crm',
  runId: '7',
  dryRun: false,
  startedAt: '2026-11-26T02:00:00.000Z',
  finishedAt: '2026-11-26T02:10:00.000Z',
  durationMs: 600_000,
  rows: { total: 120, created: 20, updated: 30, unchanged: 70, skipped: 0, failed: 0 },
  apiCalls: { total: 90, byOperation: { searchContacts: 50, createContact: 20, updateContact: 20 } },
  retries: 0,
  rateLimited: 0,
  status: 'completed',
};

describe('shouldNotify', () => {
  it.each([
    ['failure', 0, false],
    ['failure', 1, true],
    ['failure', 3, true],
    ['failure', 75, true],
    ['always', 0, true],
    ['always', 4, true],
  ] as const)('on: %s, exit %i -> %s', (on, exitCode, expected) => {
    expect(shouldNotify(on, exitCode)).toBe(expected);
  });
});

describe('notifyText: the one sentence a chat webhook shows', () => {
  it.each<[string, Parameters<typeof notifyText>[0], string]>([
    [
      'a clean run',
      { syncJob: 'crm', host: 'batch1', exitCode: 0, summary: clean },
      'contact-sync: job "crm" on batch1 ended well, exit 0: 120 rows, 20 created, 30 updated, 70 unchanged.',
    ],
    [
      'failed rows, with the console\'s advice',
      { syncJob: 'crm', host: 'batch1', exitCode: 1, summary: { ...clean, rows: { ...clean.rows, unchanged: 68, failed: 2 } }, advice: 'Fix the 2 rows in reports/crm.rejected.csv and feed it back.' },
      'contact-sync: job "crm" on batch1 ended with failed rows, exit 1: 120 rows, 20 created, 30 updated, 68 unchanged, 2 failed. Fix the 2 rows in reports/crm.rejected.csv and feed it back.',
    ],
    [
      'an abort, with rows not reached and skipped',
      {
        syncJob: 'crm.shard-1-of-2',
        host: 'batch1',
        exitCode: 3,
        summary: { ...clean, status: 'aborted', rows: { total: 10, created: 0, updated: 0, unchanged: 5, skipped: 1, failed: 4, notReached: 110 }, aborted: { code: 'INVALID_TOKEN', message: 'the platform refused the token' } },
      },
      'contact-sync: job "crm.shard-1-of-2" on batch1 stopped before the end of its input, exit 3: 10 rows, 0 created, 0 updated, 5 unchanged, 1 skipped, 4 failed, 110 not reached; INVALID_TOKEN: the platform refused the token.',
    ],
    [
      'a deadline',
      { syncJob: 'crm', host: 'h', exitCode: 4, summary: { ...clean, status: 'deadline', rows: { ...clean.rows, notReached: 5 } } },
      'contact-sync: job "crm" on h stopped at --max-duration, exit 4: 120 rows, 20 created, 30 updated, 70 unchanged, 5 not reached.',
    ],
    [
      'an interrupted dry run',
      { syncJob: 'crm', host: 'h', exitCode: 130, summary: { ...clean, dryRun: true, status: 'interrupted', interrupted: 'SIGINT' } },
      'contact-sync: job "crm" on h was interrupted (SIGINT) (dry run: nothing was written), exit 130: 120 rows, 20 created, 30 updated, 70 unchanged.',
    ],
    [
      'a failure before any summary',
      { syncJob: 'crm', host: 'h', exitCode: 5, failure: { code: 'STATE_UNREADABLE', message: 'state/crm.sqlite is not a state store' } },
      'contact-sync: job "crm" on h failed before any row, exit 5 (STATE_UNREADABLE): state/crm.sqlite is not a state store',
    ],
  ])('%s', (_name, facts, expected) => {
    expect(notifyText(facts)).toBe(expected);
  });
});
