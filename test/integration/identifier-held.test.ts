/**
 * Issue 41 item 1: on API v2 a new key's contact is created by `create_or_update` on its email or
 * phone, which updates the contact already holding it. Two customers sharing a phone (a family)
 * must not become one contact: the holder of the phone is read first, and the second customer's
 * row fails with IDENTIFIER_HELD, naming the holder; the first contact is left as it was.
 */
import type { RunningEmulator } from '../../src/emulator/index.js';
import { TOKEN, fastEmulator, jobsYaml, workspace } from '../helpers/cli-harness.js';

const WORKSPACE_TOKEN = 'workspace-token-41b7d2';
const PHONE = '+447946012345';

const FAMILY_JOB = `input: family.csv
key: { column: customer_id, field: customerid }
fields:
  firstName: first_name
  phone: { column: phone, transform: [phone] }
state: state/family.db`;

let emulator: RunningEmulator;

beforeEach(async () => {
  emulator = await fastEmulator({
    workspaceTokens: [WORKSPACE_TOKEN],
    rateLimits: { contacts: { limit: 60_000, periodMs: 60_000 }, messages: { limit: 1000, periodMs: 1000 }, v2: { limit: 1000, periodMs: 1000 } },
  });
});
afterEach(async () => {
  await emulator.close();
});

function v2Calls(): Record<string, number> {
  const counted = Object.entries(emulator.v2Counters().byEndpoint).map(([endpoint, counter]) => [endpoint, counter.received] as const);
  return Object.fromEntries(counted.filter(([, received]) => received > 0));
}

describe('v2: a new customer whose phone another customer\'s contact holds', () => {
  it('fails with IDENTIFIER_HELD naming the holder; the first customer\'s contact is untouched; exit 1', async () => {
    const ws = workspace();
    ws.write('jobs.yaml', jobsYaml({ url: emulator.v2Url, token: WORKSPACE_TOKEN, job: FAMILY_JOB, connectionExtra: '    api: v2' }));
    ws.write('family.csv', `customer_id,first_name,phone\nC0001,Ann,${PHONE}\n`);
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'first'])).exitCode).toBe(0);
    const [ann] = emulator.contacts(TOKEN);
    expect(ann?.custom_fields).toEqual({ customerid: 'C0001', firstName: 'Ann', phone: PHONE });

    ws.write('family.csv', `customer_id,first_name,phone\nC0001,Ann,${PHONE}\nC0002,Bob,${PHONE}\n`);
    const before = { ...v2Calls() };
    const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'second']);

    expect(run.exitCode).toBe(1);
    const [one, two] = ws.results('import', 'second');
    expect(one).toMatchObject({ key: 'C0001', outcome: 'unchanged', contact_id: ann?.id, api_calls: '0' });
    expect(two).toMatchObject({ key: 'C0002', outcome: 'failed', error_code: 'IDENTIFIER_HELD', contact_id: '', api_calls: '2' });
    expect(two?.error_message).toBe(
      `phone ${PHONE} belongs to contact ${ann?.id}, whose customerid is C0001: the platform creates a contact by its phone and would write customerid=C0002 over that contact, so nothing was written; give this row a phone of its own (or none), or merge the two on the platform`,
    );
    expect(ws.rejected('import', 'second')).toEqual([expect.objectContaining({ customer_id: 'C0002', error_code: 'IDENTIFIER_HELD' })]);
    // One contact, still the first customer's; the second run listed the new key and read the phone, and wrote nothing.
    expect(emulator.contacts(TOKEN)).toEqual([expect.objectContaining({ id: ann?.id, custom_fields: { customerid: 'C0001', firstName: 'Ann', phone: PHONE } })]);
    const after = v2Calls();
    expect(Object.fromEntries(Object.entries(after).map(([endpoint, count]) => [endpoint, count - (before[endpoint] ?? 0)]).filter(([, count]) => count !== 0))).toEqual({
      'POST /contact/list': 1,
      'GET /contact/{identifier}': 1,
    });
  });
});
