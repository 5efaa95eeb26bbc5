/**
 * `contact-sync reconcile` against the emulator (issue 21, docs/reconcile.md): the file and the
 * platform compared key by key, both ways, with no write; the state store refreshed so that the
 * next run repairs exactly the differences.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { TOKEN, customersCsv, fastEmulator, jobsYaml, workspace, type Workspace } from '../helpers/cli-harness.js';
import { STATE_JOB, contactIdOf, customerKey, editOnPlatform, expectedCustomer } from '../helpers/state-fixtures.js';

/** The customers job with a state store, writing a `source: crm` marker and prefetching by it. */
const PREFETCH_JOB = `${STATE_JOB.replace('  plan: plan\n', '  plan: plan\n  source: { value: crm }\n')}
match: { prefetch: { field: source, value: crm } }`;
const SEARCH_JOB = PREFETCH_JOB.replace(/\nmatch: .*$/, '');
const WRITES = ['createContact', 'updateContact', 'addTags', 'removeTags', 'deleteContact', 'sendMessage'] as const;

let emulator: RunningEmulator;

beforeEach(async () => {
  emulator = await fastEmulator();
});

afterEach(async () => {
  await emulator.close();
});

/** The platform as a first import of customers 1..`count` left it, every contact with the marker. */
function seedCustomers(count: number): void {
  const seeds = [];
  for (let i = 1; i <= count; i++) {
    const expected = expectedCustomer(i);
    seeds.push({ custom_fields: { ...expected.fields, source: 'crm' }, tags: expected.tags });
  }
  emulator.loadContacts(TOKEN, seeds);
}

/** Customers 1..90 and 101..110 (91..100 left the CRM), row 5 with a new email. */
function crmExport(): string {
  const lines = customersCsv(110, (i, cells) => (i === 5 ? [...cells.slice(0, 3), 'new5@example.com', ...cells.slice(4)] : cells)).trimEnd().split('\n');
  return `${lines.filter((_line, index) => index <= 90 || index > 100).join('\n')}\n`;
}

function diff(ws: Workspace, dir: string): Array<Record<string, string>> {
  return parse<Record<string, string>>(readFileSync(join(ws.dir, dir, 'import.diff.csv'), 'utf8'), { columns: true });
}

function reconcileJson(ws: Workspace, dir: string): Record<string, unknown> & { keys: Record<string, number>; fields: Record<string, number>; apiCalls: { total: number } } {
  return JSON.parse(readFileSync(join(ws.dir, dir, 'import.reconcile.json'), 'utf8')) as ReturnType<typeof reconcileJson>;
}

function writes(): Record<string, number> {
  const counters = emulator.counters(TOKEN).byOperation as Record<string, { received: number } | undefined>;
  return Object.fromEntries(WRITES.map((operation) => [operation, counters[operation]?.received ?? 0]));
}

const NO_WRITES = Object.fromEntries(WRITES.map((operation) => [operation, 0]));

/** An agent's edits on the platform after the last sync: C0002's first name, C0004's crm tag. */
async function editBehindTheJobsBack(): Promise<void> {
  await editOnPlatform(emulator, 'PUT', `/v1/contact/${contactIdOf(emulator, 'C0002')}`, { custom_fields: [{ name: 'firstName', value: 'Edited' }] });
  await editOnPlatform(emulator, 'DELETE', `/v1/contact/${contactIdOf(emulator, 'C0004')}/tags`, { tags: ['crm'] });
  emulator.resetCounters(TOKEN);
}

