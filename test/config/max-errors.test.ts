/** One parser for `maxErrors` and `--max-errors`: the same forms, the same refusals. */
import { parseMaxErrors } from '../../src/config/max-errors.js';
import { parseMaxErrorsFlag } from '../../src/cli/run-flags.js';
import { UsageError } from '../../src/cli/usage-error.js';

describe('parseMaxErrors', () => {
  it.each<[string | number, unknown]>([
    [50, { ok: { count: 50 } }],
    [0, { ok: { count: 0 } }],
    ['50', { ok: { count: 50 } }],
    [' 7 ', { ok: { count: 7 } }],
    ['5%', { ok: { percent: 5 } }],
    ['2.5 %', { ok: { percent: 2.5 } }],
    ['100%', { ok: { percent: 100 } }],
    ['150%', { problem: 'is more than 100%; write a share from 0% to 100%' }],
    [2.5, { problem: 'is not a whole number; write a count such as 50, or a share such as "5%"' }],
    ['2.5', { problem: 'is not a whole number; write a count such as 50, or a share such as "5%"' }],
    [-1, { problem: 'is negative; write a count such as 50, or a share such as "5%"' }],
    ['lots', { problem: 'is not a count or a share; write a count such as 50, or a share such as "5%"' }],
    ['-5%', { problem: 'is not a count or a share; write a count such as 50, or a share such as "5%"' }],
  ])('%j -> %j', (value, expected) => {
    expect(parseMaxErrors(value)).toEqual(expected);
  });

  it('--max-errors refuses what jobs.yaml refuses, as a usage error naming the flag', () => {
    expect(parseMaxErrorsFlag('5%')).toEqual({ percent: 5 });
    expect(() => parseMaxErrorsFlag('150%')).toThrow(new UsageError('--max-errors: "150%" is more than 100%; write a share from 0% to 100%'));
  });
});
