/**
 * A guarded run judges and writes from one copy of its input (issue 42 item 6): an export
 * rewritten in place after the guards read it is not what the run writes.
 */
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { runSync } from '../../src/pipeline/run-job.js';
import { StateStore } from '../../src/state/state-store.js';
import { testClient } from '../api/support/test-client.js';
import { customersCsv, fastEmulator, TOKEN, workspace } from '../helpers/cli-harness.js';
import { columnField, makeJob } from '../helpers/job-factory.js';

let emulator: RunningEmulator;
beforeEach(async () => {
  emulator = await fastEmulator();
});
afterEach(async () => {
  await emulator.close();
});

/** 300 customers with a wide unmapped column: the file is read in many chunks, as the rows go. */
const ROWS = 300;
describe('a guarded run reads its input once for the guards and the rows', () => {
  it('an export rewritten in place (names swapped) after the guards read it is not written: the run writes what the guards judged', async () => {
    const ws = workspace();
    const lines = customersCsv(ROWS).trimEnd().split('\n');
    const csv = (swap: boolean) =>
      `${lines
        .map((line, index) => {
          const cells = line.split(',');
          if (index > 0 && swap) [cells[1], cells[2]] = [cells[2]!, cells[1]!];
          return [...cells, index === 0 ? 'note' : 'x'.repeat(2000)].join(',');
        })
        .join('\n')}\n`;
    const input = ws.write('customers.csv', csv(false));
    const statePath = join(ws.dir, 'state.db');
    const job = makeJob({
      name: 'import',
      connection: { ...makeJob().connection, baseUrl: emulator.url, token: TOKEN },
      input: { path: input, delimiter: 'auto', encoding: 'utf-8' },
      fields: [columnField('firstName', 'first_name'), columnField('lastName', 'last_name')],
      state: statePath,
      concurrency: 2,
      guards: { maxChangePercent: 10 },
    });
    const store = StateStore.open(statePath, { job: 'import', keyField: 'customerid' });
    // The run's copy goes to a folder of this test's own: other test files running beside it copy theirs to the system's.
    const temporaryDir = join(ws.dir, 'tmp');
    mkdirSync(temporaryDir);
    try {
      const first = await runSync({ job, api: testClient({ baseUrl: emulator.url, token: TOKEN }), reportDir: join(ws.dir, 'first'), dryRun: false, state: store, temporaryDir });
      expect(first.exitCode).toBe(0);
      expect(first.summary.rows.created).toBe(ROWS);
      // The second night's file is the same; once its first row is done, the export is rewritten in
      // place with every name swapped (same length: the same offsets), past maxChange 10%.
      let rewritten = false;
      const second = await runSync({
        job,
        api: testClient({ baseUrl: emulator.url, token: TOKEN }),
        reportDir: join(ws.dir, 'second'),
        dryRun: false,
        state: store,
        temporaryDir,
        onRow: () => {
          expect(readdirSync(temporaryDir).filter((name) => name.startsWith('contact-sync-input-'))).toHaveLength(1);
          if (rewritten) return;
          rewritten = true;
          writeFileSync(input, csv(true));
        },
      });
      expect(rewritten).toBe(true);
      expect(second.exitCode).toBe(0);
      expect(second.summary.rows).toMatchObject({ total: ROWS, unchanged: ROWS, updated: 0 });
      const names = emulator.contacts(TOKEN).map((contact) => `${contact.custom_fields.firstName} ${contact.custom_fields.lastName}`);
      expect(names.filter((name) => name.startsWith('Last'))).toEqual([]);
      // The copy is gone with the run.
      expect(readdirSync(temporaryDir)).toEqual([]);
    } finally {
      store.close();
    }
  });
});
