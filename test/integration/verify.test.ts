/**
 * Verification within the budget against the emulator (issue 38, docs/configuration.md
 * "Verification"): agents edit 10 of 100 contacts behind the job's back; with `verify: { share }`
 * and an unchanged file, each night re-reads at most its share (least recently verified first, or
 * the marker's pages round robin) and repairs every edit within the nights the round robin needs,
 * writing nothing to the contacts that did not drift. The repairs are journalled: undo takes them back.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { TOKEN, customersCsv, jobsYaml, workspace, type Workspace } from '../helpers/cli-harness.js';
import { callsByOperation, emulatorPerTest } from '../helpers/integration-fixtures.js';
import { STATE_JOB, contactIdOf, customerKey, editOnPlatform, expectedCustomer } from '../helpers/state-fixtures.js';

const emulator = emulatorPerTest();

const CONTACTS = 100;
/** C0005, C0015, ... C0095: one in each tenth, so the round robin reaches the last on its last night. */
const EDITED = Array.from({ length: 10 }, (_unused, index) => 10 * index + 5);
const WRITES = ['createContact', 'updateContact', 'addTags', 'removeTags'] as const;

const verifyJob = (share: string, marker: boolean): string =>
  marker
    ? `${STATE_JOB.replace('  plan: plan\n', '  plan: plan\n  source: { value: crm }\n')}\nmatch: { prefetch: { field: source, value: crm } }\nverify: { share: ${share} }`
    : `${STATE_JOB}\nverify: { share: ${share} }`;

/** Agents' edits: the even ones get another first name, the odd ones lose the job's `crm` tag. */
async function editBehindTheJobsBack(): Promise<void> {
  for (const [index, i] of EDITED.entries()) {
    const id = contactIdOf(emulator(), customerKey(i));
    if (index % 2 === 0) await editOnPlatform(emulator(), 'PUT', `/v1/contact/${id}`, { custom_fields: [{ name: 'firstName', value: `Agent${i}` }] });
    else await editOnPlatform(emulator(), 'DELETE', `/v1/contact/${id}/tags`, { tags: ['crm'] });
  }
}

/** The edited contacts still as the agents left them. */
function stillEdited(): number[] {
  return EDITED.filter((i) => {
    const contact = emulator().contacts(TOKEN).find((each) => each.custom_fields.customerid === customerKey(i));
    const expected = expectedCustomer(i);
    return contact?.custom_fields.firstName !== expected.fields.firstName || !(contact?.tags.includes('crm') ?? false);
  });
}

function writes(): number {
  const calls = callsByOperation(emulator());
  return WRITES.reduce((sum, operation) => sum + calls[operation], 0);
}

function changes(ws: Workspace, dir: string): Array<Record<string, string>> {
  return parse<Record<string, string>>(readFileSync(join(ws.dir, dir, 'import.changes.csv'), 'utf8'), { columns: true, bom: true });
}

/** A first import of the 100 customers, then the agents' edits; the counters start afresh. */
async function importThenEdit(ws: Workspace, job: string): Promise<void> {
  ws.write('customers.csv', customersCsv(CONTACTS));
  ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job }));
  const first = await ws.run(['run', 'jobs.yaml', '--report-dir', 'import']);
  expect(first.exitCode).toBe(0);
  // Every key was touched by the import itself: nothing to re-read.
  expect(ws.summary('import', 'import')).toMatchObject({ verified: 0, drift: 0 });
  await editBehindTheJobsBack();
  emulator().resetCounters(TOKEN);
}

interface Night {
  reads: number;
  writes: number;
  verified: number;
  drift: number;
  repaired: number[];
}

/** One night of the unchanged file: its reads and writes (the emulator's counters), its figures, the edits it repaired. */
async function night(ws: Workspace, n: number, read: 'getContact' | 'searchContacts'): Promise<Night> {
  const before = stillEdited();
  const run = await ws.run(['run', 'jobs.yaml', '--report-dir', `night${n}`]);
  expect(run.exitCode).toBe(0);
  expect(run.stdout + run.stderr).toMatch(/verification: \d+ contacts re-read in \d+ calls \(share \d+% of 100 trusted keys\), \d+ drifted and repaired/);
  const summary = ws.summary('import', `night${n}`);
  const calls = callsByOperation(emulator());
  const result = { reads: calls[read], writes: writes(), verified: summary.verified as number, drift: summary.drift as number, repaired: before.filter((i) => !stillEdited().includes(i)) };
  // No row changed: the rows cost nothing; the other read never happens.
  expect(summary.rows).toMatchObject({ unchanged: CONTACTS, updated: 0, created: 0 });
  expect(calls[read === 'getContact' ? 'searchContacts' : 'getContact']).toBe(0);
  emulator().resetCounters(TOKEN);
  return result;
}

