/**
 * The departed step as a kind of the run engine (issue 35): its keys go through the run's own stop
 * policy, and what it decides with no call (refused, `keep`, a dry run) ends there. The API it is
 * given throws on any call: none of these cases makes one.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { V1_SURFACE } from '../../../src/api/v1/surface.js';
import type { ContactsApi } from '../../../src/api/contacts-api.js';
import type { OnMissingSpec } from '../../../src/config/job-types.js';
import { settleDeparted } from '../../../src/pipeline/departed/settle-departed.js';
import { KeySighting } from '../../../src/pipeline/kinds/key-sighting.js';
import { WithheldCalls } from '../../../src/pipeline/real-run-estimate.js';
import { StopPolicy } from '../../../src/pipeline/run/stop-policy.js';
import { StateStore } from '../../../src/state/state-store.js';
import { makeJob } from '../../helpers/job-factory.js';
import { makeStateTestDir, type StateTestDir } from '../../state/state-test-dir.js';

const noCalls = new Proxy({} as ContactsApi, {
  // Its surface is read (the ids the store holds are trusted on it), never called.
  get: (_target, name) => {
    // What one call of the surface takes is a fact of the port, not a call.
    if (name === 'surface') return V1_SURFACE;
    throw new Error(`the departed step called the API (${String(name)})`);
  },
});

describe('settleDeparted', () => {
  let dir: StateTestDir;
  let state: StateStore;
  const job = makeJob();

  beforeEach(() => {
    dir = makeStateTestDir();
    state = StateStore.open(dir.statePath(), { job: job.name, keyField: job.key.field });
    for (const key of ['K1', 'K2', 'K3', 'K4']) state.recordConfirmed(key, { contactId: `id-${key}`, surface: 'v1', fields: {}, tagsAdded: [], draftHash: 'h' });
  });

  afterEach(() => {
    state.close();
    dir.remove();
  });

  /** The step after an input that had K1 only: K2, K3 and K4 departed. */
  async function settle(spec: Partial<OnMissingSpec>, options: { deadline?: number; dryRun?: boolean; withheld?: WithheldCalls } = {}) {
    const seen = new KeySighting();
    seen.seenBefore('K1');
    const policy = new StopPolicy({ now: () => new Date(1000), spacingMs: 600, ...(options.deadline === undefined ? {} : { deadline: options.deadline }) });
    const reportPath = join(dir.dir, 'import.departed.csv');
    const step = await settleDeparted({
      api: noCalls,
      job: { ...job, onMissing: { action: 'tag', tags: ['left'], fields: {}, maxSharePercent: 100, ...spec } },
      state,
      dryRun: options.dryRun ?? false,
      seen,
      inScope: () => true,
      reportPath,
      policy,
      ...(options.withheld === undefined ? {} : { withheld: options.withheld }),
    });
    const outcomes = readFileSync(reportPath, 'utf8').trim().split('\n').slice(1).map((line) => line.split(',').slice(0, 4).join(' '));
    return { step, policy, outcomes };
  }

  it('the run\'s deadline already past: no key taken, all three left for the next complete run, the run at its deadline', async () => {
    const { step, policy, outcomes } = await settle({}, { deadline: 1000 });
    expect([step.summary.missing, step.summary.notReached, outcomes, policy.status()]).toEqual([3, 3, [], 'deadline']);
  });

  it('refused (more missing than the share allows): every key skipped, not acted on', async () => {
    const { step, outcomes } = await settle({ maxSharePercent: 10 });
    expect([step.summary.refused, step.summary.skipped, outcomes]).toEqual([true, 3, ['K2 id-K2 tag skipped', 'K3 id-K3 tag skipped', 'K4 id-K4 tag skipped']]);
  });

  it('keep: every key listed unchanged, nothing refused', async () => {
    const { step, outcomes } = await settle({ action: 'keep', maxSharePercent: 10 });
    expect([step.summary.refused, step.summary.unchanged, outcomes]).toEqual([false, 3, ['K2 id-K2 keep unchanged', 'K3 id-K3 keep unchanged', 'K4 id-K4 keep unchanged']]);
  });

  it('a dry run: the keys it would tag, in the store\'s order, their calls withheld for the estimate', async () => {
    const withheld = new WithheldCalls();
    const { step, outcomes } = await settle({}, { dryRun: true, withheld });
    expect([step.summary.updated, step.writes.length, outcomes, withheld.byOperation.addTags]).toEqual([3, 3, ['K2 id-K2 tag updated', 'K3 id-K3 tag updated', 'K4 id-K4 tag updated'], 3]);
  });
});
