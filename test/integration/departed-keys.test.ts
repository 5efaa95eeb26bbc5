/**
 * onMissing against the emulator: the keys an earlier run synced that a complete run's input no
 * longer has are acted on once, undone when they come back, refused when so many vanish that the
 * export is suspect, and listed in <job>.departed.csv.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { TOKEN, customersCsv, jobsYaml, workspace, type Workspace } from '../helpers/cli-harness.js';
import { callsByOperation, contactWithKey, emulatorPerTest, sortedTags } from '../helpers/integration-fixtures.js';
import { customerKey } from '../helpers/state-fixtures.js';
import { shardOf } from '../../src/pipeline/kinds/shard.js';

const emulator = emulatorPerTest();
const ROWS = 50;

const JOB = (onMissing: string) => `input: customers.csv
key: { column: customer_id, field: customerid }
fields: { firstName: first_name, plan: plan, email: { column: email, transform: email } }
tags: { column: segments, static: [crm] }
onMissing: ${onMissing}
state: state.db`;

/** customersCsv without the rows whose numbers are listed. */
function without(rows: number, missing: readonly number[]): string {
  const [header = '', ...lines] = customersCsv(rows).trimEnd().split('\n');
  return `${[header, ...lines.filter((_line, index) => !missing.includes(index + 1))].join('\n')}\n`;
}

function departedRows(ws: Workspace, dir: string): Array<Record<string, string>> {
  return parse<Record<string, string>>(readFileSync(join(ws.dir, dir, 'import.departed.csv'), 'utf8'), { columns: true });
}

async function firstImport(onMissing: string): Promise<Workspace> {
  const ws = workspace();
  ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: JOB(onMissing) }));
  ws.write('customers.csv', customersCsv(ROWS));
  const first = await ws.run(['run', 'jobs.yaml', '--report-dir', 'r0']);
  if (first.exitCode !== 0) throw new Error(`the first import failed: ${first.stdout}${first.stderr}`);
  emulator().resetCounters(TOKEN);
  return ws;
}

