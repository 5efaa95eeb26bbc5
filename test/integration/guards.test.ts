/**
 * `guards:` (issue 37, docs/configuration.md "Guards"): each guard refuses a run before its first
 * write (exit 2, nothing on the platform changed, no report), on dry runs too, names what it saw
 * and lets one run through with `--allow NAME`; a column the last run had is named as gone.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { callsByOperation, contactWithKey, emulatorPerTest } from '../helpers/integration-fixtures.js';
import { recordingServer } from '../helpers/recording-server.js';
import { TOKEN, customersCsv, jobsYaml, workspace, type Workspace } from '../helpers/cli-harness.js';

const emulator = emulatorPerTest();

const JOB = (guards: string, extra = '') => `input: customers.csv
key: { column: customer_id, field: customerid }
fields:
  firstName: first_name
  lastName: last_name
  email: { column: email, transform: [email] }
guards: ${guards}
state: state/crm.db${extra}`;

function setUp(ws: Workspace, guards: string, extra = ''): void {
  ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: JOB(guards, extra) }));
}

/** The emulator's contacts, as customer id -> custom fields. */
function platform(): Record<string, Record<string, string>> {
  return Object.fromEntries(emulator().contacts(TOKEN).map((contact): [string, Record<string, string>] => [String(contact.custom_fields.customerid), { ...contact.custom_fields }]));
}

describe('guards.minRows', () => {
  it('refuses a short export before any write, dry runs too, and --allow minRows lets one run through', async () => {
    const ws = workspace();
    setUp(ws, '{ minRows: 5 }');
    ws.write('customers.csv', customersCsv(3));
    for (const flags of [[], ['--dry-run']]) {
      const refused = await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports', ...flags]);
      expect(refused.exitCode).toBe(2);
      expect(refused.stderr).toContain('job "import": refused by its guards before any write; nothing was done:');
      expect(refused.stderr).toMatch(/- minRows: \S*customers\.csv has 3 data rows/);
      expect(refused.stderr).toContain('customers.csv has 3 data rows, fewer than guards.minRows (5): an empty or cut-short export?');
      expect(refused.stderr).toContain('add --allow minRows');
    }
    expect(emulator().contacts(TOKEN)).toEqual([]);
    expect(existsSync(join(ws.dir, 'reports', 'import.results.csv'))).toBe(false);
    const allowed = await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports', '--allow', 'minRows']);
    expect(allowed.exitCode).toBe(0);
    expect(Object.keys(platform()).sort()).toEqual(['C0001', 'C0002', 'C0003']);
  });

  it('--allow JOB:NAME lets that job past, not the others; a JOB the command does not run is a usage error', async () => {
    const ws = workspace();
    const second = jobsYaml({ url: emulator().url, job: JOB('{ minRows: 5 }').replace('state/crm.db', 'state/other.db'), name: 'other' }).split('jobs:\n')[1]!;
    ws.write('jobs.yaml', `${jobsYaml({ url: emulator().url, job: JOB('{ minRows: 5 }') })}${second}`);
    ws.write('customers.csv', customersCsv(3));
    const typo = await ws.run(['run', 'jobs.yaml', '--report-dir', 'typo', '--allow', 'imprt:minRows']);
    expect(typo.exitCode).toBe(2);
    expect(typo.stderr).toContain('--allow imprt:minRows: no job "imprt" runs in this command (import, other); did you mean "import"?; name one of them, or write --allow minRows for every job');
    expect(emulator().contacts(TOKEN)).toEqual([]);
    const one = await ws.run(['run', 'jobs.yaml', '--report-dir', 'one', '--allow', 'import:minRows']);
    expect(one.exitCode).toBe(2);
    expect(one.stderr).toContain('job "other": refused by its guards before any write');
    expect(one.stderr).not.toContain('job "import": refused');
    expect(ws.summary('import', 'one').guardsAllowed).toEqual([{ guard: 'minRows', configured: true, refusals: 1, messages: [expect.stringContaining('has 3 data rows, fewer than guards.minRows (5)')] }]);
    expect(one.stderr).toContain('--allow import:minRows: went past guards.minRows');
    // An --allow of a guard the job does not have is said, not dropped.
    const none = await ws.run(['run', 'jobs.yaml', '--report-dir', 'none', '--job', 'import', '--allow', 'minRows', '--allow', 'maxChange']);
    expect(none.exitCode).toBe(0);
    expect(none.stderr).toContain('--allow maxChange (every job of this run): this job has no guards.maxChange; there was nothing to go past');
    expect(ws.summary('import', 'none').guardsAllowed).toEqual([
      { guard: 'minRows', configured: true, refusals: 1, messages: [expect.any(String)] },
      { guard: 'maxChange', configured: false, refusals: 0, messages: [] },
    ]);
  });

  it('an --allow that names no guard is a usage error naming the guards', async () => {
    const ws = workspace();
    setUp(ws, '{ minRows: 5 }');
    ws.write('customers.csv', customersCsv(3));
    const run = await ws.run(['run', 'jobs.yaml', '--allow', 'rows']);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain('--allow: "rows" is not a guard; write one of minRows, maxChange');
  });
});

