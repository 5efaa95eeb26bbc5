/**
 * Issue 34, point 4: tags that differ only in case (`VIP;vip;Vip`) are written as the file says,
 * but never without a word: validate and the run warn, once, and summary.json counts them. Turning
 * `tags.case: lower` on afterwards re-tags the contacts that hold a tag in another case: the dry
 * run's estimate counts those calls and names them before the real run makes them.
 */
import { TOKEN, jobsYaml, workspace } from '../helpers/cli-harness.js';
import { callsByOperation, contactWithKey, csvLines, emulatorPerTest, sortedTags } from '../helpers/integration-fixtures.js';

const emulator = emulatorPerTest();

const job = (tagCase: string) => `input: customers.csv
key: { column: customer_id, field: customerid }
fields:
  firstName: first_name
tags: { column: tags, case: ${tagCase} }
state: state.db`;

/** 3 rows with VIP in three spellings, 4 with a capitalised tag, 3 in lowercase already. */
const CSV = csvLines(['customer_id,first_name,tags', ...Array.from({ length: 10 }, (_unused, i) => `C${i},N${i},${i < 3 ? 'VIP;vip;Vip' : i < 7 ? 'Gold;news' : 'basic'}`)]);

describe('tags that differ only in case', () => {
  it('are written as the file spells them, with a warning from validate and the run and a count in summary.json', async () => {
    const ws = workspace();
    ws.write('customers.csv', CSV);
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: job('keep') }));
    const warning =
      'WARNING: 3 rows carry tags that differ only in case (line 2: VIP, vip, Vip): the platform keeps each spelling as a tag of its own; set tags.case: lower to write them as one (vip), or fix the export';

    const validate = await ws.run(['validate', 'jobs.yaml']);
    expect(validate.exitCode).toBe(0);
    expect(validate.stdout).toContain(`customers.csv: ${warning}\n`);

    const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'r1']);
    expect(run.exitCode).toBe(0);
    expect(run.stdout.split(warning)).toHaveLength(2);
    expect(ws.summary('import', 'r1').tagsDifferingInCase).toEqual({ rows: 3, firstLine: 2, example: ['VIP', 'vip', 'Vip'] });
    expect(sortedTags(contactWithKey(emulator(), 'C0'))).toEqual(['VIP', 'Vip', 'vip']);

    // A nightly re-run of the same file still warns (such rows are mapped again, as a skipped field's are) and costs no call.
    const calls = callsByOperation(emulator()).total;
    const rerun = await ws.run(['run', 'jobs.yaml', '--report-dir', 'r2']);
    expect(rerun.stdout).toContain(warning);
    expect(ws.summary('import', 'r2').rows).toMatchObject({ unchanged: 10 });
    expect(callsByOperation(emulator()).total).toBe(calls);
  });

  it('tags.case: lower turned on later: the dry run estimates and names the re-tagging, and the real run makes exactly those calls', async () => {
    const ws = workspace();
    ws.write('customers.csv', CSV);
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: job('keep') }));
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'r1'])).exitCode).toBe(0);

    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: job('lower') }));
    const before = callsByOperation(emulator());
    const dry = await ws.run(['run', 'jobs.yaml', '--dry-run', '--report-dir', 'r2']);
    expect(dry.exitCode).toBe(0);
    expect(callsByOperation(emulator()).addTags).toBe(before.addTags);
    // C3..C6 hold Gold and get gold; C0..C2 already hold vip; C7..C9 were lowercase.
    expect(ws.summary('import', 'r2').realRunEstimate).toMatchObject({ calls: { byOperation: { addTags: 4 } }, recasedContacts: 4 });
    expect(dry.stdout).toMatch(/the real run \(estimate\): 4 API calls \(addTags 4\), about .* at .*\/min; 4 contacts re-tagged with tags they hold in another case \(tags\.case\)\n/);
    expect(dry.stdout).not.toContain('differ only in case');

    const real = await ws.run(['run', 'jobs.yaml', '--report-dir', 'r3']);
    expect(real.exitCode).toBe(0);
    expect(callsByOperation(emulator()).addTags - before.addTags).toBe(4);
    expect(ws.summary('import', 'r3').apiCalls).toMatchObject({ total: 4, byOperation: { addTags: 4 } });
    expect(sortedTags(contactWithKey(emulator(), 'C3'))).toEqual(['Gold', 'gold', 'news']);
    expect(emulator().contacts(TOKEN)).toHaveLength(10);
  });
});
