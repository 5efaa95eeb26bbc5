/** Several jobs in one command: the worst exit code, in the contract's order 2 > 3 > 75 > 130/143 > 4 > 1 > 0. */
import { worstExit } from '../../src/exit-codes.js';

describe('worstExit', () => {
  it.each([
    [[], 0],
    [[0, 1, 0], 1],
    [[1, 4], 4],
    [[4, 130], 130],
    [[143, 4, 1], 143],
    [[130, 75], 75],
    [[75, 3], 3],
    [[3, 2, 75], 2],
    [[0, 130, 143], 130],
  ])('%j -> %i', (codes, worst) => {
    expect(worstExit(codes)).toBe(worst);
  });
});
