/** The guards' verdict as a table: what the first read saw, the guards, `--allow`, and what refuses. */
import { allowedGuards, guardRefusals, parseAllow, parseGuardName, type GuardFacts, type GuardName } from '../../../src/pipeline/guards/guard-verdict.js';
import type { GuardsSpec } from '../../../src/config/job-types.js';

const names = (samples: number) => Array.from({ length: samples }, (_, i) => ({ key: `C${i + 1}`, written: `Name${i + 1}`, file: '' }));

function facts(rows: number, knownKeys: number, changes: Array<[string, number]> = []): GuardFacts {
  return { rows, knownKeys, changes: changes.map(([field, keys]) => ({ field, keys, samples: names(Math.min(keys, 5)) })) };
}

describe('guardRefusals', () => {
  it.each<[string, GuardsSpec, GuardFacts, GuardName[], string[]]>([
    ['no guard: nothing refuses', {}, facts(0, 100, [['firstName', 100]]), [], []],
    ['minRows met exactly', { minRows: 10 }, facts(10, 0), [], []],
    ['minRows: one row short', { minRows: 10 }, facts(9, 0), [], ['minRows']],
    ['minRows: an empty export', { minRows: 1 }, facts(0, 0), [], ['minRows']],
    ['minRows allowed', { minRows: 10 }, facts(0, 0), ['minRows'], []],
    ['maxChange: at the share is not over it', { maxChangePercent: 20 }, facts(100, 100, [['firstName', 20]]), [], []],
    ['maxChange: one key over the share', { maxChangePercent: 20 }, facts(100, 100, [['firstName', 21]]), [], ['maxChange']],
    ['maxChange: each field over the share is named, worst first', { maxChangePercent: 10 }, facts(100, 100, [['plan', 15], ['email', 90], ['lastName', 5]]), [], ['maxChange', 'maxChange']],
    ['maxChange: a state that knows no key judges nothing (a first import)', { maxChangePercent: 1 }, facts(100, 0, []), [], []],
    ['maxChange allowed', { maxChangePercent: 10 }, facts(100, 100, [['email', 90]]), ['maxChange'], []],
    ['both refuse; one allowed leaves the other', { minRows: 50, maxChangePercent: 10 }, facts(20, 100, [['email', 20]]), ['minRows'], ['maxChange']],
    ['both refuse', { minRows: 50, maxChangePercent: 10 }, facts(20, 100, [['email', 20]]), [], ['minRows', 'maxChange']],
    ['re-keyed: every known key missing, as many new', { maxChangePercent: 10 }, { ...facts(100, 100), keys: { known: 0, unknown: 100, newSamples: ['K1'] } }, [], ['maxChange']],
    ['re-keyed: 11 of 100 known keys replaced', { maxChangePercent: 10 }, { ...facts(100, 100), keys: { known: 89, unknown: 11, newSamples: ['K1'] } }, [], ['maxChange']],
    ['new customers on top of every known key replace none', { maxChangePercent: 10 }, { ...facts(5100, 100), keys: { known: 100, unknown: 5000, newSamples: ['K1'] } }, [], []],
    ['known keys missing with no new ones (onMissing and minRows judge it)', { maxChangePercent: 10 }, { ...facts(10, 100), keys: { known: 10, unknown: 0, newSamples: [] } }, [], []],
    ['tags.prune: tags removed from more than the share', { maxChangePercent: 10 }, { ...facts(100, 100), tagsRemoved: { keys: 11, samples: [{ key: 'C1', written: 'vip', file: '' }] } }, [], ['maxChange']],
    ['tags.prune: at the share', { maxChangePercent: 10 }, { ...facts(100, 100), tagsRemoved: { keys: 10, samples: [] } }, [], []],
    ['first read: a field changed on more than the share of the contacts found', { maxChangePercent: 10 }, { ...facts(100, 0), firstRead: { keys: 100, found: 20, changes: [{ field: 'firstName', keys: 3, samples: [] }], tagsRemoved: { keys: 0, samples: [] } } }, [], ['maxChange']],
    ['first read: within the share of the contacts found', { maxChangePercent: 10 }, { ...facts(100, 0), firstRead: { keys: 100, found: 20, changes: [{ field: 'firstName', keys: 2, samples: [] }], tagsRemoved: { keys: 0, samples: [] } } }, [], []],
    ['first read: no contact found (an import into an empty platform)', { maxChangePercent: 10 }, { ...facts(100, 0), firstRead: { keys: 100, found: 0, changes: [], tagsRemoved: { keys: 0, samples: [] } } }, [], []],
    ['first read: allowed', { maxChangePercent: 10 }, { ...facts(100, 0), firstRead: { keys: 100, found: 20, changes: [{ field: 'firstName', keys: 20, samples: [] }], tagsRemoved: { keys: 20, samples: [] } } }, ['maxChange'], []],
  ])('%s', (_case, guards, seen, allowed, refused) => {
    expect(guardRefusals(guards, seen, new Set(allowed), 'customers.csv').map((refusal) => refusal.guard)).toEqual(refused);
  });

  it('minRows names the file, the count, the guard and the way past it', () => {
    expect(guardRefusals({ minRows: 1000 }, facts(1, 0), new Set(), 'exports/customers.csv')).toEqual([
      {
        guard: 'minRows',
        message:
          'exports/customers.csv has 1 data row, fewer than guards.minRows (1000): an empty or cut-short export? Check the export (and that the pipe that wrote it failed loudly); to run with this file once, add --allow minRows',
      },
    ]);
  });

  it('maxChange names the field, the share, five keys with both values, and the way past it; worst field first', () => {
    const seen: GuardFacts = {
      rows: 8,
      knownKeys: 8,
      changes: [
        { field: 'plan', keys: 2, samples: [{ key: 'C1', written: 'basic', file: 'pro' }] },
        {
          field: 'lastName',
          keys: 7,
          samples: [
            { key: 'C1', written: 'Ng', file: '' },
            { key: 'C2', written: 'Smith', file: 'SMITH' },
            { key: 'C3', written: 'Doe', file: '' },
            { key: 'C4', written: 'Roe', file: '' },
            { key: 'C5', written: 'Poe', file: '' },
          ],
        },
      ],
    };
    const messages = guardRefusals({ maxChangePercent: 20 }, seen, new Set(), 'c.csv').map((refusal) => refusal.message);
    expect(messages).toEqual([
      'the input would change field "lastName" on 7 of the 8 keys the state knows (87.5%, more than guards.maxChange 20%): a mapping or an export gone wrong? ' +
        'For example "C1": "Ng" -> "" (cleared); "C2": "Smith" -> "SMITH"; "C3": "Doe" -> "" (cleared); "C4": "Roe" -> "" (cleared); "C5": "Poe" -> "" (cleared). ' +
        'Check the export and the mapping; to run with them once, add --allow maxChange',
      'the input would change field "plan" on 2 of the 8 keys the state knows (25%, more than guards.maxChange 20%): a mapping or an export gone wrong? ' +
        'For example "C1": "basic" -> "pro". Check the export and the mapping; to run with them once, add --allow maxChange',
    ]);
  });
});

