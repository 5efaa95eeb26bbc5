/**
 * Exactly once on API v2 across a kill (issue 36; docs/reliability.md, "Messages exactly once on
 * v2"): `contact-sync run` in a child process is SIGKILLed while a greeting is on the wire (the
 * platform stored it, its answer never came back: a proxy holds it), so the message journal has it
 * "maybe sent". The same command run again reads that contact's message list, finds the greeting,
 * records it sent and does not send it again; every other contact's greeting goes out once.
 * Messages are counted per contact in the emulator, never timed.
 */
import type { RunningEmulator } from '../../src/emulator/index.js';
import { StateStore } from '../../src/state/state-store.js';
import { messageHash } from '../../src/state/message-hash.js';
import { CUSTOMERS_JOB, TOKEN, customersCsv, fastEmulator, jobsYaml, workspace } from '../helpers/cli-harness.js';
import { startCli, useCliChildren, waitForQuiet, waitUntil } from '../helpers/cli-process.js';
import { startRecordingProxy, type RecordingProxy } from '../helpers/recording-proxy.js';

const WORKSPACE_TOKEN = 'workspace-token-5d8e02';
const ROWS = 4;
const WAIT_MS = 15_000;
const COMMAND = ['run', 'jobs.yaml', '--report-dir', 'reports', '--log-level', 'warn'];
const isSend = (method: string, path: string): boolean => method === 'POST' && /\/message$/.test(path.split('?')[0] ?? '');

describe('a v2 run killed while a greeting was on the wire, then run again', () => {
  const children = useCliChildren();
  let emulator: RunningEmulator | undefined;
  let proxy: RecordingProxy | undefined;
  afterEach(async () => {
    await proxy?.close();
    await emulator?.close();
    proxy = undefined;
    emulator = undefined;
  });

  it('sends nothing twice: the greeting the killed run left maybe sent is found in the contact\'s messages and reported sent; every contact gets exactly one', async () => {
    const platform = await fastEmulator({
      workspaceTokens: [WORKSPACE_TOKEN],
      rateLimits: { contacts: { limit: 60_000, periodMs: 60_000 }, messages: { limit: 1000, periodMs: 1000 }, v2: { limit: 1000, periodMs: 1000 } },
    });
    emulator = platform;
    let holding = true;
    let held = 0;
    const recording = await startRecordingProxy(platform.v2Url, {
      holdAnswer: (method, path) => {
        if (!holding || !isSend(method, path)) return false;
        held += 1;
        return true;
      },
    });
    proxy = recording;
    const ws = workspace();
    ws.write('customers.csv', customersCsv(ROWS));
    const job = `${CUSTOMERS_JOB.replace('state: false', 'state: state/import.db')}\nmessage: { when: created, text: "Hi {{first_name}}" }`;
    ws.write('jobs.yaml', jobsYaml({ url: recording.url, token: WORKSPACE_TOKEN, job, connectionExtra: '    api: v2\n    channelId: 1' }));

    const killed = children.track(startCli(COMMAND, ws.dir));
    await waitUntil(() => held >= 1, 'a greeting was stored by the platform and its answer held', WAIT_MS, killed);
    killed.child.kill('SIGKILL');
    expect(await killed.exited(WAIT_MS)).toEqual({ code: null, signal: 'SIGKILL' });
    await waitForQuiet(() => platform.v2Counters().total.received, 50, WAIT_MS);
    holding = false;
    const greetedAtKill = platform.v2Messages().length;
    expect(greetedAtKill).toBeGreaterThanOrEqual(1);
    // The killed run journalled the held greetings as maybe sent, with no messageId.
    const store = StateStore.open(`${ws.dir}/state/import.db`, { job: 'import', keyField: 'customerid' });
    const maybeSent = platform.v2Messages().filter((message) => {
      const text = (message.message as { text: string }).text;
      return store.messageRecord(String(message.contactId), messageHash({ type: 'text', text }))?.status === 'unknown';
    });
    store.close();
    expect(maybeSent.length).toBeGreaterThanOrEqual(1);
    recording.clear();

    const rerun = await ws.run(COMMAND);

    expect({ exitCode: rerun.exitCode, stderr: rerun.exitCode === 0 ? '' : rerun.stderr }).toEqual({ exitCode: 0, stderr: '' });
    // Every contact greeted exactly once, over the two runs.
    const contacts = platform.contacts(TOKEN);
    expect(contacts).toHaveLength(ROWS);
    const greetings = platform.v2Messages();
    expect(greetings).toHaveLength(ROWS);
    expect(new Set(greetings.map((message) => String(message.contactId))).size).toBe(ROWS);
    // The re-run sent only the greetings that had not gone out, and read the lists of those left maybe sent.
    const sends = recording.requests.filter((request) => isSend(request.method, request.path));
    const lists = recording.requests.filter((request) => request.method === 'GET' && request.path.includes('/message/list'));
    expect(sends).toHaveLength(ROWS - greetedAtKill);
    expect(lists.length).toBeGreaterThanOrEqual(maybeSent.length);
    // Every row reports its message sent; the settled ones say how it was learnt.
    const results = ws.results('import');
    expect(results.map((row) => row.message_status)).toEqual(Array.from({ length: ROWS }, () => 'sent'));
    const settled = results.filter((row) => /^sent by an earlier run at .*the contact's messages show it/.test(row.message_error ?? ''));
    expect(settled.map((row) => row.contact_id).sort()).toEqual(maybeSent.map((message) => String(message.contactId)).sort());
    // The journal holds each greeting sent, with the messageId the platform gave it.
    const after = StateStore.open(`${ws.dir}/state/import.db`, { job: 'import', keyField: 'customerid' });
    for (const message of greetings) {
      const text = (message.message as { text: string }).text;
      expect(after.messageRecord(String(message.contactId), messageHash({ type: 'text', text }))).toMatchObject({ status: 'sent', messageId: String(message.messageId) });
    }
    after.close();
  });
});