describe('guards.maxChange', () => {
  it('refuses a night that would change one field on more than the share of the known keys, naming five with both values; --allow maxChange writes it', async () => {
    const ws = workspace();
    setUp(ws, '{ maxChange: 20% }');
    ws.write('customers.csv', customersCsv(10));
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports'])).exitCode).toBe(0);
    const before = platform();
    // The export's last_name column now holds the first names on 3 rows of 10: 30% > 20%.
    ws.write('customers.csv', customersCsv(10, (i, cells) => (i <= 3 ? [cells[0]!, cells[1]!, cells[1]!, ...cells.slice(3)] : cells)));
    const refused = await ws.run(['run', 'jobs.yaml', '--report-dir', 'refused', '--dry-run']);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain(
      '- maxChange: the input would change field "lastName" on 3 of the 10 keys the state knows (30%, more than guards.maxChange 20%): a mapping or an export gone wrong? ' +
        'For example "C0001": "Last1" -> "First1"; "C0002": "Last2" -> "First2"; "C0003": "Last3" -> "First3". Check the export and the mapping; to run with them once, add --allow maxChange',
    );
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'refused'])).exitCode).toBe(2);
    expect(platform()).toEqual(before);
    const allowed = await ws.run(['run', 'jobs.yaml', '--report-dir', 'allowed', '--allow', 'maxChange']);
    expect(allowed.exitCode).toBe(0);
    expect(ws.summary('import', 'allowed').rows).toMatchObject({ updated: 3, unchanged: 7 });
    // --allow leaves a trace: the log says what it let past, summary.json keeps it.
    expect(allowed.stderr).toContain('--allow maxChange (every job of this run): went past guards.maxChange, which would have refused this run: the input would change field "lastName" on 3 of the 10 keys');
    expect(ws.summary('import', 'allowed').guardsAllowed).toEqual([
      { guard: 'maxChange', configured: true, refusals: 1, messages: [expect.stringContaining('the input would change field "lastName" on 3 of the 10 keys the state knows (30%')] },
    ]);
    expect(platform().C0002?.lastName).toBe('First2');
  });

  it('a change within the share runs; an empty cell (emptyValues: ignore) changes nothing and is not counted', async () => {
    const ws = workspace();
    setUp(ws, '{ maxChange: 20% }');
    ws.write('customers.csv', customersCsv(10));
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports'])).exitCode).toBe(0);
    ws.write('customers.csv', customersCsv(10, (i, cells) => (i <= 2 ? [cells[0]!, 'Renamed', ...cells.slice(2)] : i <= 8 ? [cells[0]!, '', ...cells.slice(2)] : cells)));
    const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'night2']);
    expect(run.exitCode).toBe(0);
    expect(ws.summary('import', 'night2').rows).toMatchObject({ updated: 2 });
  });

  it('needs the state store: with state: false it is a config error at its YAML path', async () => {
    const ws = workspace();
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: JOB('{ maxChange: 20% }').replace('state: state/crm.db', 'state: false') }));
    ws.write('customers.csv', customersCsv(1));
    const run = await ws.run(['run', 'jobs.yaml']);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain('jobs[0].guards.maxChange: needs the state store (this job has state: false)');
  });
});

describe('a mapped column renamed upstream', () => {
  it('is named as gone from the header of the job\'s last run, with the column that came instead', async () => {
    const ws = workspace();
    setUp(ws, '{ minRows: 1 }');
    ws.write('customers.csv', customersCsv(2));
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports'])).exitCode).toBe(0);
    ws.write('customers.csv', customersCsv(2).replace('last_name', 'surname'));
    const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports']);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain(
      'customers.csv: column "last_name" (jobs[name=import].fields.lastName) was in the header of the job\'s last run and is not in this one, and this header has "surname", which the last one had not: renamed upstream? Point the jobs file at the new name, or have the export keep "last_name"',
    );
  });
});