describe('onMissing: tag', () => {
  it('tags a departed key once (one call), does nothing more while it stays away, and removes the tag once when it comes back', async () => {
    const ws = await firstImport('{ action: tag, tags: [left-crm] }');
    ws.write('customers.csv', without(ROWS, [7]));

    const gone = await ws.run(['run', 'jobs.yaml', '--report-dir', 'r1']);
    expect(gone.exitCode).toBe(0);
    expect(callsByOperation(emulator())).toMatchObject({ total: 1, addTags: 1 });
    expect(sortedTags(contactWithKey(emulator(), customerKey(7)))).toEqual(['crm', 'left-crm', 'newsletter']);
    expect(departedRows(ws, 'r1')).toEqual([
      { key: customerKey(7), contact_id: contactWithKey(emulator(), customerKey(7)).id, action: 'tag', outcome: 'updated', api_calls: '1', error_code: '', error_message: '' },
    ]);
    expect(ws.summary('import', 'r1').departed).toMatchObject({ action: 'tag', knownKeys: ROWS, missing: 1, updated: 1, refused: false });
    expect(gone.stdout).toContain('departed keys (onMissing: tag): 1 of 50 known keys left the file: 1 changed');
    expect((await ws.run(['state', 'show', 'jobs.yaml', '--job', 'import'])).stdout).toMatch(/^departed keys: +1$/m);
    const html = readFileSync(join(ws.dir, 'r1', 'import.report.html'), 'utf8');
    expect(html).toContain('1 of 50 known keys left the file (2%; onMissing: tag)');
    // The departed key's tag call is what the data needed, not waste (issue 29, point 7).
    expect(html).toContain('<tr><td>addTags</td><td class="n">1</td><td class="n">1</td></tr>');
    expect(html).toContain('<tr><th>total</th><th class="n">1</th><th class="n">1 write</th></tr>');
    expect(html).toContain('<a href="import.departed.csv">');

    emulator().resetCounters(TOKEN);
    const still = await ws.run(['run', 'jobs.yaml', '--report-dir', 'r2']);
    expect(still.exitCode).toBe(0);
    expect(callsByOperation(emulator()).total).toBe(0);
    expect(departedRows(ws, 'r2')).toEqual([]);

    ws.write('customers.csv', customersCsv(ROWS));
    const back = await ws.run(['run', 'jobs.yaml', '--report-dir', 'r3']);
    expect(back.exitCode).toBe(0);
    expect(callsByOperation(emulator())).toMatchObject({ total: 1, removeTags: 1 });
    expect(sortedTags(contactWithKey(emulator(), customerKey(7)))).toEqual(['crm', 'newsletter']);
    expect(ws.results('import', 'r3').find((row) => row.key === customerKey(7))).toMatchObject({ outcome: 'updated', tags_removed: 'left-crm' });

    emulator().resetCounters(TOKEN);
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'r4'])).exitCode).toBe(0);
    expect(callsByOperation(emulator()).total).toBe(0);
  });

  it('refuses the step when more than maxShare of the known keys vanished: nothing changes, exit 1, and says how to go on without advising a share over half', async () => {
    const ws = await firstImport('{ action: tag, tags: [left-crm] }');
    const lost = Array.from({ length: 40 }, (_, i) => i + 11);
    ws.write('customers.csv', without(ROWS, lost));

    const truncated = await ws.run(['run', 'jobs.yaml', '--report-dir', 'r1']);

    expect(truncated.exitCode).toBe(1);
    expect(callsByOperation(emulator()).total).toBe(0);
    expect(emulator().contacts(TOKEN).filter((contact) => contact.tags.includes('left-crm'))).toEqual([]);
    expect(ws.summary('import', 'r1').departed).toMatchObject({ knownKeys: 50, missing: 40, missingPercent: 80, maxSharePercent: 10, refused: true, updated: 0 });
    expect(truncated.stdout).toContain('40 of the 50 keys that earlier runs synced are missing from this input (80%, over onMissing.maxShare 10%)');
    // 80% of the keys: no message advises a share that would act on most of them.
    expect(truncated.stdout).not.toContain('--max-missing');
    expect(truncated.stdout).toContain('this input is not the whole export: run a part of it with --partial, or export it again.');
    expect(departedRows(ws, 'r1')).toHaveLength(40);
    expect(departedRows(ws, 'r1').every((row) => row.outcome === 'skipped' && row.api_calls === '0')).toBe(true);

    const accepted = await ws.run(['run', 'jobs.yaml', '--report-dir', 'r2', '--max-missing', '80%']);
    expect(accepted.exitCode).toBe(0);
    expect(callsByOperation(emulator())).toMatchObject({ total: 40, addTags: 40 });
  });

  it('--dry-run shows what the step would do and changes nothing; a run with --limit does not look at departed keys', async () => {
    const ws = await firstImport('{ action: tag, tags: [left-crm] }');
    ws.write('customers.csv', without(ROWS, [3]));

    const dry = await ws.run(['run', 'jobs.yaml', '--report-dir', 'r1', '--dry-run']);
    expect(dry.exitCode).toBe(0);
    expect(departedRows(ws, 'r1')).toMatchObject([{ key: customerKey(3), outcome: 'updated', api_calls: '0' }]);
    const limited = await ws.run(['run', 'jobs.yaml', '--report-dir', 'r2', '--limit', '10']);
    expect(limited.exitCode).toBe(0);
    expect(existsSync(join(ws.dir, 'r2', 'import.departed.csv'))).toBe(false);
    expect(ws.summary('import', 'r2').departed).toMatchObject({ applied: false });
    expect(callsByOperation(emulator()).total).toBe(0);

    // Nothing was recorded: the first complete run acts.
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'r3'])).exitCode).toBe(0);
    expect(callsByOperation(emulator())).toMatchObject({ total: 1, addTags: 1 });
  });
});

describe('onMissing and rows that fail', () => {
  it('a key whose row failed is still in the file: it is not departed', async () => {
    const ws = await firstImport('{ action: tag, tags: [left-crm] }');
    ws.write('customers.csv', customersCsv(ROWS, (i, cells) => (i === 9 ? [...cells.slice(0, 3), 'not-an-email', ...cells.slice(4)] : cells)));
    const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'r1']);
    expect(run.exitCode).toBe(1);
    expect(ws.results('import', 'r1').find((row) => row.key === customerKey(9))).toMatchObject({ outcome: 'failed', error_code: 'INVALID_EMAIL' });
    expect(ws.summary('import', 'r1').departed).toMatchObject({ missing: 0 });
    expect(callsByOperation(emulator()).total).toBe(0);
  });
});

describe('onMissing with shards', () => {
  it('each shard acts on the departed keys of its own shard, so the shards of one job tag each departed key once', async () => {
    const ws = await firstImport('{ action: tag, tags: [left-crm] }');
    // Two departed keys in each shard.
    const inShard = (shard: number) => Array.from({ length: ROWS }, (_, i) => i + 1).filter((i) => shardOf(customerKey(i), 2) === shard).slice(0, 2);
    const gone = [...inShard(1), ...inShard(2)];
    ws.write('customers.csv', without(ROWS, gone));

    const one = await ws.run(['run', 'jobs.yaml', '--report-dir', 'r1', '--shard', '1/2']);
    expect(one.exitCode).toBe(0);
    expect(callsByOperation(emulator())).toMatchObject({ total: 2, addTags: 2 });
    const two = await ws.run(['run', 'jobs.yaml', '--report-dir', 'r1', '--shard', '2/2']);
    expect(two.exitCode).toBe(0);
    expect(callsByOperation(emulator())).toMatchObject({ total: 4, addTags: 4 });

    const tagged = emulator().contacts(TOKEN).filter((contact) => contact.tags.includes('left-crm')).map((contact) => contact.custom_fields.customerid).sort();
    expect(tagged).toEqual(gone.map(customerKey).sort());
    const listed = (shard: number) => parse<Record<string, string>>(readFileSync(join(ws.dir, 'r1', `import.shard-${shard}-of-2.departed.csv`), 'utf8'), { columns: true }).map((row) => row.key);
    expect(listed(1)).toEqual(inShard(1).map(customerKey));
    expect(listed(2)).toEqual(inShard(2).map(customerKey));
  });
});