describe('reconcile with match.prefetch: missing, extra and differing keys, both values, no write', () => {
  it('lists exactly the differences, pays ceil(100/10) pages and a search per key the pages lack; run repairs them with the fewest writes; a second reconcile lists only the extra contacts', async () => {
    seedCustomers(100);
    await editBehindTheJobsBack();
    const ws = workspace();
    ws.write('customers.csv', crmExport());
    ws.write('jobs.yaml', jobsYaml({ url: emulator.url, job: PREFETCH_JOB }));

    const reconcile = await ws.run(['reconcile', 'jobs.yaml', '--report-dir', 'first']);

    expect(reconcile.exitCode).toBe(1);
    expect(writes()).toEqual(NO_WRITES);
    // 10 pages of the 100 marked contacts, then one search for each of the 10 keys they lack.
    expect(emulator.counters(TOKEN).byOperation.searchContacts.received).toBe(20);
    const lines = diff(ws, 'first');
    // Lines come in the order keys finish (several are in flight at once): sorted here.
    const byStatus = (status: string) => lines.filter((line) => line.status === status).sort((a, b) => (a.key ?? '').localeCompare(b.key ?? ''));
    expect(byStatus('differs')).toEqual([
      { key: 'C0002', contact_id: contactIdOf(emulator, 'C0002'), status: 'differs', field: 'firstName', file_value: 'First2', platform_value: 'Edited', error_code: '', error_message: '' },
      { key: 'C0004', contact_id: contactIdOf(emulator, 'C0004'), status: 'differs', field: 'tags', file_value: 'crm', platform_value: '', error_code: '', error_message: '' },
      { key: 'C0005', contact_id: contactIdOf(emulator, 'C0005'), status: 'differs', field: 'email', file_value: 'new5@example.com', platform_value: 'user5@example.com', error_code: '', error_message: '' },
    ]);
    expect(byStatus('missing').map((line) => line.key)).toEqual(Array.from({ length: 10 }, (_v, i) => customerKey(101 + i)));
    expect(byStatus('extra').map((line) => [line.key, line.contact_id])).toEqual(Array.from({ length: 10 }, (_v, i) => [customerKey(91 + i), contactIdOf(emulator, customerKey(91 + i))]));
    expect(lines).toHaveLength(23);
    const json = reconcileJson(ws, 'first');
    expect(json.keys).toEqual({ inFile: 100, same: 87, differs: 3, missing: 10, extra: 10, duplicate: 0, failed: 0 });
    expect(json.fields).toEqual({ email: 1, firstName: 1, tags: 1 });
    expect(json.extra).toEqual({ listed: true });
    expect(json.apiCalls.total).toBe(20);
    expect(reconcile.stdout).toContain('The file and the platform differ on 23 key(s)');
    const page = readFileSync(join(ws.dir, 'first', 'import.reconcile.html'), 'utf8');
    expect(page).toContain('Fields that differ');
    expect(page).toContain('new5@example.com');
    // Nothing of the nightly run's was written: a reconcile has its own files.
    expect(() => ws.summary('import', 'first')).toThrow(/ENOENT/);

    // The run repairs: three contacts put right, ten created, with the fewest writes.
    emulator.resetCounters(TOKEN);
    const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'repair']);
    expect(run.exitCode).toBe(0);
    expect(writes()).toEqual({ ...NO_WRITES, createContact: 10, updateContact: 2, addTags: 11 });
    const rows = ws.summary('import', 'repair').rows;
    expect(rows).toMatchObject({ created: 10, updated: 3, unchanged: 87, failed: 0 });

    emulator.resetCounters(TOKEN);
    const again = await ws.run(['reconcile', 'jobs.yaml', '--report-dir', 'second']);
    expect(again.exitCode).toBe(1);
    expect(writes()).toEqual(NO_WRITES);
    expect(diff(ws, 'second').map((line) => line.status)).toEqual(Array.from({ length: 10 }, () => 'extra'));
    expect(reconcileJson(ws, 'second').keys).toEqual({ inFile: 100, same: 100, differs: 0, missing: 0, extra: 10, duplicate: 0, failed: 0 });
  }, 60_000);
});

describe('reconcile stopped before the end of the file', () => {
  it('--limit compares the rows asked for and does not list extra contacts, saying why', async () => {
    seedCustomers(100);
    const ws = workspace();
    ws.write('customers.csv', crmExport());
    ws.write('jobs.yaml', jobsYaml({ url: emulator.url, job: PREFETCH_JOB }));

    const reconcile = await ws.run(['reconcile', 'jobs.yaml', '--limit', '10', '--report-dir', 'part']);

    expect(reconcile.exitCode).toBe(1);
    const json = reconcileJson(ws, 'part');
    expect(json.keys).toEqual({ inFile: 10, same: 9, differs: 1, missing: 0, extra: 0, duplicate: 0, failed: 0 });
    expect(json.notReached).toBe(90);
    expect(json.extra).toEqual({ listed: false, reason: 'the reconcile did not read its whole input (stopped early, --limit or an abort)' });
    expect(diff(ws, 'part').map((line) => `${line.key}:${line.field}`)).toEqual(['C0005:email']);
    expect(reconcile.stdout).toContain('Stopped before the end of the file');
    expect(writes()).toEqual(NO_WRITES);
  }, 60_000);
});