describe('verify: { share: 20% }, no marker: one GET a contact, least recently verified first', () => {
  it('repairs all 10 edits in exactly ceil(100 / floor(20% x 100)) = 5 nights, each night within its 20 reads, writing only to the drifted contacts; undo takes a repair back', async () => {
    const ws = workspace();
    await importThenEdit(ws, verifyJob('20%', false));
    const nights: Night[] = [];
    for (let n = 1; n <= 5; n++) nights.push(await night(ws, n, 'getContact'));

    // C0001..C0020 on night 1, C0021..C0040 on night 2...: two edits a night.
    expect(nights.map((each) => each.repaired)).toEqual([[5, 15], [25, 35], [45, 55], [65, 75], [85, 95]]);
    for (const each of nights) {
      expect(each.reads).toBe(20);
      expect(each.verified).toBe(20);
      expect(each.drift).toBe(2);
      // One call a drifted contact (a field update, or the tag added back): none to the 18 others.
      expect(each.writes).toBe(2);
    }
    expect(stillEdited()).toEqual([]);
    // The 6th night starts the round again, and finds nothing to repair.
    const sixth = await night(ws, 6, 'getContact');
    expect(sixth).toMatchObject({ reads: 20, writes: 0, drift: 0 });

    // Night 1's repairs in changes.csv with both values: the agent's and the one the job wrote.
    expect(changes(ws, 'night1')).toEqual([
      { key: 'C0005', contact_id: contactIdOf(emulator(), 'C0005'), field: 'firstName', platform_value: 'Agent5', file_value: 'First5' },
      { key: 'C0015', contact_id: contactIdOf(emulator(), 'C0015'), field: 'tags', platform_value: '', file_value: 'crm' },
    ]);
    const summary = ws.summary('import', 'night1');
    expect(readFileSync(join(ws.dir, 'night1', 'import.report.html'), 'utf8')).toContain('<strong>2</strong> had drifted from what the job last wrote and were repaired');
    expect(summary.verification).toMatchObject({ sharePercent: 20, trustedKeys: 100, budget: 20, by: 'contacts', reads: 20, verified: 20, drift: 2, failed: 0 });

    // The repairs are journalled under night 1's run: undo puts the agents' values back.
    const undo = await ws.run(['undo', 'jobs.yaml', '--job', 'import', '--run', String(summary.runId), '--report-dir', 'undo']);
    expect(undo.exitCode).toBe(0);
    expect(stillEdited()).toEqual([5, 15]);
  });

  it('a dry run reads and writes nothing, and counts the reads the real run would make in its estimate', async () => {
    const ws = workspace();
    await importThenEdit(ws, verifyJob('20', false));
    const dry = await ws.run(['run', 'jobs.yaml', '--dry-run', '--report-dir', 'dry']);
    expect(dry.exitCode).toBe(0);
    expect(callsByOperation(emulator()).total).toBe(0);
    expect(dry.stdout + dry.stderr).toContain('verification: a dry run reads nothing; the real run would re-read with 20 calls');
    const summary = ws.summary('import', 'dry');
    expect(summary).toMatchObject({ verified: 0, drift: 0, verification: { by: 'contacts', budget: 20, reads: 20, dryRun: true } });
    expect(summary.realRunEstimate).toMatchObject({ calls: { byOperation: { getContact: 20 } } });
    expect(stillEdited()).toEqual(EDITED);
  });
});

describe('verify with a match.prefetch marker: the marker\'s pages, round robin', () => {
  it('5%: 5 reads a night, the marker\'s 10 pages of 10 in exactly 2 nights, every edit repaired, only the drifted written', async () => {
    const ws = workspace();
    await importThenEdit(ws, verifyJob('5%', true));
    const first = await night(ws, 1, 'searchContacts');
    const second = await night(ws, 2, 'searchContacts');

    // Pages 1-5 hold the 50 oldest contacts, pages 6-10 the rest: each night verifies 50 and repairs the edits among them.
    for (const each of [first, second]) {
      expect(each).toMatchObject({ reads: 5, verified: 50 });
      expect(each.drift).toBe(each.repaired.length);
      expect(each.writes).toBe(each.repaired.length);
    }
    expect([...first.repaired, ...second.repaired].sort((a, b) => a - b)).toEqual(EDITED);
    expect(stillEdited()).toEqual([]);
    expect(ws.summary('import', 'night1').verification).toMatchObject({ by: 'pages', pages: [1, 2, 3, 4, 5], budget: 5 });
    expect(ws.summary('import', 'night2').verification).toMatchObject({ by: 'pages', pages: [6, 7, 8, 9, 10], budget: 5 });
    // The third night starts again at page 1.
    const third = await night(ws, 3, 'searchContacts');
    expect(third).toMatchObject({ reads: 5, writes: 0, verified: 50, drift: 0 });
    expect(ws.summary('import', 'night3').verification).toMatchObject({ pages: [1, 2, 3, 4, 5] });
  });
});

describe('verify and a contact deleted on the platform', () => {
  it('forgets the key (gone), and the next night\'s row creates the contact again', async () => {
    const ws = workspace();
    ws.write('customers.csv', customersCsv(5));
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: verifyJob('100%', false) }));
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'import'])).exitCode).toBe(0);
    expect(emulator().deleteContact(TOKEN, contactIdOf(emulator(), 'C0003'))).toBe(true);
    emulator().resetCounters(TOKEN);

    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'night1'])).exitCode).toBe(0);
    expect(ws.summary('import', 'night1')).toMatchObject({ verified: 4, drift: 0, verification: { reads: 5, gone: 1, failed: 0 } });
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'night2'])).exitCode).toBe(0);
    expect(ws.summary('import', 'night2').rows).toMatchObject({ created: 1, unchanged: 4 });
    expect(contactIdOf(emulator(), 'C0003')).toBeDefined();
  });
});

describe('verify in jobs.yaml', () => {
  it('without a state store is refused before any call, naming the YAML path and the fix (exit 2)', async () => {
    const ws = workspace();
    ws.write('customers.csv', customersCsv(3));
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: `${STATE_JOB.replace('state: state/import.db', 'state: false')}\nverify: { share: 20% }` }));
    const run = await ws.run(['run', 'jobs.yaml']);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain('jobs[0].verify');
    expect(run.stderr).toContain('needs a state store');
    expect(callsByOperation(emulator()).total).toBe(0);
  });

  it('a share that is not one is refused (exit 2)', async () => {
    const ws = workspace();
    ws.write('customers.csv', customersCsv(3));
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: `${STATE_JOB}\nverify: { share: 120% }` }));
    const run = await ws.run(['validate', 'jobs.yaml']);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain('verify.share');
    expect(run.stderr).toContain('more than 100%');
  });
});
