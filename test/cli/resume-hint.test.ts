/**
 * An undo that did not finish names the command that resumes it (issue 41 item 18): the pure rule
 * (`undoResumeCommand`, a table), and `state show` and `history` on the CLI after an undo killed
 * with a line journalled.
 */
import { join } from 'node:path';
import { undoResumeCommand } from '../../src/cli/resume-hint.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import type { RunRecord } from '../../src/state/run-journal.js';
import { StateStore } from '../../src/state/state-store.js';
import { CUSTOMERS_JOB, customersCsv, fastEmulator, jobsYaml, workspace } from '../helpers/cli-harness.js';

type Run = Pick<RunRecord, 'argv' | 'finished' | 'status'>;

describe('undoResumeCommand', () => {
  it.each<[string, Run, string | undefined]>([
    ['a killed undo', { argv: 'undo jobs.yaml --run 3', finished: false, status: null }, 'contact-sync undo my jobs.yaml --job crm --run 3'],
    ['with --force and --keep-created', { argv: 'undo jobs.yaml --max-duration 45m --run 3 --force --keep-created', finished: false, status: null }, 'contact-sync undo my jobs.yaml --job crm --run 3 --force --keep-created'],
    ['with --key (the keys are not recorded)', { argv: 'undo jobs.yaml --run 3 --key (2 keys)', finished: false, status: null }, 'contact-sync undo my jobs.yaml --job crm --run 3 --key KEY... (the same keys as then)'],
    ['stopped at --max-duration', { argv: 'undo jobs.yaml --run 3', finished: true, status: 'deadline' }, 'contact-sync undo my jobs.yaml --job crm --run 3'],
    ['interrupted', { argv: 'undo jobs.yaml --run 3', finished: true, status: 'interrupted' }, 'contact-sync undo my jobs.yaml --job crm --run 3'],
    ['aborted', { argv: 'undo jobs.yaml --run 3', finished: true, status: 'aborted' }, 'contact-sync undo my jobs.yaml --job crm --run 3'],
    ['a completed undo: nothing to resume', { argv: 'undo jobs.yaml --run 3', finished: true, status: 'completed' }, undefined],
    ['a killed run is not an undo', { argv: 'run jobs.yaml', finished: false, status: null }, undefined],
  ])('%s', (_case, run, expected) => {
    expect(undoResumeCommand(run, 'my jobs.yaml', 'crm')).toBe(expected);
  });
});

describe('state show and history name the command that resumes a killed undo', () => {
  let emulator: RunningEmulator;

  beforeAll(async () => {
    emulator = await fastEmulator();
  });
  afterAll(async () => {
    await emulator.close();
  });

  it('after an undo killed with one line journalled', async () => {
    const ws = workspace();
    ws.write('jobs.yaml', jobsYaml({ url: emulator.url, job: CUSTOMERS_JOB.replace('state: false', 'state: state.db') }));
    ws.write('customers.csv', customersCsv(2));
    expect((await ws.run(['run', 'jobs.yaml', '--job', 'import'])).exitCode).toBe(0);
    // The undo of run 1, killed after its first confirmed call: started, one line, never finished.
    const store = StateStore.open(join(ws.dir, 'state.db'), { job: 'import', keyField: 'customerid' });
    try {
      const undoId = store.startRun({ job: 'import', argv: 'undo jobs.yaml --run 1', full: false, surface: 'v1' });
      store.journalChange('C0001', store.get('C0001')?.contact.id ?? '', { operation: 'add-tags', tags: ['contact-sync-undone'], beforeRead: true });
      expect(undoId).toBe(2);
    } finally {
      store.close();
    }
    const resume = 'resume it: contact-sync undo jobs.yaml --job import --run 1';
    const shown = await ws.run(['state', 'show', 'jobs.yaml', '--job', 'import']);
    expect(shown.stdout).toContain(`run 2 (undo), started`);
    expect(shown.stdout).toContain(`not finished (still running, or killed); ${resume}`);
    const history = await ws.run(['history', 'jobs.yaml', '--job', 'import', '--run', '2']);
    expect(history.stdout.split('\n')[0]).toMatch(/^run 2 \(undo jobs\.yaml --run 1, started .*, not finished \(still running, or killed\); resume it: contact-sync undo jobs\.yaml --job import --run 1\)$/);
  });
});
