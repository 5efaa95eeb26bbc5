/**
 * tags.prune against the emulator: a contact's tags follow its row over time. The tags the job
 * set (known from the state store, or named by tags.owned) leave when the row drops them; a tag
 * set by hand stays; the cost is one remove-tags call per 10 dropped tags, and nothing when
 * nothing was dropped.
 */
import { TOKEN, jobsYaml, workspace } from '../helpers/cli-harness.js';
import { callsByOperation, contactWithKey, emulatorPerTest, sortedTags } from '../helpers/integration-fixtures.js';
import { editOnPlatform } from '../helpers/state-fixtures.js';

const emulator = emulatorPerTest();

function csv(rows: Array<[string, string]>): string {
  return `customer_id,first_name,segments\n${rows.map(([id, segments]) => `${id},Name ${id},"${segments}"`).join('\n')}\n`;
}

const JOB = (extra: string) => `input: customers.csv
key: { column: customer_id, field: customerid }
fields: { firstName: first_name }
${extra}`;

async function addByHand(key: string, tag: string): Promise<void> {
  const id = contactWithKey(emulator(), key).id;
  await editOnPlatform(emulator(), 'POST', `/v1/contact/${id}/tags`, { tags: [tag] });
}

describe('tags.prune with a state store', () => {
  it('removes the tags the job set that the row dropped, in one call and no search; a hand-set tag survives; an unchanged re-run makes no call', async () => {
    const ws = workspace();
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: JOB('tags: { column: segments, separator: ";", static: [crm], prune: true }\nstate: state.db') }));
    ws.write('customers.csv', csv([['C1', 'Wholesale, EU;churn-risk;VIP'], ['C2', 'VIP']]));
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'r1'])).exitCode).toBe(0);
    await addByHand('C1', 'hand-set');
    emulator().resetCounters(TOKEN);

    ws.write('customers.csv', csv([['C1', 'VIP'], ['C2', 'VIP']]));
    const second = await ws.run(['run', 'jobs.yaml', '--report-dir', 'r2']);

    expect(second.exitCode).toBe(0);
    expect(callsByOperation(emulator())).toMatchObject({ total: 1, removeTags: 1, searchContacts: 0 });
    expect(sortedTags(contactWithKey(emulator(), 'C1'))).toEqual(['VIP', 'crm', 'hand-set']);
    const c1 = ws.results('import', 'r2').find((row) => row.key === 'C1');
    expect(c1).toMatchObject({ outcome: 'updated', tags_removed: 'Wholesale, EU;churn-risk', api_calls: '1' });
    expect(ws.results('import', 'r2').find((row) => row.key === 'C2')).toMatchObject({ outcome: 'unchanged', api_calls: '0' });

    emulator().resetCounters(TOKEN);
    const third = await ws.run(['run', 'jobs.yaml', '--report-dir', 'r3']);
    expect(third.exitCode).toBe(0);
    expect(callsByOperation(emulator()).total).toBe(0);
  });

  it('a tag the row carries again after it was pruned is added back, and pruned again when dropped (12 tags: two calls of 10)', async () => {
    const ws = workspace();
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: JOB('tags: { column: segments, separator: ";", prune: true }\nstate: state.db') }));
    const many = Array.from({ length: 12 }, (_, i) => `s${i}`);
    ws.write('customers.csv', csv([['C1', ['keep', ...many].join(';')]]));
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'r1'])).exitCode).toBe(0);
    emulator().resetCounters(TOKEN);

    ws.write('customers.csv', csv([['C1', 'keep']]));
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'r2'])).exitCode).toBe(0);
    expect(callsByOperation(emulator())).toMatchObject({ total: 2, removeTags: 2 });
    expect(sortedTags(contactWithKey(emulator(), 'C1'))).toEqual(['keep']);

    emulator().resetCounters(TOKEN);
    ws.write('customers.csv', csv([['C1', 'keep;s3']]));
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'r3'])).exitCode).toBe(0);
    ws.write('customers.csv', csv([['C1', 'keep']]));
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'r4'])).exitCode).toBe(0);
    expect(callsByOperation(emulator())).toMatchObject({ total: 2, addTags: 1, removeTags: 1 });
    expect(sortedTags(contactWithKey(emulator(), 'C1'))).toEqual(['keep']);
  });
});

describe('tags.prune with tags.owned and no state store', () => {
  it('removes the owned tags the row dropped after its search; tags outside owned, hand-set or not, stay', async () => {
    const ws = workspace();
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: JOB('tags: { column: segments, separator: ";", prune: true, owned: { prefix: "seg:" } }\nstate: false') }));
    ws.write('customers.csv', csv([['C1', 'seg:a;seg:b;other']]));
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'r1'])).exitCode).toBe(0);
    await addByHand('C1', 'hand-set');
    emulator().resetCounters(TOKEN);

    ws.write('customers.csv', csv([['C1', 'seg:b']]));
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'r2'])).exitCode).toBe(0);

    expect(callsByOperation(emulator())).toMatchObject({ total: 2, searchContacts: 1, removeTags: 1 });
    expect(sortedTags(contactWithKey(emulator(), 'C1'))).toEqual(['hand-set', 'other', 'seg:b']);
  });

  it('without prune, nothing is removed (the tags pile up, as before)', async () => {
    const ws = workspace();
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: JOB('tags: { column: segments, separator: ";" }\nstate: state.db') }));
    ws.write('customers.csv', csv([['C1', 'a;b']]));
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'r1'])).exitCode).toBe(0);
    ws.write('customers.csv', csv([['C1', 'b']]));
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'r2'])).exitCode).toBe(0);
    expect(sortedTags(contactWithKey(emulator(), 'C1'))).toEqual(['a', 'b']);
  });
});
