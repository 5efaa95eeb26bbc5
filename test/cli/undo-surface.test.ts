/**
 * `undo` of a run made through the other surface of the platform is refused before any call or
 * write (exit 2, a UsageError): the ids its journal names are that surface's, never written to
 * through this one (docs/reliability.md, "Moving a connection from v1 to v2").
 */
import type { ContactsApi } from '../../src/api/contacts-api.js';
import { type PlatformSurface } from '../../src/api/platform-surface.js';
import { V1_SURFACE } from '../../src/api/v1/surface.js';
import { V2_SURFACE } from '../../src/api/v2/surface.js';
import type { JobScope } from '../../src/cli/run-session.js';
import { undoJob } from '../../src/cli/undo-job.js';
import { UsageError } from '../../src/cli/usage-error.js';
import { StateStore } from '../../src/state/state-store.js';
import { makeJob } from '../helpers/job-factory.js';
import { makeStateTestDir, type StateTestDir } from '../state/state-test-dir.js';

/** An api on `surface` that fails the test on any call. */
function noCallsOn(surface: PlatformSurface): ContactsApi {
  return new Proxy({} as ContactsApi, {
    get: (_target, name) => {
      if (name === 'surface') return surface;
      throw new Error(`undo called the API (${String(name)})`);
    },
  });
}

describe('undo of a run of the other surface', () => {
  let dir: StateTestDir;
  let releases: Array<() => void>;
  beforeEach(() => {
    dir = makeStateTestDir();
    releases = [];
  });
  afterEach(() => {
    for (const release of releases.reverse()) release();
    dir.remove();
  });

  function scope(surface: PlatformSurface): JobScope {
    const job = makeJob({ name: 'crm', state: dir.statePath() });
    return {
      job,
      api: noCallsOn(surface),
      defer: (release: () => void) => releases.push(release),
      reportDir: dir.dir,
      signal: new AbortController().signal,
      deadline: undefined,
      argv: 'undo',
    } as unknown as JobScope;
  }

  function journalledRun(surface: 'v1' | 'v2'): number {
    const store = StateStore.open(dir.statePath(), { job: 'crm', keyField: makeJob().key.field });
    try {
      const runId = store.startRun({ job: 'crm', argv: 'run', full: false, surface });
      store.journalChange('C-1', '100', { operation: 'update', fields: { plan: ['basic', 'pro'] }, beforeRead: true });
      store.finishRun(runId, { rows: { total: 1, updated: 1 }, exitCode: 0, status: 'completed' });
      return runId;
    } finally {
      store.close();
    }
  }

  it.each([
    ['v1', V2_SURFACE],
    ['v2', V1_SURFACE],
  ] as const)('a run on %s, undone through the other: exit 2 naming both surfaces, no call, no undo run journalled', async (made, through) => {
    const runId = journalledRun(made);
    const refused = undoJob(scope(through), { jobsFile: 'jobs.yaml', runId, force: false, dryRun: false });
    await expect(refused).rejects.toThrow(UsageError);
    await expect(refused).rejects.toThrow(
      `jobs.yaml: job "crm": run ${runId} wrote through API ${made}, and this job's connection now speaks API ${through.name}: the contact ids in its journal are ${made}'s and are never written to through ${through.name}; undo it with the connection's \`api: ${made}\` (as when the run was made); nothing was done`,
    );
    for (const release of releases.splice(0).reverse()) release();
    const store = StateStore.open(dir.statePath(), { job: 'crm', keyField: makeJob().key.field });
    try {
      expect(store.lastRuns(5).map((run) => run.id)).toEqual([runId]);
    } finally {
      store.close();
    }
  });
});
