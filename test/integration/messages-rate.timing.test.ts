/**
 * Pacing on the real clock (its own in-band jest project, *.timing.test.ts): 500 sends at the
 * spec's 25 messages a second meet no 429 from an emulator enforcing exactly that. It asserts
 * counts, never durations; it needs real time because the limit is a rate.
 */
import type { RunningEmulator } from '../../src/emulator/index.js';
import { TOKEN, fastEmulator, jobsYaml, workspace } from '../helpers/cli-harness.js';

describe('messages at the platform rate', () => {
  let emulator: RunningEmulator;
  afterEach(async () => {
    await emulator.close();
  });

  it('500 sends at the 25/s limit receive no 429 from an emulator enforcing it', async () => {
    emulator = await fastEmulator({ rateLimits: { contacts: { limit: 60_000, periodMs: 60_000 }, messages: { limit: 25, periodMs: 1000 } } });
    emulator.loadContacts(TOKEN, Array.from({ length: 500 }, (_, i) => ({ id: String(9000 + i), custom_fields: { customerid: `K${i}` } })));
    const ws = workspace();
    ws.write('ids.csv', `contact_id\n${Array.from({ length: 500 }, (_, i) => 9000 + i).join('\n')}\n`);
    ws.write(
      'jobs.yaml',
      jobsYaml({ url: emulator.url, job: 'input: ids.csv\nmode: message\nstate: false\nconcurrency: 32\nmessage: { text: "Reminder", contactIdColumn: contact_id }' }).replace(
        'messages: 1000/s',
        'messages: 25/s',
      ),
    );

    const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'r']);

    expect(run.exitCode).toBe(0);
    expect(emulator.messages(TOKEN)).toHaveLength(500);
    expect(emulator.counters(TOKEN).byOperation.sendMessage).toMatchObject({ received: 500, rateLimited: 0 });
    expect(ws.summary('import', 'r').messages).toEqual({ sent: 500, skipped: 0, failed: 0, unknown: 0 });
  }, 120_000);
});
