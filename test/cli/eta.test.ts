/**
 * The ETA's table (src/cli/eta.ts): the calls the rows left will cost at the allowed rate, new
 * keys and the other rows each at their own calls per finished row. The cases of issue 29 first.
 */
import { estimateRemainingMs, type EtaInput } from '../../src/cli/eta.js';

const PER_MINUTE_100 = { limit: 100, periodMs: 60_000 };
const MINUTE = 60_000;

type Case = { name: string; input: Omit<EtaInput, 'rate'>; minutes: number | undefined };

const cases: Case[] = [
  {
    // Issue 29: "2m12s after 71 unchanged rows with 1,900 new rows left". The first new row has
    // finished with its search, create and tags: 1,899 new rows at 3 calls, at 100/min.
    name: '71 unchanged rows, then 1,900 new keys: the new keys are weighed at a created row\'s calls',
    input: { expectedRows: 1971, knownKeys: 71, finished: { rows: 72, created: 1 }, calls: { created: 3, other: 0 } },
    minutes: (1899 * 3) / 100,
  },
  {
    name: '71 unchanged rows, no new row finished yet: unknown, not "2m12s"',
    input: { expectedRows: 1971, knownKeys: 71, finished: { rows: 71, created: 0 }, calls: { created: 0, other: 0 } },
    minutes: undefined,
  },
  {
    // Issue 29: the first ETA of a first import of 2,000 rows at 100/min said 19m58s for a run of
    // about 58 minutes: the rows that fail before any call finish first and thinned the calls per
    // row. Every row left of a first import is a new key: 1,988 rows at 3 calls (the old rule:
    // 1,988 rows at 6 calls / 12 rows, 9m56s).
    name: 'a first import: the bad rows that finished first do not thin the cost of the new keys',
    input: { expectedRows: 2000, knownKeys: 0, finished: { rows: 12, created: 2 }, calls: { created: 6, other: 0 } },
    minutes: (1988 * 3) / 100,
  },
  {
    name: 'a first import, 5% in: 11 of the first 100 rows bad, 89 created at 2.9 calls',
    input: { expectedRows: 2000, knownKeys: 0, finished: { rows: 100, created: 89 }, calls: { created: 258, other: 0 } },
    minutes: (1900 * (258 / 89)) / 100,
  },
  {
    name: 'a nightly re-run that changes nothing: no call left, no time',
    input: { expectedRows: 2000, knownKeys: 2000, finished: { rows: 500, created: 0 }, calls: { created: 0, other: 0 } },
    minutes: 0,
  },
  {
    name: 'a nightly re-run with 100 new keys at the end: their calls, and the others at theirs',
    input: { expectedRows: 2000, knownKeys: 1900, finished: { rows: 1000, created: 1 }, calls: { created: 3, other: 100 } },
    minutes: (99 * 3 + 901 * (100 / 999)) / 100,
  },
  {
    name: 'known rows left but none finished yet: unknown',
    input: { expectedRows: 100, knownKeys: 50, finished: { rows: 10, created: 10 }, calls: { created: 30, other: 0 } },
    minutes: undefined,
  },
  {
    name: 'without a state store, every row left at the calls per finished row',
    input: { expectedRows: 1000, knownKeys: undefined, finished: { rows: 100, created: 50 }, calls: { created: 150, other: 50 } },
    minutes: (900 * 2) / 100,
  },
  {
    name: 'no row finished: unknown',
    input: { expectedRows: 1000, knownKeys: 0, finished: { rows: 0, created: 0 }, calls: { created: 0, other: 0 } },
    minutes: undefined,
  },
  {
    name: 'the rows expected unknown (a pipe): unknown',
    input: { expectedRows: undefined, knownKeys: 0, finished: { rows: 10, created: 10 }, calls: { created: 30, other: 0 } },
    minutes: undefined,
  },
  {
    name: 'more rows finished than expected (a file grown since it was counted): nothing left',
    input: { expectedRows: 10, knownKeys: 0, finished: { rows: 12, created: 12 }, calls: { created: 36, other: 0 } },
    minutes: 0,
  },
];

describe('estimateRemainingMs', () => {
  test.each(cases)('$name', ({ input, minutes }) => {
    const ms = estimateRemainingMs({ ...input, rate: PER_MINUTE_100 });
    if (minutes === undefined) expect(ms).toBeUndefined();
    else expect(ms).toBeCloseTo(minutes * MINUTE, 0);
  });

  it('scales with the rate limit: the same rows at 200/min take half the time', () => {
    const input = { expectedRows: 2000, knownKeys: 0, finished: { rows: 100, created: 100 }, calls: { created: 300, other: 0 } };
    const at100 = estimateRemainingMs({ ...input, rate: PER_MINUTE_100 }) ?? 0;
    expect(estimateRemainingMs({ ...input, rate: { limit: 200, periodMs: 60_000 } })).toBeCloseTo(at100 / 2, 0);
  });
});
