/**
 * The loop a person lives in (issue 29): the nightly job's rejected.csv fixed and fed back with
 * --input, and the rejected.csv of that run fed back again, in UTF-8 and windows-1252 exports. Each
 * generation is written in the input's encoding and line ends with its error columns once, the
 * departed step (onMissing) never runs on the fed-back part, and at the end every fixed row is on
 * the platform, spelled right. A wrong-token run keeps the rows that failed only because the job
 * stopped out of rejected.csv.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import iconv from 'iconv-lite';
import { TOKEN, jobsYaml, workspace, type Workspace } from '../helpers/cli-harness.js';
import { contactWithKey, emulatorPerTest } from '../helpers/integration-fixtures.js';

const emulator = emulatorPerTest();
const ROWS = 24;

/** Rows whose email is broken in the export, with the names a person spells with accents. */
const BROKEN: ReadonlyArray<{ row: number; name: string; email: string }> = [
  { row: 3, name: 'Renée', email: 'renee-at-example.com' },
  { row: 8, name: 'Müller', email: 'mueller@' },
  { row: 13, name: 'Zoë', email: 'zoe example.com' },
];

const key = (row: number): string => `C${String(row).padStart(3, '0')}`;

/** The export: CRLF line ends (as a CRM's), accented names on the broken rows and on some good ones. */
function exportCsv(): string {
  const lines = ['customer_id,first_name,last_name,email'];
  for (let row = 1; row <= ROWS; row++) {
    const broken = BROKEN.find((b) => b.row === row);
    const name = broken?.name ?? (row % 5 === 0 ? 'José' : `First${row}`);
    lines.push([key(row), name, row % 4 === 0 ? 'Éclair' : `Last${row}`, broken?.email ?? `user${row}@example.com`].join(','));
  }
  return `${lines.join('\r\n')}\r\n`;
}

const JOB = (encoding: string) => `input: { path: customers.csv, encoding: ${encoding} }
key: { column: customer_id, field: customerid }
fields:
  firstName: first_name
  lastName: last_name
  email: { column: email, transform: [email] }
tags: { static: [crm] }
onMissing: { action: tag, tags: [left-crm] }
state: state.db`;

/** What a person does with the file: opens it in the encoding it was written in, fixes one email, saves it so. */
function fixEmail(ws: Workspace, path: string, encoding: string, broken: (typeof BROKEN)[number]): string {
  const text = iconv.decode(readFileSync(join(ws.dir, path)), encoding);
  expect(text).toContain(broken.email);
  const fixed = join(ws.dir, `${path}.fixed.csv`);
  writeFileSync(fixed, iconv.encode(text.replace(broken.email, `${broken.name === 'Müller' ? 'mueller' : broken.name === 'Zoë' ? 'zoe' : 'renee'}@example.com`), encoding));
  return fixed;
}

describe.each(['utf-8', 'windows-1252'])('rejected rows fed back three times (%s export)', (encoding) => {
  it('each generation is written in the input\'s encoding with its columns once, the departed step never runs on it, and every fixed row lands spelled right', async () => {
    const ws = workspace();
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: JOB(encoding) }));
    ws.write('customers.csv', iconv.encode(exportCsv(), encoding));

    const nightly = await ws.run(['run', 'jobs.yaml', '--report-dir', 'r0']);
    expect(nightly.exitCode).toBe(1);
    expect(ws.summary('import', 'r0')).toMatchObject({
      rows: { created: ROWS - 3, failed: 3 },
      failedRows: { toFix: 3, toRunAgain: 0, rejectedEncoding: encoding, rejectedLineEnds: 'CRLF' },
    });
    const bytes = readFileSync(join(ws.dir, 'r0', 'import.rejected.csv'));
    // In the export's own bytes: é is one byte in windows-1252, two in UTF-8; CRLF line ends.
    expect(bytes.includes(iconv.encode('Renée', encoding))).toBe(true);
    expect(bytes.includes(Buffer.from('Ren\u00c3\u00a9e', 'latin1'))).toBe(encoding === 'utf-8');
    expect(iconv.decode(bytes, encoding).split('\r\n')[0]).toBe('customer_id,first_name,last_name,email,error_code,error_message');
    if (encoding !== 'utf-8') expect(nightly.stdout).toContain(`(written in ${encoding}, as the input: save it in ${encoding})`);

    let input = fixEmail(ws, 'r0/import.rejected.csv', encoding, BROKEN[0]!);
    for (const [generation, broken] of [
      [1, BROKEN[1]!],
      [2, BROKEN[2]!],
    ] as const) {
      const fed = await ws.run(['run', 'jobs.yaml', '--input', input, '--report-dir', `r${generation}`]);
      expect(fed.exitCode).toBe(1);
      expect(fed.stdout).toContain('departed keys: not looked at: the input is a rejected file fed back');
      expect(fed.stdout).not.toContain('--max-missing');
      expect(ws.summary('import', `r${generation}`)).toMatchObject({ rows: { total: 3 - generation + 1, failed: 3 - generation }, departed: { applied: false } });
      expect(existsSync(join(ws.dir, `r${generation}`, 'import.departed.csv'))).toBe(false);
      const rejected = iconv.decode(readFileSync(join(ws.dir, `r${generation}`, 'import.rejected.csv')), encoding);
      expect(rejected.split('\r\n')[0]).toBe('customer_id,first_name,last_name,email,error_code,error_message');
      input = fixEmail(ws, `r${generation}/import.rejected.csv`, encoding, broken);
    }
    const last = await ws.run(['run', 'jobs.yaml', '--input', input, '--report-dir', 'r3']);
    expect(last.exitCode).toBe(0);
    expect(ws.summary('import', 'r3')).toMatchObject({ rows: { total: 1, created: 1, failed: 0 }, departed: { applied: false } });
    expect(ws.rejected('import', 'r3')).toEqual([]);

    const contacts = emulator().contacts(TOKEN);
    expect(contacts).toHaveLength(ROWS);
    expect(contacts.filter((contact) => contact.tags.includes('left-crm'))).toEqual([]);
    expect(contactWithKey(emulator(), key(3)).custom_fields).toMatchObject({ firstName: 'Renée', email: 'renee@example.com' });
    expect(contactWithKey(emulator(), key(8)).custom_fields).toMatchObject({ firstName: 'Müller', lastName: 'Éclair', email: 'mueller@example.com' });
    expect(contactWithKey(emulator(), key(13)).custom_fields).toMatchObject({ firstName: 'Zoë', email: 'zoe@example.com' });
    expect(contactWithKey(emulator(), key(5)).custom_fields).toMatchObject({ firstName: 'José' });
    // No value anywhere holds UTF-8 read as windows-1252.
    expect(contacts.flatMap((contact) => Object.values(contact.custom_fields)).filter((value) => /Ã|Â/.test(String(value)))).toEqual([]);

    // The next nightly run of the whole export (fixed at the source) is complete: the departed step runs and finds no key gone.
    ws.write('customers.csv', iconv.encode(exportCsv().replace('renee-at-example.com', 'renee@example.com').replace('mueller@\r\n', 'mueller@example.com\r\n').replace('zoe example.com', 'zoe@example.com'), encoding));
    const complete = await ws.run(['run', 'jobs.yaml', '--report-dir', 'r4']);
    expect(complete.exitCode).toBe(0);
    expect(ws.summary('import', 'r4').departed).toMatchObject({ knownKeys: ROWS, missing: 0, refused: false });
  });
});