describe('onMissing: keep, untag, update', () => {
  it('keep lists the departed key and changes nothing', async () => {
    const ws = await firstImport('{ action: keep }');
    ws.write('customers.csv', without(ROWS, [5]));
    const before = contactWithKey(emulator(), customerKey(5));
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'r1'])).exitCode).toBe(0);
    expect(callsByOperation(emulator()).total).toBe(0);
    expect(contactWithKey(emulator(), customerKey(5))).toEqual(before);
    expect(departedRows(ws, 'r1')).toMatchObject([{ key: customerKey(5), action: 'keep', outcome: 'unchanged', api_calls: '0' }]);
  });

  it('untag removes the tags the contact has (one call) and none it lacks', async () => {
    const ws = await firstImport('{ action: untag, tags: [crm, never-set] }');
    ws.write('customers.csv', without(ROWS, [5]));
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'r1'])).exitCode).toBe(0);
    expect(callsByOperation(emulator())).toMatchObject({ total: 1, removeTags: 1 });
    expect(sortedTags(contactWithKey(emulator(), customerKey(5)))).toEqual(['newsletter']);
  });

  it('update sets the fields once; a key that comes back is synced as usual', async () => {
    const ws = await firstImport('{ action: update, fields: { plan: cancelled } }');
    ws.write('customers.csv', without(ROWS, [4]));
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'r1'])).exitCode).toBe(0);
    expect(callsByOperation(emulator())).toMatchObject({ total: 1, updateContact: 1 });
    expect(contactWithKey(emulator(), customerKey(4)).custom_fields.plan).toBe('cancelled');

    emulator().resetCounters(TOKEN);
    ws.write('customers.csv', customersCsv(ROWS));
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'r2'])).exitCode).toBe(0);
    expect(callsByOperation(emulator())).toMatchObject({ total: 1, updateContact: 1 });
    expect(contactWithKey(emulator(), customerKey(4)).custom_fields.plan).toBe('pro');
  });
});

describe('onMissing and a part of the export', () => {
  it('--partial runs a slice without the departed step (said once); an --input that replaces the export is complete and acts', async () => {
    const ws = await firstImport('{ action: tag, tags: [left-crm] }');
    const slice = `${customersCsv(ROWS).trimEnd().split('\n').slice(0, 6).join('\n')}\n`;
    ws.write('slice.csv', slice);

    const part = await ws.run(['run', 'jobs.yaml', '--input', 'slice.csv', '--partial', '--report-dir', 'r1']);

    expect(part.exitCode).toBe(0);
    expect(ws.summary('import', 'r1').departed).toEqual({
      applied: false,
      reason: 'the input is marked partial (--partial): departed keys are looked at by the next run of the whole export',
    });
    expect(part.stdout.split('departed keys: not looked at').length).toBe(2);
    expect(existsSync(join(ws.dir, 'r1', 'import.departed.csv'))).toBe(false);
    expect(callsByOperation(emulator()).total).toBe(0);

    // The same slice without --partial is taken for the whole export: 45 of 50 keys missing, refused, and no share over half advised.
    const unmarked = await ws.run(['run', 'jobs.yaml', '--input', 'slice.csv', '--report-dir', 'r2']);
    expect(unmarked.exitCode).toBe(1);
    expect(ws.summary('import', 'r2').departed).toMatchObject({ missing: 45, refused: true });
    expect(unmarked.stdout).not.toContain('--max-missing');
    expect(emulator().contacts(TOKEN).filter((contact) => contact.tags.includes('left-crm'))).toEqual([]);

    // A nightly pipe replacing the export, one key gone: complete, the key is tagged.
    const nightly = await ws.run(['run', 'jobs.yaml', '--input', '-', '--report-dir', 'r3'], { stdin: without(ROWS, [9]) });
    expect(nightly.exitCode).toBe(0);
    expect(ws.summary('import', 'r3').departed).toMatchObject({ missing: 1, updated: 1 });
    expect(sortedTags(contactWithKey(emulator(), customerKey(9)))).toContain('left-crm');
  });
});