describe('a night a guard refused, as the watchers tell it', () => {
  it('is exit 2 in the metrics, not a success, and the webhook is told why', async () => {
    const hook = await recordingServer({ path: '/hook' });
    const ws = workspace();
    setUp(ws, '{ minRows: 5 }', `\nnotify: { webhook: "${hook.url}" }`);
    ws.write('customers.csv', customersCsv(3));
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports', '--metrics-file', 'contact_sync.prom'])).exitCode).toBe(2);
    const metrics = readFileSync(join(ws.dir, 'contact_sync.prom'), 'utf8');
    expect(metrics).toMatch(/^contact_sync_last_exit_code\{sync_job="import"\} 2$/m);
    expect(metrics).not.toMatch(/contact_sync_last_success_timestamp_seconds\{sync_job="import"\}/);
    await hook.close();
    expect(hook.requests).toHaveLength(1);
    const body = JSON.parse(hook.requests[0]!.body) as { text: string; exitCode: number };
    expect(body.exitCode).toBe(2);
    expect(body.text).toContain('GUARD_REFUSED');
    expect(body.text).toContain('fewer than guards.minRows (5)');
  });
});

/** The seeds of `rows` contacts the platform holds before the first run, as customersCsv writes them. */
function existingContacts(rows: number): Array<{ custom_fields: Record<string, string> }> {
  return Array.from({ length: rows }, (_, index) => {
    const i = index + 1;
    return { custom_fields: { customerid: `C${String(i).padStart(4, '0')}`, firstName: `First${i}`, lastName: `Last${i}`, email: `user${i}@example.com` } };
  });
}

/** The write calls the emulator received. */
function writes(): number {
  const calls = callsByOperation(emulator()) as Record<string, number>;
  return Object.entries(calls).filter(([operation]) => !['total', 'searchContacts', 'listContacts', 'getContact'].includes(operation)).reduce((sum, [, count]) => sum + count, 0);
}

describe('guards.maxChange on a first run into existing contacts (issue 41)', () => {
  const swapped = (_i: number, cells: string[]) => [cells[0]!, cells[2]!, cells[1]!, ...cells.slice(3)];

  it('refuses a first run whose name columns are swapped, from the contacts it read before any write: exit 2, nothing written, dry runs too', async () => {
    emulator().loadContacts(TOKEN, existingContacts(20));
    const before = platform();
    const ws = workspace();
    setUp(ws, '{ maxChange: 10% }');
    ws.write('customers.csv', customersCsv(20, swapped));
    for (const flags of [['--dry-run'], []]) {
      const refused = await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports', ...flags]);
      expect(refused.exitCode).toBe(2);
      expect(refused.stderr).toContain(
        '- maxChange: the input would change field "firstName" on 20 of the 20 contacts that hold the first 20 keys the state does not know, read on the platform before any write (100%, more than guards.maxChange 10%): a mapping or an export gone wrong? ' +
          'For example "C0001": "First1" -> "Last1";',
      );
      expect(refused.stderr).toContain('field "lastName" on 20 of the 20 contacts');
    }
    expect(writes()).toBe(0);
    expect(platform()).toEqual(before);
    expect(existsSync(join(ws.dir, 'reports', 'import.results.csv'))).toBe(false);
  });

  it('with match.prefetch, judges the first run by the pages the run reads anyway: no search before the refusal', async () => {
    emulator().loadContacts(TOKEN, existingContacts(20).map((seed) => ({ custom_fields: { ...seed.custom_fields, source: 'crm' } })));
    const ws = workspace();
    setUp(ws, '{ maxChange: 10% }', '\nmatch: { prefetch: { field: source, value: crm } }');
    ws.write('customers.csv', customersCsv(20, swapped));
    const refused = await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports']);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain('field "firstName" on 20 of the 20 contacts that hold the first 20 keys the state does not know');
    // The listing's pages (20 marked contacts, 10 a page on v1, and the empty page after them), no key's search.
    expect(callsByOperation(emulator()).searchContacts).toBeLessThanOrEqual(3);
    expect(writes()).toBe(0);
  });

  it('a refused token met by the first read stops the job before any row, with its reports, and no second try', async () => {
    emulator().loadContacts(TOKEN, existingContacts(3));
    const ws = workspace();
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, token: 'not-the-token', job: `${JOB('{ maxChange: 10% }')}\nconcurrency: 1` }));
    ws.write('customers.csv', customersCsv(3));
    const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports']);
    expect(run.exitCode).toBe(3);
    const summary = ws.summary('import');
    expect(summary.aborted).toMatchObject({ code: 'INVALID_TOKEN' });
    // One search, the first read's: no row searched again.
    expect(summary.apiCalls.total).toBe(1);
    expect(summary.rows.notReached).toBe(3);
    expect(writes()).toBe(0);
  });

  it('a first run within the share makes the calls it makes without guards: the searches made before the first write are the rows\' own', async () => {
    // One existing contact of twenty has another first name in the file: 5%, within 10%.
    const file = customersCsv(30, (i, cells) => (i === 3 ? [cells[0]!, 'Renamed', ...cells.slice(2)] : cells));
    const runOnce = async (guards: string): Promise<{ exitCode: number; calls: Record<string, number>; apiCalls: string[] }> => {
      emulator().reset();
      emulator().loadContacts(TOKEN, existingContacts(20));
      const ws = workspace();
      setUp(ws, guards);
      ws.write('customers.csv', file);
      const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports']);
      return { exitCode: run.exitCode, calls: callsByOperation(emulator()), apiCalls: ws.results('import').map((row) => `${row.key}:${row.api_calls}`).sort() };
    };
    const guarded = await runOnce('{ maxChange: 10% }');
    const unguarded = await runOnce('{ minRows: 1 }');
    expect(guarded.exitCode).toBe(0);
    expect(unguarded.exitCode).toBe(0);
    expect(guarded.calls).toEqual(unguarded.calls);
    expect(guarded.apiCalls).toEqual(unguarded.apiCalls);
    expect(contactWithKey(emulator(), 'C0003').custom_fields.firstName).toBe('Renamed');
    expect(emulator().contacts(TOKEN)).toHaveLength(30);
  });
});

