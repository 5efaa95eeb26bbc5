/**
 * Which reads of a reconcile stand for a search (issue 34; docs/reconcile.md, "The run after a
 * reconcile"): those of the job's last run before this one when it is a reconcile, made less than
 * 24 hours ago.
 */
import { FRESH_READ_MS, freshReadsAfter, isFresh } from '../../../src/pipeline/row/fresh-read.js';

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