describe('a UTF-8 file fed through a windows-1252 job', () => {
  it('is caught: its rows with accents fail CSV_INVALID_BYTES naming what they mean, nothing misspelled reaches the platform, and the hint says utf-8', async () => {
    const ws = workspace();
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: JOB('windows-1252') }));
    ws.write('customers.csv', Buffer.from('customer_id,first_name,last_name,email\r\nC001,Renée,Roe,renee@example.com\r\nC002,Ann,Lee,ann@example.com\r\n', 'utf8'));

    const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'r']);

    expect(run.exitCode).toBe(1);
    // The reader's row keeps the key it shows (issue 34).
    expect(ws.results('import', 'r').map((row) => [row.line, row.key, row.outcome, row.error_code])).toEqual(
      expect.arrayContaining([
        ['2', 'C001', 'failed', 'CSV_INVALID_BYTES'],
        ['3', 'C002', 'created', ''],
      ]),
    );
    expect(emulator().contacts(TOKEN).map((contact) => contact.custom_fields.firstName)).toEqual(['Ann']);
    expect(run.stderr).toContain('this file looks like UTF-8, not windows-1252');
    // rejected.csv, written back in windows-1252, holds the file's own UTF-8 bytes: read as utf-8 it is right.
    expect(readFileSync(join(ws.dir, 'r', 'import.rejected.csv')).includes(Buffer.from('Renée', 'utf8'))).toBe(true);
  });
});

describe('a run with a wrong token', () => {
  it('keeps the rows that failed only because the job stopped out of rejected.csv, and says they are to run again', async () => {
    const ws = workspace();
    const lines = ['customer_id,first_name,last_name,email'];
    for (let row = 1; row <= 30; row++) lines.push(`${key(row)},First${row},Last${row},${row <= 2 ? 'not-an-email' : `user${row}@example.com`}`);
    ws.write('customers.csv', `${lines.join('\n')}\n`);
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: JOB('utf-8').replace('state: state.db', 'state: false').replace(/onMissing.*\n/, '') }));

    const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'r'], { env: { CHANNEL_TOKEN: 'wrong-token-5c1d' } });

    expect(run.exitCode).toBe(3);
    const results = ws.results('import', 'r');
    const outside = results.filter((row) => row.error_code === 'INVALID_TOKEN' || row.error_code === 'ABORTED');
    expect(outside.length).toBeGreaterThan(0);
    const rejected = ws.rejected('import', 'r');
    expect(rejected.map((row) => [row.customer_id, row.error_code])).toEqual([
      [key(1), 'INVALID_EMAIL'],
      [key(2), 'INVALID_EMAIL'],
    ]);
    expect(ws.summary('import', 'r').failedRows).toMatchObject({ toFix: 2, toRunAgain: outside.length });
    expect(run.stdout).toContain(outside.length === 1 ? '1 row failed for a cause outside its data' : `${outside.length} rows failed for a cause outside their data`);
    expect(run.stdout).toContain('2 rows failed for their data: fix them in');

    // The token fixed, the same command again takes every good row; the rejected rows fixed and fed back, the rest.
    const again = await ws.run(['run', 'jobs.yaml', '--report-dir', 'r2']);
    expect(again.exitCode).toBe(1);
    expect(ws.summary('import', 'r2').rows).toMatchObject({ created: 28, failed: 2 });
    const fixed = readFileSync(join(ws.dir, 'r2', 'import.rejected.csv'), 'utf8').replace(/not-an-email/g, (_match, offset: number) => `fixed${offset}@example.com`);
    writeFileSync(join(ws.dir, 'fixed.csv'), fixed);
    expect((await ws.run(['run', 'jobs.yaml', '--input', 'fixed.csv', '--report-dir', 'r3'])).exitCode).toBe(0);
    expect(emulator().contacts(TOKEN)).toHaveLength(30);
  });
});