describe('reconcile without match.prefetch', () => {
  it('searches each key once, lists the missing and differing keys, and says once why the contacts the file lacks are not listed', async () => {
    seedCustomers(100);
    await editBehindTheJobsBack();
    const ws = workspace();
    ws.write('customers.csv', crmExport());
    ws.write('jobs.yaml', jobsYaml({ url: emulator.url, job: `${SEARCH_JOB.replace('state: state/import.db', 'state: false')}\nconcurrency: 16` }));

    const reconcile = await ws.run(['reconcile', 'jobs.yaml', '--report-dir', 'rec']);

    expect(reconcile.exitCode).toBe(1);
    expect(writes()).toEqual(NO_WRITES);
    expect(emulator.counters(TOKEN).byOperation.searchContacts.received).toBe(100);
    const lines = diff(ws, 'rec');
    expect(lines.filter((line) => line.status === 'differs').map((line) => `${line.key}:${line.field}`).sort()).toEqual(['C0002:firstName', 'C0004:tags', 'C0005:email']);
    expect(lines.filter((line) => line.status === 'missing')).toHaveLength(10);
    expect(lines.filter((line) => line.status === 'extra')).toEqual([]);
    const json = reconcileJson(ws, 'rec');
    expect(json.keys).toEqual({ inFile: 100, same: 87, differs: 3, missing: 10, extra: 0, duplicate: 0, failed: 0 });
    expect(json.extra).toEqual({ listed: false, reason: expect.stringContaining('the job has no match.prefetch') as unknown });
    expect(reconcile.stdout).toContain('on the platform only: not listed (the job has no match.prefetch');
  }, 60_000);

  it('exit 0 when the file and the platform agree; several contacts for a key and rows that do not map are listed', async () => {
    seedCustomers(20);
    // A second contact for C0003, as a hand-made import might leave it.
    emulator.loadContacts(TOKEN, [{ custom_fields: { customerid: 'C0003', firstName: 'Copy' }, tags: [] }]);
    const ws = workspace();
    ws.write('jobs.yaml', jobsYaml({ url: emulator.url, job: SEARCH_JOB }));
    ws.write('customers.csv', customersCsv(20, (i, cells) => (i === 3 ? cells : cells)).replace(/\nC0003,.*\n/, '\n'));

    expect((await ws.run(['reconcile', 'jobs.yaml', '--report-dir', 'agree'])).exitCode).toBe(0);
    expect(diff(ws, 'agree')).toEqual([]);
    expect(reconcileJson(ws, 'agree').keys).toMatchObject({ inFile: 19, same: 19 });

    ws.write('customers.csv', customersCsv(20, (i, cells) => (i === 7 ? [cells[0] ?? '', cells[1] ?? '', cells[2] ?? '', 'not-an-email', ...cells.slice(4)] : cells)));
    const differs = await ws.run(['reconcile', 'jobs.yaml', '--report-dir', 'dup']);
    expect(differs.exitCode).toBe(1);
    const lines = diff(ws, 'dup');
    expect(lines.filter((line) => line.status === 'duplicate')).toEqual([
      expect.objectContaining({ key: 'C0003', contact_id: expect.stringContaining(';') as unknown }),
    ]);
    expect(lines.filter((line) => line.status === 'failed')).toEqual([expect.objectContaining({ key: 'C0007', error_code: expect.stringMatching(/./) as unknown })]);
    expect(writes()).toEqual(NO_WRITES);
  }, 60_000);
});

describe('reconcile of a job with a state store: drift the nightly run cannot see', () => {
  it('a contact edited on the platform after a sync is found; the next run repairs it with one write and no search; the run after makes no call', async () => {
    const ws = workspace();
    ws.write('customers.csv', customersCsv(20));
    ws.write('jobs.yaml', jobsYaml({ url: emulator.url, job: STATE_JOB }));
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'import'])).exitCode).toBe(0);
    await editOnPlatform(emulator, 'PUT', `/v1/contact/${contactIdOf(emulator, 'C0002')}`, { custom_fields: [{ name: 'firstName', value: 'Edited' }] });
    emulator.resetCounters(TOKEN);

    // The nightly run trusts its state: it does not see the edit.
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'blind'])).exitCode).toBe(0);
    expect(emulator.counters(TOKEN).total.received).toBe(0);

    const reconcile = await ws.run(['reconcile', 'jobs.yaml', '--report-dir', 'rec']);
    expect(reconcile.exitCode).toBe(1);
    expect(diff(ws, 'rec').map((line) => [line.key, line.field, line.file_value, line.platform_value])).toEqual([['C0002', 'firstName', 'First2', 'Edited']]);
    expect(emulator.counters(TOKEN).total.received).toBe(20);
    expect(writes()).toEqual(NO_WRITES);

    emulator.resetCounters(TOKEN);
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'repair'])).exitCode).toBe(0);
    expect(emulator.counters(TOKEN).total.received).toBe(1);
    expect(writes()).toEqual({ ...NO_WRITES, updateContact: 1 });
    expect(emulator.contacts(TOKEN).find((contact) => contact.custom_fields.customerid === 'C0002')?.custom_fields.firstName).toBe('First2');

    emulator.resetCounters(TOKEN);
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'after'])).exitCode).toBe(0);
    expect(emulator.counters(TOKEN).total.received).toBe(0);
  }, 60_000);

  it('refuses a job of mode: message, before any call (exit 2)', async () => {
    const ws = workspace();
    ws.write('customers.csv', customersCsv(2));
    ws.write('jobs.yaml', jobsYaml({ url: emulator.url, job: `${STATE_JOB}\nmode: message\nmessage: { text: "hi" }` }));
    const refused = await ws.run(['reconcile', 'jobs.yaml']);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain('mode: message, which writes no field, so there is nothing to reconcile');
    expect(emulator.counters(TOKEN).total.received).toBe(0);
  });
});