describe('parseGuardName (--allow)', () => {
  it.each([
    ['minRows', 'minRows'],
    ['maxchange', 'maxChange'],
    [' MAXCHANGE ', 'maxChange'],
  ])('%j -> %s', (text, name) => {
    expect(parseGuardName(text)).toBe(name);
  });

  it('an unknown name says which there are', () => {
    expect(parseGuardName('rows')).toEqual({ problem: '"rows" is not a guard; write one of minRows, maxChange' });
  });
});

describe('parseAllow (--allow [JOB:]NAME)', () => {
  it.each([
    ['maxChange', { guard: 'maxChange' }],
    ['crm-nightly:maxChange', { guard: 'maxChange', job: 'crm-nightly' }],
    ['crm.v2:minrows', { guard: 'minRows', job: 'crm.v2' }],
    [':maxChange', { problem: '":maxChange" names no job before ":"; write JOB:maxChange, or maxChange for every job' }],
    ['crm:rows', { problem: '"rows" is not a guard; write one of minRows, maxChange' }],
  ])('%j', (text, parsed) => {
    expect(parseAllow(text)).toEqual(parsed);
  });
});

describe('allowedGuards (summary.json guardsAllowed)', () => {
  it('names each guard allowed, whether the job has it, and the refusals it let past', () => {
    const passed = [{ guard: 'maxChange' as const, message: 'field "lastName"' }, { guard: 'maxChange' as const, message: 'field "firstName"' }];
    expect(allowedGuards({ maxChangePercent: 10 }, new Set(['maxChange', 'minRows'] as const), passed)).toEqual([
      { guard: 'maxChange', configured: true, refusals: 2, messages: ['field "lastName"', 'field "firstName"'] },
      { guard: 'minRows', configured: false, refusals: 0, messages: [] },
    ]);
  });
});
