/**
 * A field's write rule against the emulator (issue 37, docs/configuration.md "Write rules"):
 * `fill-empty` keeps an agent's value and fills an empty one, reading only on the night it would
 * fill; `on-create` is written once, when the contact is created; `onEmpty: clear` clears one field
 * while the job keeps the others. An unchanged night still costs no call.
 */
import { TOKEN, jobsYaml, workspace, type Workspace } from '../helpers/cli-harness.js';
import { contactIdOf, editOnPlatform } from '../helpers/state-fixtures.js';
import { emulatorPerTest } from '../helpers/integration-fixtures.js';

const emulator = emulatorPerTest();

const JOB = `input: customers.csv
key: { column: customer_id, field: customerid }
fields:
  firstName: first_name
  phoneNote: { column: note, write: fill-empty }
  source: { value: crm-import, write: on-create }
  plan: { column: plan, onEmpty: clear }
  city: city
state: state/crm.db`;

function csv(rows: Array<[string, string, string, string, string]>): string {
  return `customer_id,first_name,note,plan,city\n${rows.map((row) => row.join(',')).join('\n')}\n`;
}

function fieldsOf(key: string): Record<string, string> {
  const found = emulator().contacts(TOKEN).find((contact) => contact.custom_fields.customerid === key);
  return { ...(found?.custom_fields ?? {}) };
}

async function night(ws: Workspace, dir: string): Promise<Record<string, number>> {
  const run = await ws.run(['run', 'jobs.yaml', '--report-dir', dir]);
  expect(run.exitCode).toBe(0);
  return Object.fromEntries(Object.entries(ws.summary('import', dir).apiCalls.byOperation).filter(([, calls]) => calls > 0));
}

describe('write rules', () => {
  it('keep an agent\'s value, fill an empty one, write a created-only field once, clear one field by its own rule', async () => {
    const ws = workspace();
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: JOB }));
    ws.write('customers.csv', csv([['C1', 'Ada', 'call mornings', 'gold', 'Oslo'], ['C2', 'Bo', '', 'gold', 'Rome']]));
    await night(ws, 'n1');
    expect(fieldsOf('C1')).toMatchObject({ phoneNote: 'call mornings', source: 'crm-import', plan: 'gold', city: 'Oslo' });
    expect(fieldsOf('C2')).not.toHaveProperty('phoneNote');

    // Agents: a note on C1 replaced, a note on C2 written; source edited on both.
    for (const [key, note] of [['C1', 'agent: evenings'], ['C2', 'agent: VIP']] as const) {
      await editOnPlatform(emulator(), 'PUT', `/v1/contact/${contactIdOf(emulator(), key)}`, { custom_fields: [{ name: 'phoneNote', value: note }, { name: 'source', value: 'agent' }] });
    }
    emulator().resetCounters();

    // The export now has notes for both, another source would be written by always, C1's plan is empty (cleared), C2's city empty (kept).
    ws.write('customers.csv', csv([['C1', 'Ada', 'call after 6', '', 'Oslo'], ['C2', 'Bo', 'new note', 'gold', '']]));
    const second = await night(ws, 'n2');
    // C1: the state knows its note (written by the job): kept without a read; plan cleared.
    expect(fieldsOf('C1')).toMatchObject({ phoneNote: 'agent: evenings', source: 'agent', plan: '', city: 'Oslo' });
    // C2: the state knows no note: one read found the agent's, which is kept; city kept (emptyValues ignore).
    expect(fieldsOf('C2')).toMatchObject({ phoneNote: 'agent: VIP', source: 'agent', plan: 'gold', city: 'Rome' });
    expect(second).toEqual({ searchContacts: 1, updateContact: 1 });

    // An unchanged night costs nothing, with or without the rules.
    emulator().resetCounters();
    expect(await night(ws, 'n3')).toEqual({});
  });

  it('fill-empty fills a value the platform holds empty, read once on that night', async () => {
    const ws = workspace();
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: JOB }));
    ws.write('customers.csv', csv([['C1', 'Ada', '', 'gold', 'Oslo']]));
    await night(ws, 'n1');
    ws.write('customers.csv', csv([['C1', 'Ada', 'first note', 'gold', 'Oslo']]));
    emulator().resetCounters();
    expect(await night(ws, 'n2')).toEqual({ searchContacts: 1, updateContact: 1 });
    expect(fieldsOf('C1')).toMatchObject({ phoneNote: 'first note' });
    ws.write('customers.csv', csv([['C1', 'Ada', 'a later note', 'gold', 'Oslo']]));
    emulator().resetCounters();
    // Filled now: the state knows it holds a value, so the later note is not written, and no read is made.
    expect(await night(ws, 'n3')).toEqual({});
    expect(fieldsOf('C1')).toMatchObject({ phoneNote: 'first note' });
  });
});
