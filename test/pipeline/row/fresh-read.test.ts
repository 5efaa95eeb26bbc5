/**
 * Which reads of a reconcile stand for a search (issue 34; docs/reconcile.md, "The run after a
 * reconcile"): those of the job's last run before this one when it is a reconcile, made less than
 * 24 hours ago.
 */
import { FRESH_READ_MS, freshReadsAfter, isFresh, priorReadsAfter, readBefore } from '../../../src/pipeline/row/fresh-read.js';

const NOW = 1_700_000_000_000;
const reconcile = { id: 7, argv: 'reconcile jobs.yaml --job crm' };

describe('freshReadsAfter: only a reconcile right before this run lends its reads', () => {
  it.each([
    ['no run before', undefined, undefined],
    ['a run', { id: 7, argv: 'run jobs.yaml' }, undefined],
    ['an undo', { id: 7, argv: 'undo jobs.yaml --run 3' }, undefined],
    ['a reconcile', reconcile, { runId: 7, since: NOW - FRESH_READ_MS }],
  ])('%s: %j', (_case, previous, expected) => {
    expect(freshReadsAfter(previous, NOW)).toEqual(expected);
  });
});

describe('isFresh: a read stands for a search when that reconcile made it within 24 hours', () => {
  const fresh = freshReadsAfter(reconcile, NOW);
  it.each([
    ['read by that reconcile an hour ago', { runId: 7, readAt: NOW - 3_600_000 }, true],
    ['read by it exactly 24 hours ago', { runId: 7, readAt: NOW - FRESH_READ_MS }, true],
    ['read by it more than 24 hours ago', { runId: 7, readAt: NOW - FRESH_READ_MS - 1 }, false],
    ['read by an earlier reconcile', { runId: 5, readAt: NOW - 60_000 }, false],
    ['no read', undefined, false],
  ])('%s: %s', (_case, read, expected) => {
    expect(isFresh(read, fresh)).toBe(expected);
  });

  it('no read is fresh when the run before was no reconcile', () => {
    expect(isFresh({ runId: 7, readAt: NOW }, undefined)).toBe(false);
  });
});

describe('priorReadsAfter: a reconcile or an undo right before this run lends its reads of contacts as a before read (issue 41 item 11)', () => {
  const started = NOW - 600_000;
  it.each([
    ['no run before', undefined, undefined],
    ['a run', { id: 7, argv: 'run jobs.yaml', startedAt: started }, undefined],
    ['a reconcile', { id: 7, argv: 'reconcile jobs.yaml --job crm', startedAt: started }, { runId: 7, since: started }],
    ['an undo', { id: 7, argv: 'undo jobs.yaml --job crm --run 3', startedAt: started }, { runId: 7, since: started }],
    ['an undo started two days ago: only its last 24 hours', { id: 7, argv: 'undo --run 3', startedAt: NOW - 2 * FRESH_READ_MS }, { runId: 7, since: NOW - FRESH_READ_MS }],
  ])('%s: %j', (_case, previous, expected) => {
    expect(priorReadsAfter(previous, NOW)).toEqual(expected);
  });
});

describe('readBefore: a record read since that run started is a read', () => {
  const reads = priorReadsAfter({ id: 7, argv: 'reconcile', startedAt: NOW - 600_000 }, NOW);
  it.each([
    ['read by that run', NOW - 60_000, reads, true],
    ['read as that run started', NOW - 600_000, reads, true],
    ['read before that run', NOW - 600_001, reads, false],
    ['never read', null, reads, false],
    ['no reconcile or undo right before', NOW, undefined, false],
  ])('%s: %s', (_case, verifiedAt, given, expected) => {
    expect(readBefore(verifiedAt, given)).toBe(expected);
  });
});
