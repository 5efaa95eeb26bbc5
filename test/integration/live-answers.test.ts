/**
 * Issue 28: a job against the emulator answering as the live service is known to (values as JSON
 * booleans and numbers, an update answered with a `cus_` id): one contact per key, no needless
 * write, and the contact id the job knows is the contact's, never the update's answer.
 */
import type { RunningEmulator } from '../../src/emulator/index.js';
import { TOKEN, fastEmulator, jobsYaml, workspace } from '../helpers/cli-harness.js';

const JOB = `input: people.csv
key: { column: customer_id, field: customerid }
fields:
  isLead: is_lead
  timezone: tz
state: state/people.db`;

let emulator: RunningEmulator;
let ann: string;
let bob: string;

beforeEach(async () => {
  emulator = await fastEmulator({ valueTypes: 'typed', updateAnswerId: 'cus' });
  [ann, bob] = emulator
    .loadContacts(TOKEN, [
      { custom_fields: { customerid: '1', isLead: 'true', timezone: '5' } },
      { custom_fields: { customerid: '2', isLead: 'true', timezone: '8' } },
    ])
    .map((contact) => contact.id) as [string, string];
});
afterEach(async () => {
  await emulator.close();
});

const calls = () => emulator.counters(TOKEN).byOperation;

describe('a job against typed values and cus_ update answers', () => {
  it('sees no difference where true and "true" agree, writes only what differs, and keeps the contact ids it knows', async () => {
    const ws = workspace();
    ws.write('people.csv', 'customer_id,is_lead,tz\n1,true,5\n2,false,8\n');
    ws.write('jobs.yaml', jobsYaml({ url: emulator.url, job: JOB }));

    const first = await ws.run(['run', 'jobs.yaml', '--report-dir', 'first']);
    expect(first.exitCode).toBe(0);
    expect(ws.results('import', 'first').map((r) => [r.key, r.outcome, r.contact_id])).toEqual([
      ['1', 'unchanged', ann],
      ['2', 'updated', bob],
    ]);
    expect(calls().updateContact.received).toBe(1);
    expect(calls().createContact.received).toBe(0);

    // --full reads every key on the platform again: the typed values agree with the file.
    emulator.resetCounters(TOKEN);
    const full = await ws.run(['run', 'jobs.yaml', '--full', '--report-dir', 'full']);
    expect(full.exitCode).toBe(0);
    expect(ws.results('import', 'full').map((r) => [r.key, r.outcome, r.contact_id])).toEqual([
      ['1', 'unchanged', ann],
      ['2', 'unchanged', bob],
    ]);
    expect(calls().updateContact.received + calls().createContact.received).toBe(0);

    // The state store's id of key 2 is the contact's, not the cus_ id the update answered: the
    // next change goes to it in one call, with no search and no "no such contact".
    emulator.resetCounters(TOKEN);
    ws.write('people.csv', 'customer_id,is_lead,tz\n1,true,5\n2,false,9\n');
    const changed = await ws.run(['run', 'jobs.yaml', '--report-dir', 'changed']);
    expect(changed.exitCode).toBe(0);
    expect(ws.results('import', 'changed').map((r) => [r.key, r.outcome, r.contact_id])).toEqual([
      ['1', 'unchanged', ann],
      ['2', 'updated', bob],
    ]);
    expect(calls().updateContact).toEqual({ received: 1, rateLimited: 0, faulted: 0 });
    expect(calls().searchContacts.received).toBe(0);
    expect(emulator.contacts(TOKEN).map((contact) => [contact.id, contact.custom_fields])).toEqual([
      [ann, { customerid: '1', isLead: 'true', timezone: '5' }],
      [bob, { customerid: '2', isLead: 'false', timezone: '9' }],
    ]);
  });
});