describe('guards.maxChange on a re-keyed export and an emptied tag column (issue 42)', () => {
  it('refuses an export whose every key is new while the known keys go missing: no contact is created again', async () => {
    const ws = workspace();
    setUp(ws, '{ maxChange: 10% }');
    ws.write('customers.csv', customersCsv(20));
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports'])).exitCode).toBe(0);
    ws.write('customers.csv', customersCsv(20, (_i, cells) => [cells[0]!.replace('C', 'K'), ...cells.slice(1)]));
    const refused = await ws.run(['run', 'jobs.yaml', '--report-dir', 'rekeyed']);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain(
      '- maxChange: the input lacks 20 of the 20 keys the state knows and brings 20 keys it does not know, each a contact created again (100% of the known keys replaced, more than guards.maxChange 10%): ' +
        'a re-keyed export (another key column, a new id scheme)? New keys such as "K0001", "K0002", "K0003", "K0004", "K0005". Check the key column of the export and key.column; to run with them once, add --allow maxChange',
    );
    expect(emulator().contacts(TOKEN)).toHaveLength(20);
    // A part of the export (--partial) lacks the known keys without replacing them.
    ws.write('customers.csv', customersCsv(5, (_i, cells) => [cells[0]!.replace('C', 'P'), ...cells.slice(1)]));
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'part', '--partial'])).exitCode).toBe(0);
    expect(emulator().contacts(TOKEN)).toHaveLength(25);
    // New customers on top of the known ones replace nothing.
    ws.write('customers.csv', `${customersCsv(40)}${customersCsv(5, (_i, cells) => [cells[0]!.replace('C', 'P'), ...cells.slice(1)]).split('\n').slice(1).join('\n')}`);
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'grown'])).exitCode).toBe(0);
    expect(emulator().contacts(TOKEN)).toHaveLength(45);
  });

  it('with tags.prune, counts the contacts an emptied tag column would strip of their tags', async () => {
    const ws = workspace();
    setUp(ws, '{ maxChange: 10% }', '\ntags: { column: segments, prune: true }');
    ws.write('customers.csv', customersCsv(20));
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports'])).exitCode).toBe(0);
    const tagged = emulator().contacts(TOKEN).map((contact) => [...contact.tags].sort());
    ws.write('customers.csv', customersCsv(20, (_i, cells) => [...cells.slice(0, 5), '']));
    const refused = await ws.run(['run', 'jobs.yaml', '--report-dir', 'emptied']);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain(
      '- maxChange: the input would remove tags (tags.prune) from 20 of the 20 keys the state knows (100%, more than guards.maxChange 10%): an emptied or renamed tag column? For example "C0001": loses newsletter, the row has no tag;',
    );
    expect(emulator().contacts(TOKEN).map((contact) => [...contact.tags].sort())).toEqual(tagged);
  });
});
